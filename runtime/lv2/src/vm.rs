//! Guest memory as system calls see it: every access is checked, and a
//! bad guest pointer (null, unmapped, read-only, crossing the end of the
//! address space) is `CELL_EFAULT`, never a host fault.

use guest_mem::{Access, GuestMemory};

use crate::error::CellError;

/// Checked, big-endian access to guest memory for the kernel and the HLE
/// modules.
#[derive(Clone, Copy)]
pub struct Vm<'m>(pub &'m GuestMemory);

macro_rules! rw {
    ($($t:ty, $read:ident, $write:ident, $try_read:ident, $try_write:ident;)*) => {$(
        #[doc = concat!("Reads a `", stringify!($t), "` at `addr`; null or unmapped is `CELL_EFAULT`.")]
        pub fn $read(&self, addr: u32) -> Result<$t, CellError> {
            if addr == 0 {
                return Err(CellError::EFAULT);
            }
            self.0.$try_read(addr).map_err(|_| CellError::EFAULT)
        }
        #[doc = concat!("Writes a `", stringify!($t), "` at `addr`; null, unmapped or read-only is `CELL_EFAULT`.")]
        pub fn $write(&self, addr: u32, v: $t) -> Result<(), CellError> {
            if addr == 0 {
                return Err(CellError::EFAULT);
            }
            self.0.$try_write(addr, v).map_err(|_| CellError::EFAULT)
        }
    )*};
}

impl<'m> Vm<'m> {
    rw! {
        u8, read_u8, write_u8, try_read_u8, try_write_u8;
        u16, read_u16, write_u16, try_read_u16, try_write_u16;
        u32, read_u32, write_u32, try_read_u32, try_write_u32;
        u64, read_u64, write_u64, try_read_u64, try_write_u64;
    }

    /// Reads `len` bytes at `addr`.
    pub fn read_bytes(&self, addr: u32, len: u32) -> Result<Vec<u8>, CellError> {
        let mut v = vec![0; len as usize];
        if len > 0 {
            if addr == 0 {
                return Err(CellError::EFAULT);
            }
            self.0
                .read_bytes(addr, &mut v)
                .map_err(|_| CellError::EFAULT)?;
        }
        Ok(v)
    }

    /// Writes `data` at `addr`.
    pub fn write_bytes(&self, addr: u32, data: &[u8]) -> Result<(), CellError> {
        if data.is_empty() {
            return Ok(());
        }
        if addr == 0 {
            return Err(CellError::EFAULT);
        }
        self.0
            .write_bytes(addr, data)
            .map_err(|_| CellError::EFAULT)
    }

    /// Checks that `len` bytes at `addr` could be written (before a call
    /// blocks, so a bad pointer fails early).
    pub fn check_writable(&self, addr: u32, len: u32) -> Result<(), CellError> {
        if addr == 0 || !self.0.is_accessible(addr, len.max(1), Access::Write) {
            return Err(CellError::EFAULT);
        }
        Ok(())
    }

    /// Checks that `len` bytes at `addr` could be read.
    pub fn check_readable(&self, addr: u32, len: u32) -> Result<(), CellError> {
        if addr == 0 || !self.0.is_accessible(addr, len.max(1), Access::Read) {
            return Err(CellError::EFAULT);
        }
        Ok(())
    }

    /// Reads a NUL-terminated string of at most `max` bytes (without the
    /// NUL). Unterminated within `max`: `too_long`; a fault: `CELL_EFAULT`.
    pub fn read_cstr(&self, addr: u32, max: u32, too_long: CellError) -> Result<String, CellError> {
        if addr == 0 {
            return Err(CellError::EFAULT);
        }
        let mut out = Vec::new();
        for i in 0..=max {
            let b = self
                .0
                .try_read_u8(addr.wrapping_add(i))
                .map_err(|_| CellError::EFAULT)?;
            if b == 0 {
                return Ok(String::from_utf8_lossy(&out).into_owned());
            }
            out.push(b);
        }
        Err(too_long)
    }

    /// Reads the 8-byte PS3 descriptor at `addr`: (code address, TOC).
    pub fn read_opd(&self, addr: u32) -> Result<(u32, u32), CellError> {
        Ok((self.read_u32(addr)?, self.read_u32(addr.wrapping_add(4))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use guest_mem::Prot;

    #[test]
    fn bad_pointers_are_efault() {
        let mem = GuestMemory::with_mode(guest_mem::CheckMode::Checked).expect("memory");
        mem.map(0x10000, 0x10000, Prot::READ).expect("map");
        mem.map(0x20000, 0x10000, Prot::RW).expect("map");
        let vm = Vm(&mem);
        assert_eq!(vm.read_u32(0), Err(CellError::EFAULT));
        assert_eq!(vm.read_u32(0x9000_0000), Err(CellError::EFAULT));
        assert_eq!(
            vm.write_u32(0x10000, 1),
            Err(CellError::EFAULT),
            "read-only page"
        );
        assert_eq!(
            vm.write_u32(0x2FFFE, 1),
            Err(CellError::EFAULT),
            "runs off the mapping"
        );
        vm.write_u32(0x20000, 0xDEAD_BEEF).expect("write");
        assert_eq!(vm.read_u32(0x20000), Ok(0xDEAD_BEEF));
        assert_eq!(vm.read_u8(0x20000), Ok(0xDE), "big-endian");
        vm.write_bytes(0x20010, b"abc\0").expect("write");
        assert_eq!(
            vm.read_cstr(0x20010, 16, CellError::ENAMETOOLONG)
                .as_deref(),
            Ok("abc")
        );
        assert_eq!(
            vm.read_cstr(0x20010, 2, CellError::ENAMETOOLONG),
            Err(CellError::ENAMETOOLONG)
        );
        // A string that runs off the end of the mapping.
        vm.write_u8(0x2FFFF, b'x').expect("write");
        assert_eq!(
            vm.read_cstr(0x2FFFF, 16, CellError::ENAMETOOLONG),
            Err(CellError::EFAULT)
        );
    }
}
