//! The one platform layer of the cellport runtime.
//!
//! Everything the runtime (LV2, the HLE modules, the RSX FIFO processor)
//! needs from the operating system goes through [`Platform`]: reserving and
//! committing guest memory (guest-mem's own seam,
//! [`guest_mem::platform::VirtualMemory`], which this trait hands out),
//! threads, time, sleeping, files, the pad and console output.
//! [`host::HostPlatform`] implements it with the Rust standard library and
//! `libc` on a desktop; the console implementation lives in `ps5/`.
//!
//! The runtime uses `std::sync` for its own locks and condition variables:
//! those are part of the standard library the console build also carries,
//! not calls the runtime makes to the operating system directly.

pub mod host;
mod pad;

pub use pad::{PadButtons, PadState, SharedPads};

use std::path::Path;
use std::time::Duration;

/// An error from the platform (a failed system call or an unsupported
/// operation), with what was attempted.
#[derive(Debug, thiserror::Error)]
pub enum PlatformError {
    /// A file-system call failed.
    #[error("{op} {path}: {source}")]
    Io {
        /// The operation (`open`, `mkdir`, ...).
        op: &'static str,
        /// The host path.
        path: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// A thread could not be started.
    #[error("starting thread {name}: {source}")]
    Thread {
        /// The thread's name.
        name: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

impl PlatformError {
    /// The underlying I/O error kind, for mapping to guest error codes.
    pub fn io_kind(&self) -> std::io::ErrorKind {
        match self {
            PlatformError::Io { source, .. } | PlatformError::Thread { source, .. } => {
                source.kind()
            }
        }
    }

    /// The raw OS error number, when there is one.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            PlatformError::Io { source, .. } | PlatformError::Thread { source, .. } => {
                source.raw_os_error()
            }
        }
    }
}

/// How to open a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenMode {
    /// Reading allowed.
    pub read: bool,
    /// Writing allowed.
    pub write: bool,
    /// Create when missing.
    pub create: bool,
    /// Fail when it exists (with `create`).
    pub exclusive: bool,
    /// Truncate to 0 bytes.
    pub truncate: bool,
    /// Every write goes to the end.
    pub append: bool,
}

/// Where a seek is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekFrom {
    /// From the start.
    Start(u64),
    /// From the current position.
    Current(i64),
    /// From the end.
    End(i64),
}

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else (a link, a device).
    Other,
}

/// A file's attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// What it is.
    pub kind: FileKind,
    /// Its size in bytes.
    pub size: u64,
    /// Last access, seconds since 1970.
    pub atime: i64,
    /// Last modification, seconds since 1970.
    pub mtime: i64,
    /// Last status change, seconds since 1970.
    pub ctime: i64,
    /// Permission bits (the low 9 of a Unix mode).
    pub perm: u32,
}

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Its name (no path).
    pub name: String,
    /// What it is.
    pub kind: FileKind,
}

/// An open file.
pub trait File: Send {
    /// Reads at the current position; returns the bytes read (0 at the end).
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, PlatformError>;
    /// Writes at the current position (or the end, in append mode).
    fn write(&mut self, buf: &[u8]) -> Result<usize, PlatformError>;
    /// Moves the position; returns the new one.
    fn seek(&mut self, pos: SeekFrom) -> Result<u64, PlatformError>;
    /// Sets the length.
    fn set_len(&mut self, len: u64) -> Result<(), PlatformError>;
    /// Writes buffered data through to storage.
    fn sync(&mut self) -> Result<(), PlatformError>;
    /// The file's attributes.
    fn stat(&mut self) -> Result<FileStat, PlatformError>;
}

/// The platform's services. One value is shared by every runtime thread.
pub trait Platform: Send + Sync {
    /// A short name for logs (`host`, `ps5`).
    fn name(&self) -> &'static str;

    /// The virtual-memory calls guest memory makes (reserve, commit,
    /// protect, release, the fault handler): pass it to
    /// [`guest_mem::GuestMemory::with_platform`].
    fn virtual_memory(&self) -> Box<dyn guest_mem::platform::VirtualMemory>;

    /// Starts a thread named `name` with `stack_size` bytes of host stack.
    fn spawn(
        &self,
        name: &str,
        stack_size: usize,
        body: Box<dyn FnOnce() + Send>,
    ) -> Result<(), PlatformError>;

    /// Nanoseconds of a monotonic clock (its zero is unspecified).
    fn monotonic_ns(&self) -> u64;
    /// Wall-clock time: seconds and nanoseconds since 1970 (UTC).
    fn wall_clock(&self) -> (i64, u32);
    /// The local time zone's offset from UTC in minutes, and whether
    /// daylight saving time is in effect.
    fn timezone(&self) -> (i32, bool);
    /// Sleeps at least `d` (the system's timer slack may add to it).
    fn sleep(&self, d: Duration);
    /// Gives the processor to another thread.
    fn yield_now(&self);
    /// A hint inside busy-wait loops (PAUSE on x86).
    fn spin_hint(&self) {
        std::hint::spin_loop();
    }

    /// Opens a host file.
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn File>, PlatformError>;
    /// A path's attributes (links are followed).
    fn stat(&self, path: &Path) -> Result<FileStat, PlatformError>;
    /// Creates a directory (its parent must exist).
    fn mkdir(&self, path: &Path) -> Result<(), PlatformError>;
    /// Creates a directory and its missing parents.
    fn mkdir_all(&self, path: &Path) -> Result<(), PlatformError>;
    /// Removes an empty directory.
    fn rmdir(&self, path: &Path) -> Result<(), PlatformError>;
    /// Removes a file.
    fn unlink(&self, path: &Path) -> Result<(), PlatformError>;
    /// Renames a file or directory.
    fn rename(&self, from: &Path, to: &Path) -> Result<(), PlatformError>;
    /// Lists a directory (without `.` and `..`), sorted by name.
    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, PlatformError>;

    /// The pads a person holds (a window's keyboard, a game controller).
    /// The HLE pad module reads them; headless runs use a scripted pad.
    fn pads(&self) -> &SharedPads;

    /// Writes to a console channel (LV2 TTY channel `channel`; 0 is the
    /// process's standard output).
    fn console_write(&self, channel: u32, bytes: &[u8]);
    /// Flushes console output (before the process exits).
    fn console_flush(&self);
}
