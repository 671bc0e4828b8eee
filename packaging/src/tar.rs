//! A reproducible POSIX ustar writer.
//!
//! Every header has fixed metadata: modification time 0, owner and group
//! 0 with empty names, mode 0755 for directories and executables and 0644
//! for other files, no extended headers. Entries are written in the order
//! given (the packager sorts them). The archive ends with two zero blocks
//! and is padded to a multiple of 10240 bytes, as GNU tar and bsdtar write
//! and expect.

use std::io::{self, Read, Write};

const BLOCK: usize = 512;
const RECORD: u64 = 10240;

/// Mode of directories and executable files.
pub const MODE_EXEC: u32 = 0o755;
/// Mode of other files.
pub const MODE_FILE: u32 = 0o644;

/// Writes a tar archive entry by entry.
pub struct TarWriter<W: Write> {
    out: W,
    written: u64,
}

impl<W: Write> TarWriter<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> Self {
        TarWriter { out, written: 0 }
    }

    /// Adds a directory (`path` without a trailing `/`).
    pub fn add_dir(&mut self, path: &str) -> io::Result<()> {
        let header = header(&format!("{path}/"), MODE_EXEC, 0, b'5')?;
        self.write(&header)
    }

    /// Adds a file of `size` bytes read from `data`; `data` must yield
    /// exactly `size` bytes.
    pub fn add_file(
        &mut self,
        path: &str,
        mode: u32,
        size: u64,
        data: &mut dyn Read,
    ) -> io::Result<()> {
        let header = header(path, mode, size, b'0')?;
        self.write(&header)?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut left = size;
        while left > 0 {
            let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = data.read(&mut buf[..want])?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{path}: the file ended {left} bytes early (changed while archiving?)"),
                ));
            }
            self.write(&buf[..n])?;
            left -= n as u64;
        }
        let mut probe = [0u8; 1];
        if data.read(&mut probe)? != 0 {
            return Err(io::Error::other(format!(
                "{path}: the file is longer than {size} bytes (changed while archiving?)"
            )));
        }
        let pad = (BLOCK as u64 - size % BLOCK as u64) % BLOCK as u64;
        self.write(&vec![0u8; pad as usize])
    }

    /// Writes the end of the archive and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.write(&[0u8; 2 * BLOCK])?;
        let pad = (RECORD - self.written % RECORD) % RECORD;
        self.write(&vec![0u8; pad as usize])?;
        Ok(self.out)
    }

    fn write(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.written += b.len() as u64;
        Ok(())
    }
}

/// Writes `value` as zero-padded octal in `field`, NUL-terminated.
fn octal(field: &mut [u8], value: u64) -> io::Result<()> {
    let digits = field.len() - 1;
    let s = format!("{value:0digits$o}");
    if s.len() > digits {
        return Err(io::Error::other(format!(
            "{value} does not fit a tar header field"
        )));
    }
    field[..digits].copy_from_slice(s.as_bytes());
    field[digits] = 0;
    Ok(())
}

/// A ustar header block.
fn header(path: &str, mode: u32, size: u64, typeflag: u8) -> io::Result<[u8; BLOCK]> {
    let mut h = [0u8; BLOCK];
    let (prefix, name) = split_name(path)?;
    h[..name.len()].copy_from_slice(name.as_bytes());
    octal(&mut h[100..108], u64::from(mode))?;
    octal(&mut h[108..116], 0)?; // uid
    octal(&mut h[116..124], 0)?; // gid
    octal(&mut h[124..136], size)?;
    octal(&mut h[136..148], 0)?; // mtime
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    octal(&mut h[329..337], 0)?; // devmajor
    octal(&mut h[337..345], 0)?; // devminor
    h[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
    // The checksum is computed with its own field as spaces.
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    let s = format!("{sum:06o}\0 ");
    h[148..156].copy_from_slice(s.as_bytes());
    Ok(h)
}

/// Splits a path into ustar's prefix (155 bytes) and name (100 bytes).
fn split_name(path: &str) -> io::Result<(&str, &str)> {
    if path.len() <= 100 {
        return Ok(("", path));
    }
    // Split at a '/' so that the name part fits (a directory's trailing
    // '/' stays with the name).
    let body = path.strip_suffix('/').unwrap_or(path);
    for (i, _) in body.match_indices('/').rev() {
        let (prefix, name) = (&path[..i], &path[i + 1..]);
        if name.len() <= 100 && prefix.len() <= 155 {
            return Ok((prefix, name));
        }
    }
    Err(io::Error::other(format!(
        "{path}: the path is too long for a ustar archive"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields() {
        let h = header("PPSA00001/eboot.elf", MODE_EXEC, 1234, b'0').unwrap();
        assert_eq!(&h[..19], b"PPSA00001/eboot.elf");
        assert_eq!(&h[100..108], b"0000755\0");
        assert_eq!(&h[124..136], b"00000002322\0");
        assert_eq!(&h[136..148], b"00000000000\0");
        assert_eq!(&h[257..265], b"ustar\x0000");
        // The checksum is the byte sum with the checksum field as spaces.
        let mut copy = h;
        copy[148..156].copy_from_slice(b"        ");
        let sum: u32 = copy.iter().map(|&b| u32::from(b)).sum();
        assert_eq!(&h[148..156], format!("{sum:06o}\0 ").as_bytes());
    }

    #[test]
    fn long_names_split() {
        let long = format!("{}/{}", "d".repeat(120), "f".repeat(90));
        let (p, n) = split_name(&long).unwrap();
        assert_eq!((p.len(), n.len()), (120, 90));
        assert!(split_name(&"x".repeat(300)).is_err());
    }

    #[test]
    fn archive_is_padded() {
        let mut w = TarWriter::new(Vec::new());
        w.add_dir("a").unwrap();
        w.add_file("a/b", MODE_FILE, 3, &mut &b"abc"[..]).unwrap();
        let out = w.finish().unwrap();
        assert_eq!(out.len(), 10240);
        assert_eq!(&out[1024..1027], b"abc");
        let mut w = TarWriter::new(Vec::new());
        let short = w.add_file("a", MODE_FILE, 4, &mut &b"abc"[..]);
        assert!(short.is_err());
    }
}
