//! The host implementation of [`VirtualMemory`]: `libc` `mmap`, `mprotect`,
//! `madvise`, `munmap`, and a `SIGSEGV`/`SIGBUS` handler for trap mode.

use super::{VirtualMemory, VmError};
use crate::Prot;

/// Virtual memory through `libc` on a Unix host.
#[derive(Debug, Default, Clone, Copy)]
pub struct HostVm;

/// Linux would otherwise count the 4 GiB reservation against overcommit;
/// FreeBSD has no such flag (and does not need it).
#[cfg(target_os = "linux")]
const NORESERVE: libc::c_int = libc::MAP_NORESERVE;
#[cfg(not(target_os = "linux"))]
const NORESERVE: libc::c_int = 0;

fn errno_text() -> String {
    std::io::Error::last_os_error().to_string()
}

fn prot_bits(prot: Prot) -> libc::c_int {
    let mut p = libc::PROT_NONE;
    if prot.contains(Prot::READ) || prot.contains(Prot::EXEC) {
        p |= libc::PROT_READ;
    }
    if prot.contains(Prot::WRITE) {
        p |= libc::PROT_READ | libc::PROT_WRITE;
    }
    p
}

fn fail(call: &'static str, addr: *mut u8, len: usize) -> VmError {
    VmError {
        call,
        addr: addr as usize,
        len,
        reason: errno_text(),
    }
}

// SAFETY: mmap/mprotect/munmap behave as the trait requires.
unsafe impl VirtualMemory for HostVm {
    fn reserve(&self, len: usize) -> Result<*mut u8, VmError> {
        // SAFETY: an anonymous private mapping at a kernel-chosen address
        // touches no existing memory.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(fail("reserve", std::ptr::null_mut(), len));
        }
        Ok(p.cast())
    }

    fn commit(&self, addr: *mut u8, len: usize, prot: Prot) -> Result<(), VmError> {
        // SAFETY: the caller passes a range inside its own reservation.
        let r = unsafe { libc::mprotect(addr.cast(), len, prot_bits(prot)) };
        if r != 0 {
            return Err(fail("commit", addr, len));
        }
        Ok(())
    }

    fn protect(&self, addr: *mut u8, len: usize, prot: Prot) -> Result<(), VmError> {
        // SAFETY: as for commit.
        let r = unsafe { libc::mprotect(addr.cast(), len, prot_bits(prot)) };
        if r != 0 {
            return Err(fail("protect", addr, len));
        }
        Ok(())
    }

    fn decommit(&self, addr: *mut u8, len: usize) -> Result<(), VmError> {
        // SAFETY: the range is inside the caller's reservation; MADV_DONTNEED
        // on a private anonymous mapping drops the pages (zero on next touch).
        unsafe {
            if libc::madvise(addr.cast(), len, libc::MADV_DONTNEED) != 0 {
                return Err(fail("decommit", addr, len));
            }
            if libc::mprotect(addr.cast(), len, libc::PROT_NONE) != 0 {
                return Err(fail("decommit", addr, len));
            }
        }
        Ok(())
    }

    fn release(&self, addr: *mut u8, len: usize) -> Result<(), VmError> {
        // SAFETY: the whole reservation made by `reserve`, no longer used.
        let r = unsafe { libc::munmap(addr.cast(), len) };
        if r != 0 {
            return Err(fail("release", addr, len));
        }
        Ok(())
    }

    fn install_fault_handler(&self) -> bool {
        crate::fault::trap::install()
    }
}
