//! PS3 guest memory for the cellport runtime.
//!
//! One 4 GiB host reservation holds the guest's 32-bit address space (plus a
//! guard so a 16-byte access at the very top cannot reach past it). Pages are
//! committed when mapped, in 64 KiB units (the PS3's page size); page 0 is
//! never mapped. Accessors are big-endian and `#[inline(always)]`; a bad
//! access becomes a [`GuestFault`] naming the guest address and guest PC, not
//! a host crash (see [`fault`] and [`CheckMode`]). `lwarx`/`stwcx.`
//! reservations break when another thread stores to the reserved 128-byte
//! line (see [`reservation`]). The system calls behind all this go through
//! [`platform::VirtualMemory`], so the PS5 build supplies its own.
//!
//! See README.md for the API in use and the measurements behind the default
//! [`CheckMode`].

pub mod fault;
mod memory;
pub mod platform;
pub mod reservation;

pub use fault::{Access, FaultKind, GuestFault, catch_fault};
pub use memory::{CheckMode, GuestMemory, MemError};
pub use reservation::Reservation;

/// Size of the guest address space.
pub const ADDRESS_SPACE: u64 = 1 << 32;
/// Bytes reserved past the end of the address space, so accesses up to 16
/// bytes at the top addresses fault cleanly (one page).
pub const GUARD_SIZE: usize = PAGE_SIZE as usize;
/// log2 of the guest page size.
pub const PAGE_SHIFT: u32 = 16;
/// The guest page size: mapping granularity (64 KiB, the PS3's small page).
pub const PAGE_SIZE: u32 = 1 << PAGE_SHIFT;
/// Number of guest pages in the address space.
pub const PAGE_COUNT: usize = (ADDRESS_SPACE >> PAGE_SHIFT) as usize;
/// The Cell's cache line: `dcbz` zeroes this many bytes, and a reservation
/// covers one line.
pub const CACHE_LINE: u32 = 128;
/// The reservation granule (one cache line on the Cell).
pub const RESERVATION_GRANULE: u32 = CACHE_LINE;

bitflags::bitflags! {
    /// Page protection.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Prot: u8 {
        /// Data loads allowed.
        const READ = 1;
        /// Data stores allowed.
        const WRITE = 2;
        /// Instruction fetch allowed (checked by the interpreter's fetch).
        const EXEC = 4;
        /// Internal: the page is mapped (set by `map`, never pass it).
        const MAPPED = 0x80;
    }
}

impl Prot {
    /// Read and write.
    pub const RW: Prot = Prot::READ.union(Prot::WRITE);
    /// Read and execute (code).
    pub const RX: Prot = Prot::READ.union(Prot::EXEC);
    /// Read, write and execute.
    pub const RWX: Prot = Prot::RW.union(Prot::EXEC);
}
