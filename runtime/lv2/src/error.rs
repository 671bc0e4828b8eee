//! LV2's error codes (`CELL_E*`, 0x8001xxxx) and how a system call or an
//! HLE function ends.

use std::fmt;

/// A PS3 error code as LV2 and the system modules return it in r3.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellError(pub u32);

macro_rules! codes {
    ($($name:ident = $v:literal, $doc:literal;)*) => {
        impl CellError {
            $(#[doc = $doc] pub const $name: CellError = CellError($v);)*

            /// The code's name (`CELL_EFAULT`), when it is one of LV2's.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($v => Some(concat!("CELL_", stringify!($name))),)*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    EAGAIN = 0x8001_0001, "The resource is temporarily unavailable.";
    EINVAL = 0x8001_0002, "An invalid argument value.";
    ENOSYS = 0x8001_0003, "Not implemented.";
    ENOMEM = 0x8001_0004, "Memory allocation failed.";
    ESRCH = 0x8001_0005, "No object with that identifier.";
    ENOENT = 0x8001_0006, "No such file.";
    ENOEXEC = 0x8001_0007, "Unrecognised file format.";
    EDEADLK = 0x8001_0008, "Deadlock avoided.";
    EPERM = 0x8001_0009, "Operation not permitted.";
    EBUSY = 0x8001_000A, "Busy.";
    ETIMEDOUT = 0x8001_000B, "Timed out.";
    EABORT = 0x8001_000C, "Aborted.";
    EFAULT = 0x8001_000D, "Invalid memory access.";
    ESTAT = 0x8001_000F, "The target thread is in the wrong state.";
    EALIGN = 0x8001_0010, "Bad alignment.";
    EKRESOURCE = 0x8001_0011, "Out of kernel resources.";
    EISDIR = 0x8001_0012, "Is a directory.";
    ECANCELED = 0x8001_0013, "Canceled.";
    EEXIST = 0x8001_0014, "Already exists.";
    EISCONN = 0x8001_0015, "Already connected.";
    ENOTCONN = 0x8001_0016, "Not connected.";
    EFBIG = 0x8001_0020, "File too large.";
    ENOSPC = 0x8001_0023, "No space left.";
    EROFS = 0x8001_0026, "Read-only file system.";
    ESPIPE = 0x8001_0027, "Illegal seek.";
    EACCES = 0x8001_0029, "Permission denied.";
    EBADF = 0x8001_002A, "Bad file descriptor.";
    EIO = 0x8001_002B, "I/O error.";
    EMFILE = 0x8001_002C, "Too many open files.";
    ENOTDIR = 0x8001_002E, "Not a directory.";
    ENAMETOOLONG = 0x8001_0034, "Name too long.";
    ENOTEMPTY = 0x8001_0036, "Directory not empty.";
    ENOTSUP = 0x8001_0037, "Not supported.";
}

impl CellError {
    /// The value LV2 puts in r3: the 32-bit code sign-extended.
    pub fn to_r3(self) -> u64 {
        i64::from(self.0 as i32) as u64
    }
}

impl fmt::Debug for CellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({:#010x})", self.0),
            None => write!(f, "{:#010x}", self.0),
        }
    }
}

impl fmt::Display for CellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for CellError {}

/// A guest thread or the whole process ending from inside a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The calling PPU thread exits with this value (`sys_ppu_thread_exit`).
    Thread(u64),
    /// The process exits with this status (`sys_process_exit`, a fault).
    Process(i32),
}

/// Why a system call or an HLE function did not return a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ret {
    /// It failed: the code goes to r3.
    Err(CellError),
    /// The thread or process ends.
    Exit(Exit),
}

impl From<CellError> for Ret {
    fn from(e: CellError) -> Ret {
        Ret::Err(e)
    }
}

impl From<Exit> for Ret {
    fn from(e: Exit) -> Ret {
        Ret::Exit(e)
    }
}

/// The result of a system call or HLE function: `Ok(v)` puts `v` in r3.
pub type SysResult = Result<u64, Ret>;

/// `Ok(0)`: CELL_OK.
pub const CELL_OK: SysResult = Ok(0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_sign_extend_into_r3() {
        assert_eq!(CellError::EFAULT.to_r3(), 0xFFFF_FFFF_8001_000D);
        assert_eq!(CellError::EFAULT.name(), Some("CELL_EFAULT"));
        assert_eq!(format!("{}", CellError(0x8002_b101)), "0x8002b101");
    }
}
