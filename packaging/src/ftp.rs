//! A small FTP client (RFC 959, passive mode, binary type) over
//! `std::net`: what deploying a folder needs and no more.
//!
//! - Passive data connections: `PASV` (IPv4) or `EPSV` (IPv6, or when
//!   `PASV` is refused). The data connection goes to the control
//!   connection's peer; the address in a `PASV` reply is ignored (consoles
//!   behind NAT or with several interfaces report unreachable ones).
//! - Sizes: `SIZE`, and `LIST` when the server does not know `SIZE`.
//! - Uploads: `STOR` (from the start) or `APPE` (resume: append the rest).
//! - Every read and write has a timeout, so a dropped connection surfaces
//!   as an error instead of a hang.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// A reply: its code and its text (lines joined by `\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The three-digit code.
    pub code: u16,
    /// The text after the code.
    pub text: String,
}

/// What went wrong talking to the server.
#[derive(Debug)]
pub enum FtpError {
    /// The network: connecting, a read or write, a timeout, a closed
    /// connection.
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: io::Error,
    },
    /// The server answered a command with an error code.
    Reply {
        /// The command (a password is not shown).
        command: String,
        /// The reply.
        reply: Reply,
    },
    /// The server said something this client does not understand.
    Protocol(String),
    /// A local file could not be read.
    Local {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: io::Error,
    },
    /// After an upload the server's size is not the file's.
    SizeMismatch {
        /// The remote path.
        path: String,
        /// The local size.
        expected: u64,
        /// The server's size (`None`: the file is not there).
        found: Option<u64>,
    },
}

impl FtpError {
    /// Whether trying again (on a new connection) may succeed: network
    /// errors, 4xx replies (transient by RFC 959), unreadable replies and
    /// short files.
    pub fn is_transient(&self) -> bool {
        match self {
            FtpError::Io { .. } | FtpError::Protocol(_) | FtpError::SizeMismatch { .. } => true,
            FtpError::Reply { reply, .. } => (400..500).contains(&reply.code),
            FtpError::Local { .. } => false,
        }
    }

    /// Whether the server does not implement the command (500, 502, 504).
    pub fn is_not_implemented(&self) -> bool {
        matches!(self, FtpError::Reply { reply, .. } if matches!(reply.code, 500 | 502 | 504))
    }
}

impl fmt::Display for FtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FtpError::Io { context, source } => write!(f, "{context}: {source}"),
            FtpError::Reply { command, reply } => {
                write!(
                    f,
                    "the server answered {command} with {} {}",
                    reply.code, reply.text
                )
            }
            FtpError::Protocol(m) => f.write_str(m),
            FtpError::Local { path, source } => write!(f, "{}: {source}", path.display()),
            FtpError::SizeMismatch {
                path,
                expected,
                found: Some(n),
            } => {
                write!(
                    f,
                    "{path}: the server has {n} bytes, the file is {expected}"
                )
            }
            FtpError::SizeMismatch {
                path,
                expected,
                found: None,
            } => {
                write!(
                    f,
                    "{path}: not on the server after the upload ({expected} bytes sent)"
                )
            }
        }
    }
}

impl std::error::Error for FtpError {}

fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> FtpError {
    let context = context.into();
    move |source| FtpError::Io { context, source }
}

/// How an upload writes the remote file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreMode {
    /// `STOR`: create or truncate, write from the start.
    Store,
    /// `APPE`: append to what is there (resuming).
    Append,
}

/// One logged-in control connection.
pub struct FtpConnection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    peer: SocketAddr,
    timeout: Duration,
    size_unsupported: bool,
    pasv_unsupported: bool,
}

/// Connects to the first address of `host:port` that answers.
fn connect_any(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, FtpError> {
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(io(format!("resolving {host}")))?
        .collect();
    let mut last = None;
    for addr in &addrs {
        match TcpStream::connect_timeout(addr, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some((addr, e)),
        }
    }
    match last {
        Some((addr, e)) => Err(FtpError::Io {
            context: format!("connecting to {addr}"),
            source: e,
        }),
        None => Err(FtpError::Protocol(format!("{host} has no address"))),
    }
}

impl FtpConnection {
    /// Connects, reads the greeting and logs in.
    pub fn connect(
        host: &str,
        port: u16,
        user: &str,
        password: &str,
        timeout: Duration,
    ) -> Result<FtpConnection, FtpError> {
        let stream = connect_any(host, port, timeout)?;
        let peer = stream
            .peer_addr()
            .map_err(io("reading the server's address"))?;
        stream
            .set_read_timeout(Some(timeout))
            .map_err(io("setting a timeout"))?;
        stream
            .set_write_timeout(Some(timeout))
            .map_err(io("setting a timeout"))?;
        stream
            .set_nodelay(true)
            .map_err(io("setting TCP_NODELAY"))?;
        let writer = stream
            .try_clone()
            .map_err(io("cloning the control socket"))?;
        let mut c = FtpConnection {
            reader: BufReader::new(stream),
            writer,
            peer,
            timeout,
            size_unsupported: false,
            pasv_unsupported: false,
        };
        let greeting = c.read_reply()?;
        if greeting.code != 220 {
            return Err(FtpError::Reply {
                command: "(greeting)".into(),
                reply: greeting,
            });
        }
        let r = c.command(&format!("USER {user}"))?;
        match r.code {
            230 => {}
            331 | 332 => {
                let r = c.send_and_read(&format!("PASS {password}"), "PASS ****")?;
                if r.code != 230 && r.code != 202 {
                    return Err(FtpError::Reply {
                        command: "PASS".into(),
                        reply: r,
                    });
                }
            }
            _ => {
                return Err(FtpError::Reply {
                    command: format!("USER {user}"),
                    reply: r,
                });
            }
        }
        c.expect("TYPE I", |c| c == 200)?;
        Ok(c)
    }

    /// The server's address.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Reads one reply (all lines of a multi-line one).
    fn read_reply(&mut self) -> Result<Reply, FtpError> {
        let first = self.read_line()?;
        let code = parse_code(&first)?;
        let mut text = first.get(4..).unwrap_or("").to_owned();
        if first.as_bytes().get(3) == Some(&b'-') {
            let end = format!("{code} ");
            loop {
                let line = self.read_line()?;
                if line.starts_with(&end) || line == code.to_string() {
                    text.push('\n');
                    text.push_str(line.get(4..).unwrap_or(""));
                    break;
                }
                text.push('\n');
                text.push_str(&line);
            }
        }
        log::trace!("<- {code} {text}");
        Ok(Reply { code, text })
    }

    fn read_line(&mut self) -> Result<String, FtpError> {
        let mut line = String::new();
        let n = self
            .reader
            .read_line(&mut line)
            .map_err(io("reading the server's reply"))?;
        if n == 0 {
            return Err(FtpError::Io {
                context: "reading the server's reply".into(),
                source: io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the control connection",
                ),
            });
        }
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    }

    fn send_and_read(&mut self, line: &str, shown: &str) -> Result<Reply, FtpError> {
        log::debug!("-> {shown}");
        if line.contains(['\r', '\n']) {
            return Err(FtpError::Protocol(format!(
                "{shown:?} contains a line break"
            )));
        }
        self.writer
            .write_all(format!("{line}\r\n").as_bytes())
            .map_err(io(format!("sending {shown}")))?;
        self.read_reply()
    }

    /// Sends a command and reads its reply, whatever the code.
    pub fn command(&mut self, line: &str) -> Result<Reply, FtpError> {
        self.send_and_read(line, line)
    }

    /// Sends a command; a reply whose code `ok` refuses is an error.
    fn expect(&mut self, line: &str, ok: impl Fn(u16) -> bool) -> Result<Reply, FtpError> {
        let r = self.command(line)?;
        if ok(r.code) {
            Ok(r)
        } else {
            Err(FtpError::Reply {
                command: line.into(),
                reply: r,
            })
        }
    }

    /// Creates `path` (absolute) and its parents where missing; returns the
    /// folders it created.
    pub fn make_dirs(&mut self, path: &str) -> Result<Vec<String>, FtpError> {
        let mut created = Vec::new();
        let mut current = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            current.push('/');
            current.push_str(part);
            let r = self.command(&format!("MKD {current}"))?;
            if r.code == 257 {
                created.push(current.clone());
                continue;
            }
            // Already there (or not allowed): a folder we can enter is fine.
            let cwd = self.command(&format!("CWD {current}"))?;
            if cwd.code != 250 {
                return Err(FtpError::Reply {
                    command: format!("MKD {current}"),
                    reply: r,
                });
            }
        }
        Ok(created)
    }

    /// The size of the remote file `path`; `None` when it does not exist.
    pub fn size(&mut self, path: &str) -> Result<Option<u64>, FtpError> {
        if !self.size_unsupported {
            let r = self.command(&format!("SIZE {path}"))?;
            match r.code {
                213 => {
                    return r.text.trim().parse().map(Some).map_err(|_| {
                        FtpError::Protocol(format!("SIZE {path}: unreadable size {:?}", r.text))
                    });
                }
                550 => return Ok(None),
                500 | 502 | 504 => {
                    log::debug!("the server does not know SIZE; using LIST");
                    self.size_unsupported = true;
                }
                _ => {
                    return Err(FtpError::Reply {
                        command: format!("SIZE {path}"),
                        reply: r,
                    });
                }
            }
        }
        self.size_by_list(path)
    }

    /// The size of `path` from a Unix-style `LIST` line.
    fn size_by_list(&mut self, path: &str) -> Result<Option<u64>, FtpError> {
        let mut data = self.open_data()?;
        let r = self.command(&format!("LIST {path}"))?;
        if r.code == 450 || r.code == 550 {
            return Ok(None);
        }
        if r.code != 125 && r.code != 150 {
            return Err(FtpError::Reply {
                command: format!("LIST {path}"),
                reply: r,
            });
        }
        let mut listing = String::new();
        data.read_to_string(&mut listing)
            .map_err(io(format!("reading LIST {path}")))?;
        drop(data);
        let done = self.read_reply()?;
        if done.code != 226 && done.code != 250 {
            return Err(FtpError::Reply {
                command: format!("LIST {path}"),
                reply: done,
            });
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        Ok(listing.lines().find_map(|line| parse_list_size(line, name)))
    }

    /// Opens a passive data connection.
    fn open_data(&mut self) -> Result<TcpStream, FtpError> {
        let port = if self.peer.is_ipv4() && !self.pasv_unsupported {
            let r = self.command("PASV")?;
            if r.code == 227 {
                Some(parse_pasv(&r.text)?)
            } else if matches!(r.code, 500 | 502 | 504) {
                self.pasv_unsupported = true;
                None
            } else {
                return Err(FtpError::Reply {
                    command: "PASV".into(),
                    reply: r,
                });
            }
        } else {
            None
        };
        let port = match port {
            Some(p) => p,
            None => {
                let r = self.expect("EPSV", |c| c == 229)?;
                parse_epsv(&r.text)?
            }
        };
        let addr = SocketAddr::new(self.peer.ip(), port);
        let s = TcpStream::connect_timeout(&addr, self.timeout)
            .map_err(io(format!("opening the data connection to {addr}")))?;
        s.set_read_timeout(Some(self.timeout))
            .map_err(io("setting a timeout"))?;
        s.set_write_timeout(Some(self.timeout))
            .map_err(io("setting a timeout"))?;
        Ok(s)
    }

    /// Uploads `len` bytes from `src` to `path`. `started` is called once
    /// the server has accepted the command (from then on the remote file
    /// holds a prefix of what is being sent); `progress` after each chunk
    /// with the bytes sent so far.
    pub fn store(
        &mut self,
        path: &str,
        mode: StoreMode,
        src: &mut dyn Read,
        len: u64,
        started: &mut dyn FnMut(),
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), FtpError> {
        let mut data = self.open_data()?;
        let verb = match mode {
            StoreMode::Store => "STOR",
            StoreMode::Append => "APPE",
        };
        let command = format!("{verb} {path}");
        let r = self.command(&command)?;
        if r.code != 125 && r.code != 150 {
            return Err(FtpError::Reply { command, reply: r });
        }
        started();
        let mut buf = vec![0u8; 64 * 1024];
        let mut sent = 0u64;
        while sent < len {
            let want = buf
                .len()
                .min(usize::try_from(len - sent).unwrap_or(usize::MAX));
            let n = src
                .read(&mut buf[..want])
                .map_err(|source| FtpError::Local {
                    path: format!("(the file for {path})").into(),
                    source,
                })?;
            if n == 0 {
                return Err(FtpError::Protocol(format!(
                    "{path}: the local file ended after {sent} of {len} bytes (changed while \
                     uploading?)"
                )));
            }
            data.write_all(&buf[..n])
                .map_err(io(format!("sending {path}")))?;
            sent += n as u64;
            progress(sent);
        }
        data.flush().map_err(io(format!("sending {path}")))?;
        data.shutdown(std::net::Shutdown::Write)
            .map_err(io(format!("finishing {path}")))?;
        drop(data);
        let done = self.read_reply()?;
        if done.code != 226 && done.code != 250 {
            return Err(FtpError::Reply {
                command,
                reply: done,
            });
        }
        Ok(())
    }

    /// Deletes the remote file `path`.
    pub fn delete(&mut self, path: &str) -> Result<(), FtpError> {
        self.expect(&format!("DELE {path}"), |c| c == 250)
            .map(|_| ())
    }

    /// Says goodbye (errors are ignored: the work is done).
    pub fn quit(mut self) {
        let _ = self.command("QUIT");
    }
}

fn parse_code(line: &str) -> Result<u16, FtpError> {
    let b = line.as_bytes();
    if b.len() >= 3
        && b[..3].iter().all(u8::is_ascii_digit)
        && matches!(b.get(3), None | Some(b' ' | b'-'))
    {
        Ok(line[..3].parse().expect("three digits"))
    } else {
        Err(FtpError::Protocol(format!("not an FTP reply: {line:?}")))
    }
}

/// The port of a `227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)` reply.
fn parse_pasv(text: &str) -> Result<u16, FtpError> {
    let bad = || FtpError::Protocol(format!("unreadable PASV reply: {text:?}"));
    let start = text.find(|c: char| c.is_ascii_digit()).ok_or_else(bad)?;
    let nums: Vec<u16> = text[start..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(6)
        .map(|s| s.parse::<u16>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    if nums.len() != 6 || nums.iter().any(|&n| n > 255) {
        return Err(bad());
    }
    Ok(nums[4] * 256 + nums[5])
}

/// The port of a `229 Entering Extended Passive Mode (|||port|)` reply.
fn parse_epsv(text: &str) -> Result<u16, FtpError> {
    let bad = || FtpError::Protocol(format!("unreadable EPSV reply: {text:?}"));
    let open = text.find('(').ok_or_else(bad)?;
    let inner = &text[open + 1..];
    let close = inner.find(')').ok_or_else(bad)?;
    let inner = &inner[..close];
    let delim = inner.chars().next().ok_or_else(bad)?;
    let fields: Vec<&str> = inner.split(delim).collect();
    if fields.len() != 5 {
        return Err(bad());
    }
    fields[3].parse().map_err(|_| bad())
}

/// The size in a Unix `ls -l` style line whose name is `name`.
fn parse_list_size(line: &str, name: &str) -> Option<u64> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 9 || !line.trim_end().ends_with(name) || fields[0].starts_with('d') {
        return None;
    }
    fields[4].parse().ok()
}

/// Splits `HOST[:PORT]` (`[v6]:PORT` for IPv6 with a port).
pub fn parse_host_port(s: &str, default_port: u16) -> Result<(String, u16), String> {
    let bad_port = |p: &str| format!("{s:?}: {p:?} is not a port number");
    if let Some(rest) = s.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("{s:?}: no closing ]"))?;
        return match after.strip_prefix(':') {
            Some(p) => Ok((host.to_owned(), p.parse().map_err(|_| bad_port(p))?)),
            None if after.is_empty() => Ok((host.to_owned(), default_port)),
            None => Err(format!("{s:?}: unexpected {after:?} after ]")),
        };
    }
    if s.parse::<IpAddr>().is_ok() {
        return Ok((s.to_owned(), default_port));
    }
    match s.rsplit_once(':') {
        Some((host, p)) if !host.is_empty() => {
            Ok((host.to_owned(), p.parse().map_err(|_| bad_port(p))?))
        }
        Some(_) => Err(format!("{s:?}: no host")),
        None if s.is_empty() => Err("no host given".into()),
        None => Ok((s.to_owned(), default_port)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passive_replies() {
        assert_eq!(
            parse_pasv("Entering Passive Mode (127,0,0,1,195,80).").unwrap(),
            50000
        );
        assert_eq!(parse_pasv("=127,0,0,1,4,1").unwrap(), 1025);
        assert!(parse_pasv("Entering Passive Mode (127,0,0,1,300,80)").is_err());
        assert_eq!(
            parse_epsv("Entering extended passive mode (|||6446|)").unwrap(),
            6446
        );
        assert!(parse_epsv("Entering extended passive mode").is_err());
    }

    #[test]
    fn list_lines() {
        let l = "-rw-r--r--   1 owner    group      123456 Jan 01 00:00 eboot.elf";
        assert_eq!(parse_list_size(l, "eboot.elf"), Some(123456));
        assert_eq!(parse_list_size(l, "other"), None);
        assert_eq!(
            parse_list_size("drwxr-xr-x 1 o g 0 Jan 01 00:00 eboot.elf", "eboot.elf"),
            None
        );
    }

    #[test]
    fn host_and_port() {
        assert_eq!(parse_host_port("ps5", 2121).unwrap(), ("ps5".into(), 2121));
        assert_eq!(
            parse_host_port("10.0.0.5:21", 2121).unwrap(),
            ("10.0.0.5".into(), 21)
        );
        assert_eq!(parse_host_port("::1", 2121).unwrap(), ("::1".into(), 2121));
        assert_eq!(
            parse_host_port("[::1]:2000", 2121).unwrap(),
            ("::1".into(), 2000)
        );
        assert!(parse_host_port("ps5:port", 2121).is_err());
        assert!(parse_host_port("", 2121).is_err());
    }

    #[test]
    fn reply_codes() {
        assert_eq!(parse_code("220 ready").unwrap(), 220);
        assert_eq!(parse_code("230-hello").unwrap(), 230);
        assert!(parse_code("hello").is_err());
    }
}
