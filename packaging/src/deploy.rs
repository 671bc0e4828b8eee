//! `--deploy`: uploading an app folder to the console's FTP server.
//!
//! The folder goes to `<remote base>/<TITLE_ID>/` (`/data/homebrew/` by
//! default): first every folder is created, then every file in the walk's
//! order with `sce_sys/param.json` last, so a launcher never sees a
//! param.json whose files are not all there yet. After each file the
//! server's size must equal the local size.
//!
//! When a connection drops (or the server reports a transient error, or a
//! size is short), the client waits, reconnects and carries on with the
//! file it was sending:
//! - [`ResumeMode::Append`] (the default): if the server holds a part of
//!   that file (the upload had been accepted, so the part is a prefix of
//!   it), send the rest with `APPE`; a server without `APPE` gets the file
//!   again from the start;
//! - [`ResumeMode::Restart`]: send the file again from the start (`STOR`
//!   truncates). This is the plain reference behaviour.
//!
//! Files finished before the drop are not sent again. Up to `retries`
//! failures in a row are tolerated; a file that completes resets the count.

use crate::PARAM_JSON;
use crate::folder::{Entry, Kind};
use crate::ftp::{FtpConnection, FtpError, StoreMode};
use std::fmt;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::time::Duration;

/// How to carry on with a file after a dropped connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResumeMode {
    /// Append the rest (`APPE`) when the server has a part.
    Append,
    /// Send the whole file again.
    Restart,
}

/// Where and how to upload.
#[derive(Debug, Clone)]
pub struct DeployOptions {
    /// The console's host name or address.
    pub host: String,
    /// The FTP port (2121 on the console).
    pub port: u16,
    /// The user name (console FTP servers accept any).
    pub user: String,
    /// The password.
    pub password: String,
    /// The folder the title's folder goes in (`/data/homebrew`).
    pub remote_base: String,
    /// Failures in a row tolerated before giving up.
    pub retries: u32,
    /// The wait before the first retry; it doubles each time, up to 30 s.
    pub retry_delay: Duration,
    /// The timeout of every connect, read and write.
    pub timeout: Duration,
    /// How to carry on with a file after a drop.
    pub resume: ResumeMode,
}

/// What the deploy is doing, for progress output.
#[derive(Debug)]
pub enum Event<'a> {
    /// Connecting (attempt 1 is the first).
    Connecting {
        /// `host:port`.
        server: String,
        /// Which attempt.
        attempt: u32,
    },
    /// A remote folder was created.
    CreatedDir(&'a str),
    /// A file starts (or continues after a drop).
    FileStart {
        /// 1-based index.
        index: usize,
        /// Number of files.
        count: usize,
        /// Path in the folder.
        rel: &'a str,
        /// Its size.
        size: u64,
        /// Where the upload starts (non-zero when resuming).
        offset: u64,
    },
    /// Bytes of the current file are on their way.
    Bytes {
        /// Path in the folder.
        rel: &'a str,
        /// Bytes of the file sent (including a resumed part).
        done: u64,
        /// Its size.
        size: u64,
    },
    /// A file is uploaded and its size checked.
    FileDone {
        /// Path in the folder.
        rel: &'a str,
        /// Its size.
        size: u64,
    },
    /// Something failed; retrying after `delay`.
    Retry {
        /// What failed.
        error: &'a FtpError,
        /// The failure's number in a row.
        failure: u32,
        /// Failures allowed in a row.
        of: u32,
        /// The wait before reconnecting.
        delay: Duration,
    },
    /// A file continues from `offset` with `APPE`.
    Resume {
        /// Path in the folder.
        rel: &'a str,
        /// Bytes the server already has.
        offset: u64,
    },
    /// A file is sent again from the start.
    Restart {
        /// Path in the folder.
        rel: &'a str,
    },
}

/// What a finished deploy did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeployReport {
    /// The remote folder.
    pub remote_dir: String,
    /// Files uploaded, in upload order (param.json last).
    pub files: Vec<String>,
    /// Bytes sent over data connections.
    pub bytes_sent: u64,
    /// Connections made.
    pub connections: u32,
    /// Failures recovered from.
    pub failures: u32,
    /// Files resumed with `APPE`, and from where.
    pub resumed: Vec<(String, u64)>,
    /// Files sent again from the start after a failure.
    pub restarted: Vec<String>,
}

/// A deploy that gave up.
#[derive(Debug)]
pub struct DeployError {
    /// The file being uploaded, if any.
    pub file: Option<String>,
    /// The last error.
    pub error: FtpError,
    /// Failures in a row when giving up.
    pub failures: u32,
}

impl fmt::Display for DeployError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        write!(f, "{}", self.error)?;
        if self.error.is_transient() {
            write!(f, " (gave up after {} failures in a row)", self.failures)
        } else {
            Ok(())
        }
    }
}

impl std::error::Error for DeployError {}

/// The upload order: files in walk order, `sce_sys/param.json` last.
pub fn upload_order(entries: &[Entry]) -> Vec<&Entry> {
    let mut files: Vec<&Entry> = entries.iter().filter(|e| e.kind == Kind::File).collect();
    if let Some(i) = files.iter().position(|e| e.rel == PARAM_JSON) {
        let p = files.remove(i);
        files.push(p);
    }
    files
}

/// Uploads the checked folder whose entries are `entries` as
/// `<remote_base>/<title_id>/`.
pub fn deploy(
    entries: &[Entry],
    title_id: &str,
    opts: &DeployOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<DeployReport, DeployError> {
    let remote_dir = format!("{}/{title_id}", opts.remote_base.trim_end_matches('/'));
    let dirs: Vec<String> = std::iter::once(remote_dir.clone())
        .chain(
            entries
                .iter()
                .filter(|e| e.kind == Kind::Dir)
                .map(|e| format!("{remote_dir}/{}", e.rel)),
        )
        .collect();
    let files = upload_order(entries);
    let mut state = State {
        opts,
        remote_dir: remote_dir.clone(),
        conn: None,
        dirs_done: false,
        next: 0,
        started: false,
        report: DeployReport {
            remote_dir,
            ..DeployReport::default()
        },
    };
    let mut failures = 0u32;
    loop {
        match state.run(&dirs, &files, on_event) {
            Ok(()) => break,
            Err((error, progressed)) => {
                if let Some(c) = state.conn.take() {
                    drop(c);
                }
                if progressed {
                    failures = 0;
                }
                failures += 1;
                let file = files.get(state.next).map(|e| e.rel.clone());
                if !error.is_transient() || failures > opts.retries {
                    return Err(DeployError {
                        file,
                        error,
                        failures,
                    });
                }
                let delay = opts
                    .retry_delay
                    .saturating_mul(1 << (failures - 1).min(16))
                    .min(Duration::from_secs(30).max(opts.retry_delay));
                on_event(Event::Retry {
                    error: &error,
                    failure: failures,
                    of: opts.retries,
                    delay,
                });
                state.report.failures += 1;
                std::thread::sleep(delay);
            }
        }
    }
    if let Some(c) = state.conn.take() {
        c.quit();
    }
    Ok(state.report)
}

struct State<'o> {
    opts: &'o DeployOptions,
    remote_dir: String,
    conn: Option<FtpConnection>,
    dirs_done: bool,
    /// The next file to upload.
    next: usize,
    /// Whether the server accepted an upload of file `next` (so what it
    /// holds of it is a prefix of it).
    started: bool,
    report: DeployReport,
}

impl State<'_> {
    /// Carries on from where the last attempt stopped. On failure, the
    /// error and whether a file was finished during this attempt.
    fn run(
        &mut self,
        dirs: &[String],
        files: &[&Entry],
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), (FtpError, bool)> {
        let first = self.next;
        let progressed = |s: &Self| s.next > first;
        if self.conn.is_none() {
            self.report.connections += 1;
            on_event(Event::Connecting {
                server: format!("{}:{}", self.opts.host, self.opts.port),
                attempt: self.report.connections,
            });
            let c = FtpConnection::connect(
                &self.opts.host,
                self.opts.port,
                &self.opts.user,
                &self.opts.password,
                self.opts.timeout,
            )
            .map_err(|e| (e, false))?;
            self.conn = Some(c);
        }
        if !self.dirs_done {
            let conn = self.conn.as_mut().expect("connected above");
            for d in dirs {
                for created in conn.make_dirs(d).map_err(|e| (e, false))? {
                    on_event(Event::CreatedDir(&created));
                }
            }
            self.dirs_done = true;
        }
        while self.next < files.len() {
            let entry = files[self.next];
            self.upload(entry, self.next + 1, files.len(), on_event)
                .map_err(|e| {
                    let p = progressed(self);
                    (e, p)
                })?;
            self.report.files.push(entry.rel.clone());
            self.next += 1;
            self.started = false;
        }
        Ok(())
    }

    fn upload(
        &mut self,
        entry: &Entry,
        index: usize,
        count: usize,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), FtpError> {
        let remote = format!("{}/{}", self.remote_dir, entry.rel);
        let rel = entry.rel.as_str();
        let size = entry.size;
        let conn = self.conn.as_mut().expect("connected");
        let mut offset = 0;
        if self.started {
            let have = match self.opts.resume {
                ResumeMode::Append => conn.size(&remote)?,
                ResumeMode::Restart => None,
            };
            match have {
                Some(n) if n == size => {
                    // The drop came after the last byte arrived.
                    on_event(Event::Resume { rel, offset: n });
                    self.report.resumed.push((rel.to_owned(), n));
                    on_event(Event::FileDone { rel, size });
                    return Ok(());
                }
                Some(n) if n > 0 && n < size => {
                    offset = n;
                    on_event(Event::Resume { rel, offset: n });
                    self.report.resumed.push((rel.to_owned(), n));
                }
                _ => {
                    on_event(Event::Restart { rel });
                    self.report.restarted.push(rel.to_owned());
                }
            }
        }
        on_event(Event::FileStart {
            index,
            count,
            rel,
            size,
            offset,
        });
        let mode = if offset > 0 {
            StoreMode::Append
        } else {
            StoreMode::Store
        };
        let result = self.send(&remote, entry, offset, mode, on_event);
        let result = match result {
            Err(e) if mode == StoreMode::Append && e.is_not_implemented() => {
                log::info!("{remote}: the server refuses APPE ({e}); sending the file again");
                on_event(Event::Restart { rel });
                self.report.restarted.push(rel.to_owned());
                on_event(Event::FileStart {
                    index,
                    count,
                    rel,
                    size,
                    offset: 0,
                });
                self.send(&remote, entry, 0, StoreMode::Store, on_event)
            }
            other => other,
        };
        result?;
        let conn = self.conn.as_mut().expect("connected");
        let found = conn.size(&remote)?;
        if found != Some(size) {
            return Err(FtpError::SizeMismatch {
                path: remote,
                expected: size,
                found,
            });
        }
        on_event(Event::FileDone { rel, size });
        Ok(())
    }

    fn send(
        &mut self,
        remote: &str,
        entry: &Entry,
        offset: u64,
        mode: StoreMode,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), FtpError> {
        let io = |source| FtpError::Local {
            path: entry.path.clone(),
            source,
        };
        let mut file = File::open(&entry.path).map_err(io)?;
        file.seek(SeekFrom::Start(offset)).map_err(io)?;
        let conn = self.conn.as_mut().expect("connected");
        let started = &mut self.started;
        let bytes_sent = &mut self.report.bytes_sent;
        let mut last = 0u64;
        conn.store(
            remote,
            mode,
            &mut file,
            entry.size - offset,
            &mut || *started = true,
            &mut |done| {
                *bytes_sent += done - last;
                last = done;
                on_event(Event::Bytes {
                    rel: &entry.rel,
                    done: offset + done,
                    size: entry.size,
                });
            },
        )
    }
}
