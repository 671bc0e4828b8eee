//! The platform seam: the few virtual-memory calls guest memory needs.
//!
//! Guest memory reserves one address range, commits and protects pages in it,
//! and gives it back. Those calls differ between the host (Linux, through
//! `libc` `mmap`/`mprotect`/`munmap`) and the PS5 (its own system calls), so
//! they go through [`VirtualMemory`]. [`HostVm`] is the host implementation;
//! the PS5 build supplies its own and passes it to
//! [`crate::GuestMemory::with_platform`].

#[cfg(unix)]
mod host;
#[cfg(unix)]
pub use host::HostVm;

use crate::Prot;

/// An error from the platform's virtual-memory calls.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call} failed for {len:#x} bytes at host {addr:#x}: {reason}")]
pub struct VmError {
    /// The call that failed (`reserve`, `commit`, ...).
    pub call: &'static str,
    /// The host address it was given (0 for `reserve`).
    pub addr: usize,
    /// The length it was given.
    pub len: usize,
    /// The system's reason (errno text on the host).
    pub reason: String,
}

/// The virtual-memory calls guest memory makes. All addresses and lengths are
/// multiples of [`crate::PAGE_SIZE`] except the reservation's total length.
///
/// # Safety
///
/// Implementations must behave like `mmap`: `reserve` returns a range no one
/// else uses until `release`; `commit` makes the range readable and writable
/// as `prot` says and zero-filled on its first commit after a `decommit`.
pub unsafe trait VirtualMemory: Send + Sync {
    /// Reserves `len` bytes of address space, inaccessible, and returns its start.
    fn reserve(&self, len: usize) -> Result<*mut u8, VmError>;
    /// Makes `len` bytes at `addr` (inside a reservation) accessible with `prot`,
    /// zero-filled where they were not committed before.
    fn commit(&self, addr: *mut u8, len: usize, prot: Prot) -> Result<(), VmError>;
    /// Changes the protection of committed pages.
    fn protect(&self, addr: *mut u8, len: usize, prot: Prot) -> Result<(), VmError>;
    /// Returns committed pages to the system; they become inaccessible and read
    /// as zero when committed again.
    fn decommit(&self, addr: *mut u8, len: usize) -> Result<(), VmError>;
    /// Releases a whole reservation made by `reserve`.
    fn release(&self, addr: *mut u8, len: usize) -> Result<(), VmError>;
    /// Installs the handler that turns a hardware fault inside a reservation
    /// into a guest-fault report (trap mode, see [`crate::CheckMode::Trap`]).
    /// Returns false when the platform cannot (trap mode is then refused).
    fn install_fault_handler(&self) -> bool;
}
