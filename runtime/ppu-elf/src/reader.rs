//! Bounds-checked big-endian reads from the file.

use crate::error::{ElfError, Result};

/// A view of the whole file; every read names its offset on failure.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub(crate) data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn bytes(&self, off: u64, len: u64, what: &str) -> Result<&'a [u8]> {
        let end = off.checked_add(len);
        match end {
            Some(end) if end <= self.data.len() as u64 => {
                Ok(&self.data[off as usize..end as usize])
            }
            _ => Err(ElfError::new(
                off,
                format!(
                    "{what} ({len:#x} bytes) runs past the end of the file ({:#x} bytes)",
                    self.data.len()
                ),
            )),
        }
    }

    pub(crate) fn u8(&self, off: u64, what: &str) -> Result<u8> {
        Ok(self.bytes(off, 1, what)?[0])
    }

    pub(crate) fn u16(&self, off: u64, what: &str) -> Result<u16> {
        let b = self.bytes(off, 2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&self, off: u64, what: &str) -> Result<u32> {
        let b = self.bytes(off, 4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&self, off: u64, what: &str) -> Result<u64> {
        let b = self.bytes(off, 8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    /// A NUL-terminated string starting at `off`, at most `max` bytes long.
    pub(crate) fn cstr(&self, off: u64, max: u64, what: &str) -> Result<&'a str> {
        let avail = (self.data.len() as u64).saturating_sub(off).min(max);
        let b = self.bytes(off, avail, what)?;
        let n = b.iter().position(|&c| c == 0).ok_or_else(|| {
            ElfError::new(
                off,
                format!("{what} is not NUL-terminated within {avail:#x} bytes"),
            )
        })?;
        std::str::from_utf8(&b[..n]).map_err(|_| ElfError::new(off, format!("{what} is not UTF-8")))
    }
}
