//! `lwarx`/`ldarx` reservations and how other threads' stores break them.
//!
//! A reservation covers a 128-byte line ([`crate::RESERVATION_GRANULE`]), as
//! on the Cell. Each thread keeps its own [`Reservation`] (in its PPU context);
//! the memory keeps a table of line entries shared by all threads: an entry
//! holds the number of reservations on lines that hash to it and a version.
//!
//! * `lwarx` adds itself to its line's entry, records the version, then reads
//!   the value.
//! * `stwcx.` succeeds only if the entry's version is still the recorded one
//!   and the word still holds the value `lwarx` read; the store is one
//!   compare-and-swap, and success bumps the version, which breaks every
//!   other thread's reservation on the line.
//! * Every other store (any size, `dcbz`, host writes through the accessors)
//!   does one relaxed load of a global count of live reservations after
//!   writing. Only when some thread holds a reservation does it look the line
//!   up, and it bumps the version when a reservation other than the storing
//!   thread's own covers the line. So a store costs one load and a branch
//!   that is not taken while no one is in a `lwarx`/`stwcx.` pair.
//!
//! The count is read without a fence, so a store racing with the very start
//! of a `lwarx` (the few nanoseconds before the store leaves the store
//! buffer) can go unnoticed; the compare-and-swap still fails if that store
//! changed the reserved word, so only a same-value store or a store to
//! another word of the line in that window is missed. Hash collisions can
//! make `stwcx.` fail spuriously, which the architecture allows.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Entries in the line table (a power of two).
pub const LINE_TABLE_ENTRIES: usize = 4096;
const HOLDER_MASK: u64 = 0xFFFF;
const VERSION_ONE: u64 = 1 << 16;

/// One thread's reservation, as kept in its PPU context.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reservation {
    /// The reserved effective address (meaningful when `valid != 0`).
    pub addr: u32,
    /// Nonzero while a reservation is held.
    pub valid: u32,
    /// The raw (guest byte order) value `lwarx`/`ldarx` read.
    pub value: u64,
    /// The line's version when the reservation was made.
    pub version: u64,
}

#[repr(C, align(128))]
struct Live(AtomicU32);

/// The line table shared by all threads of one guest memory.
pub(crate) struct ReservationTable {
    live: Live,
    lines: Box<[AtomicU64]>,
}

thread_local! {
    /// (table address, line) of this thread's reservation, so its own stores
    /// do not break it (stores by the holder keep the reservation, as on
    /// hardware).
    static OWN_LINE: Cell<(usize, u32)> = const { Cell::new((0, u32::MAX)) };
}

impl ReservationTable {
    pub(crate) fn new() -> Self {
        ReservationTable {
            live: Live(AtomicU32::new(0)),
            lines: (0..LINE_TABLE_ENTRIES).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline(always)]
    fn entry(&self, line: u32) -> &AtomicU64 {
        let h = (line ^ (line >> 12)) as usize & (LINE_TABLE_ENTRIES - 1);
        &self.lines[h]
    }

    /// Number of reservations held right now (all threads).
    pub(crate) fn live(&self) -> u32 {
        self.live.0.load(Ordering::Relaxed)
    }

    /// The store gate: one relaxed load, taken only while reservations live.
    #[inline(always)]
    pub(crate) fn notice_store(&self, addr: u32, len: u32) {
        if self.live.0.load(Ordering::Relaxed) != 0 {
            self.notice_store_slow(addr, len);
        }
    }

    #[cold]
    #[inline(never)]
    fn notice_store_slow(&self, addr: u32, len: u32) {
        let first = addr >> 7;
        let last = addr.wrapping_add(len.max(1) - 1) >> 7;
        let own = OWN_LINE.with(|o| o.get());
        let me = self as *const Self as usize;
        let mut line = first;
        loop {
            let e = self.entry(line);
            let v = e.load(Ordering::Acquire);
            let holders = v & HOLDER_MASK;
            let only_mine = holders == 1 && own == (me, line);
            if holders != 0 && !only_mine {
                e.fetch_add(VERSION_ONE, Ordering::AcqRel);
            }
            if line == last {
                break;
            }
            line = line.wrapping_add(1);
        }
    }

    /// Drops `res` if held.
    pub(crate) fn release(&self, res: &mut Reservation) {
        if res.valid != 0 {
            self.entry(res.addr >> 7).fetch_sub(1, Ordering::AcqRel);
            self.live.0.fetch_sub(1, Ordering::AcqRel);
            res.valid = 0;
            let me = self as *const Self as usize;
            OWN_LINE.with(|o| {
                if o.get().0 == me {
                    o.set((0, u32::MAX));
                }
            });
        }
    }

    /// Establishes a reservation on `addr`'s line; `read` then reads the value
    /// (after the registration, so a store after it is noticed).
    pub(crate) fn acquire(&self, res: &mut Reservation, addr: u32, read: impl FnOnce() -> u64) {
        self.release(res);
        let line = addr >> 7;
        let v = self.entry(line).fetch_add(1, Ordering::SeqCst) + 1;
        self.live.0.fetch_add(1, Ordering::SeqCst);
        OWN_LINE.with(|o| o.set((self as *const Self as usize, line)));
        res.addr = addr;
        res.valid = 1;
        res.version = v >> 16;
        res.value = read();
    }

    /// Completes a store-conditional: `cas(old, new)` performs the
    /// compare-and-swap on guest memory. Returns whether it stored.
    pub(crate) fn store_conditional(
        &self,
        res: &mut Reservation,
        addr: u32,
        cas: impl FnOnce(u64) -> bool,
    ) -> bool {
        if res.valid == 0 {
            return false;
        }
        let ok = res.addr == addr
            && (self.entry(addr >> 7).load(Ordering::Acquire) >> 16) == res.version
            && cas(res.value);
        if ok {
            // A successful store breaks every other reservation on the line.
            self.entry(addr >> 7)
                .fetch_add(VERSION_ONE, Ordering::AcqRel);
        }
        self.release(res);
        ok
    }
}
