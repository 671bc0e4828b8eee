//! [`GuestMemory`]: the reservation, the page table, mapping calls and the
//! accessors.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use crate::fault::{self, Access, FaultKind, GuestFault};
use crate::platform::{VirtualMemory, VmError};
use crate::reservation::{Reservation, ReservationTable};
use crate::{ADDRESS_SPACE, GUARD_SIZE, PAGE_COUNT, PAGE_SHIFT, PAGE_SIZE, Prot};

/// How accessors detect an access to unmapped or protected memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckMode {
    /// Accessors look the page up in the page table (one inline load and
    /// two compares) and raise a recoverable [`GuestFault`]. The reference
    /// behaviour.
    Checked,
    /// Accessors go straight to the host address; the host MMU catches a bad
    /// access and the `SIGSEGV` handler reports it and ends the process.
    Trap,
    /// Both: the page-table check runs and the host mapping is protected too,
    /// so the page table and the host protections cannot disagree silently.
    Both,
}

impl CheckMode {
    /// The mode named by `CELLPORT_MEM_CHECK` (`checked`, `trap`, `both`),
    /// or [`CheckMode::DEFAULT`].
    pub fn from_env() -> Result<CheckMode, MemError> {
        match std::env::var("CELLPORT_MEM_CHECK") {
            Err(_) => Ok(CheckMode::DEFAULT),
            Ok(v) => match v.as_str() {
                "checked" | "0" => Ok(CheckMode::Checked),
                "trap" | "1" => Ok(CheckMode::Trap),
                "both" | "2" => Ok(CheckMode::Both),
                _ => Err(MemError::BadEnv(v)),
            },
        }
    }

    /// The default mode (see the README for the measurement behind it).
    pub const DEFAULT: CheckMode = CheckMode::Trap;
}

/// An error from a mapping call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemError {
    /// The platform refused a call.
    #[error(transparent)]
    Vm(#[from] VmError),
    /// The range is empty, wraps past 4 GiB, or touches page 0.
    #[error("guest range {addr:#010x}+{len:#x} is invalid: {why}")]
    BadRange {
        /// Start of the range.
        addr: u32,
        /// Its length.
        len: u64,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A page in the range is not mapped (for `protect`, `host_write`, ...).
    #[error("guest page {addr:#010x} is not mapped")]
    NotMapped {
        /// The first unmapped page.
        addr: u32,
    },
    /// `CELLPORT_MEM_CHECK` holds something else than checked/trap/both.
    #[error("CELLPORT_MEM_CHECK={0:?}: expected checked, trap or both")]
    BadEnv(String),
    /// Trap mode asked for but the platform cannot install its fault handler.
    #[error("trap mode needs a fault handler, which this platform did not install")]
    NoTrapHandler,
}

/// A value stored unaligned (guest accesses need not be aligned).
#[repr(C, packed)]
#[derive(Clone, Copy)]
struct Unaligned<T>(T);

/// The guest's 4 GiB address space.
///
/// Shared by all guest threads (`&GuestMemory` is `Send + Sync`); mapping
/// calls take `&self` too. The accessors take a 32-bit guest effective
/// address (the Cell runs LV2 processes with 32-bit addresses in 64-bit mode:
/// callers truncate the 64-bit EA, so a sign-extended address still lands in
/// the window).
pub struct GuestMemory {
    base: *mut u8,
    /// Accesses at addresses below this go straight to the host (trap
    /// mode: u32::MAX); 0 makes every access check the page table (inline,
    /// out of line for page-crossing accesses and faults).
    fast_limit: u32,
    mode: CheckMode,
    pages: Box<[AtomicU8; PAGE_COUNT]>,
    res: Box<ReservationTable>,
    vm: Box<dyn VirtualMemory>,
    total: usize,
}

// SAFETY: the base pointer is to memory owned by this object for its whole
// life; concurrent guest accesses are the guest's business (as on hardware),
// and every piece of shared bookkeeping is atomic.
unsafe impl Send for GuestMemory {}
// SAFETY: as above.
unsafe impl Sync for GuestMemory {}

impl Drop for GuestMemory {
    fn drop(&mut self) {
        #[cfg(unix)]
        fault::trap::unregister(self.base as usize);
        if let Err(e) = self.vm.release(self.base, self.total) {
            log::error!("releasing guest memory: {e}");
        }
    }
}

impl std::fmt::Debug for GuestMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuestMemory")
            .field("base", &self.base)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

macro_rules! accessors {
    ($($t:ty, $n:literal, $read:ident, $write:ident, $try_read:ident, $try_write:ident;)*) => {$(
        #[doc = concat!("Reads a big-endian `", stringify!($t), "` at `addr` (a plain accessor: a fault is raised, see [`crate::fault`]).")]
        #[inline(always)]
        pub fn $read(&self, addr: u32) -> $t {
            if addr < self.fast_limit || self.page_allows::<$n>(addr, Prot::READ) {
                // SAFETY: trap mode: the reservation plus its guard covers
                // every u32 address + 16 bytes, and a bad page traps;
                // checked modes: the page table says the bytes are readable.
                let raw = unsafe {
                    std::ptr::read_volatile(self.base.add(addr as usize) as *const Unaligned<$t>).0
                };
                <$t>::from_be(raw)
            } else {
                let mut b = [0u8; $n];
                self.read_checked_or_raise(addr, &mut b);
                <$t>::from_be_bytes(b)
            }
        }

        #[doc = concat!("Writes a big-endian `", stringify!($t), "` at `addr` (a plain accessor: a fault is raised).")]
        #[inline(always)]
        pub fn $write(&self, addr: u32, v: $t) {
            if addr < self.fast_limit || self.page_allows::<$n>(addr, Prot::WRITE) {
                // SAFETY: as for the read (writable).
                unsafe {
                    std::ptr::write_volatile(self.base.add(addr as usize) as *mut Unaligned<$t>, Unaligned(v.to_be()));
                }
                self.res.notice_store(addr, $n);
            } else {
                self.write_checked_or_raise(addr, &v.to_be_bytes());
            }
        }

        #[doc = concat!("Reads a big-endian `", stringify!($t), "` at `addr`, checking the page table; a fault is returned.")]
        #[inline]
        pub fn $try_read(&self, addr: u32) -> Result<$t, GuestFault> {
            let mut b = [0u8; $n];
            self.read_checked(addr, &mut b, Access::Read)?;
            Ok(<$t>::from_be_bytes(b))
        }

        #[doc = concat!("Writes a big-endian `", stringify!($t), "` at `addr`, checking the page table; a fault is returned.")]
        #[inline]
        pub fn $try_write(&self, addr: u32, v: $t) -> Result<(), GuestFault> {
            self.write_checked(addr, &v.to_be_bytes())
        }
    )*};
}

impl GuestMemory {
    /// Reserves a new, empty address space on the host, in the mode named by
    /// `CELLPORT_MEM_CHECK` (default [`CheckMode::DEFAULT`]).
    pub fn new() -> Result<GuestMemory, MemError> {
        let explicit = std::env::var_os("CELLPORT_MEM_CHECK").is_some();
        match Self::with_mode(CheckMode::from_env()?) {
            // The default falls back to the checked accessors where the
            // platform cannot catch faults; an explicit choice does not.
            Err(MemError::NoTrapHandler) if !explicit => {
                log::warn!("no fault handler on this platform: guest memory runs in checked mode");
                Self::with_mode(CheckMode::Checked)
            }
            r => r,
        }
    }

    /// Reserves a new, empty address space on the host in `mode`.
    #[cfg(unix)]
    pub fn with_mode(mode: CheckMode) -> Result<GuestMemory, MemError> {
        Self::with_platform(mode, Box::new(crate::platform::HostVm))
    }

    /// Reserves a new, empty address space through the platform `vm`.
    pub fn with_platform(
        mode: CheckMode,
        vm: Box<dyn VirtualMemory>,
    ) -> Result<GuestMemory, MemError> {
        let total = ADDRESS_SPACE as usize + GUARD_SIZE;
        if mode != CheckMode::Checked && !vm.install_fault_handler() {
            return Err(MemError::NoTrapHandler);
        }
        let base = vm.reserve(total)?;
        #[cfg(unix)]
        if !fault::trap::register(base as usize, total) && mode != CheckMode::Checked {
            let _ = vm.release(base, total);
            return Err(MemError::NoTrapHandler);
        }
        Ok(GuestMemory {
            base,
            fast_limit: if mode == CheckMode::Trap { u32::MAX } else { 0 },
            mode,
            pages: Box::new([const { AtomicU8::new(0) }; PAGE_COUNT]),
            res: Box::new(ReservationTable::new()),
            vm,
            total,
        })
    }

    /// The mode the accessors run in.
    pub fn mode(&self) -> CheckMode {
        self.mode
    }

    /// The host address of guest address 0. Guest address `a` is at
    /// `base_ptr() + a`, big-endian. For code that must go around the
    /// accessors (DMA engines, the renderer reading vertex buffers).
    pub fn base_ptr(&self) -> *mut u8 {
        self.base
    }

    // ------------------------------------------------------------ mapping --

    fn page_range(addr: u32, len: u64) -> Result<(usize, usize), MemError> {
        if len == 0 {
            return Err(MemError::BadRange {
                addr,
                len,
                why: "empty",
            });
        }
        let end = u64::from(addr) + len;
        if end > ADDRESS_SPACE {
            return Err(MemError::BadRange {
                addr,
                len,
                why: "ends past 4 GiB",
            });
        }
        let first = (addr >> PAGE_SHIFT) as usize;
        let last = ((end - 1) >> PAGE_SHIFT) as usize;
        if first == 0 {
            return Err(MemError::BadRange {
                addr,
                len,
                why: "page 0 stays inaccessible",
            });
        }
        Ok((first, last))
    }

    fn host_page(&self, page: usize) -> *mut u8 {
        // SAFETY: page < PAGE_COUNT, inside the reservation.
        unsafe { self.base.add(page << PAGE_SHIFT) }
    }

    /// Maps `len` bytes at `addr`, rounded out to whole 64 KiB pages, with
    /// `prot`. New pages read as zero; pages already mapped keep their content
    /// and take the new protection.
    pub fn map(&self, addr: u32, len: u64, prot: Prot) -> Result<(), MemError> {
        let (first, last) = Self::page_range(addr, len)?;
        let host_prot = self.host_prot(prot);
        self.vm.commit(
            self.host_page(first),
            (last - first + 1) * PAGE_SIZE as usize,
            host_prot,
        )?;
        for p in first..=last {
            self.pages[p].store(prot.bits() | Prot::MAPPED.bits(), Ordering::Release);
        }
        Ok(())
    }

    /// Unmaps the pages covering `addr..addr+len`; their content is dropped.
    pub fn unmap(&self, addr: u32, len: u64) -> Result<(), MemError> {
        let (first, last) = Self::page_range(addr, len)?;
        for p in first..=last {
            self.pages[p].store(0, Ordering::Release);
        }
        self.vm.decommit(
            self.host_page(first),
            (last - first + 1) * PAGE_SIZE as usize,
        )?;
        Ok(())
    }

    /// Changes the protection of mapped pages covering `addr..addr+len`.
    pub fn protect(&self, addr: u32, len: u64, prot: Prot) -> Result<(), MemError> {
        let (first, last) = Self::page_range(addr, len)?;
        for p in first..=last {
            if self.pages[p].load(Ordering::Acquire) & Prot::MAPPED.bits() == 0 {
                return Err(MemError::NotMapped {
                    addr: (p << PAGE_SHIFT) as u32,
                });
            }
        }
        self.vm.protect(
            self.host_page(first),
            (last - first + 1) * PAGE_SIZE as usize,
            self.host_prot(prot),
        )?;
        for p in first..=last {
            self.pages[p].store(prot.bits() | Prot::MAPPED.bits(), Ordering::Release);
        }
        Ok(())
    }

    /// In checked mode the host pages stay writable (the page table is the
    /// only check, and host writes need no protection dance); in trap modes
    /// the host protection is the guest's.
    fn host_prot(&self, prot: Prot) -> Prot {
        match self.mode {
            CheckMode::Checked => Prot::READ | Prot::WRITE,
            _ => prot,
        }
    }

    /// The protection of the page holding `addr` (empty when unmapped).
    pub fn prot_at(&self, addr: u32) -> Prot {
        let e = self.pages[(addr >> PAGE_SHIFT) as usize].load(Ordering::Acquire);
        if e & Prot::MAPPED.bits() == 0 {
            Prot::empty()
        } else {
            Prot::from_bits_truncate(e) & !Prot::MAPPED
        }
    }

    /// Whether every byte of `addr..addr+len` may be accessed as `access`.
    pub fn is_accessible(&self, addr: u32, len: u32, access: Access) -> bool {
        self.check(addr, len, access).is_ok()
    }

    /// The lowest page-aligned address `>= from`, below `to`, where `len`
    /// bytes (rounded to pages) are all unmapped and aligned to `align` (a
    /// power of two, at least a page). For allocators in LV2.
    pub fn find_free(&self, len: u64, align: u32, from: u32, to: u64) -> Option<u32> {
        let pages = len.div_ceil(u64::from(PAGE_SIZE)) as usize;
        let step = (align.max(PAGE_SIZE) >> PAGE_SHIFT) as usize;
        let mut p = (from as usize)
            .div_ceil(PAGE_SIZE as usize)
            .max(1)
            .next_multiple_of(step);
        let end = ((to.min(ADDRESS_SPACE)) >> PAGE_SHIFT) as usize;
        while p + pages <= end {
            match (p..p + pages).find(|&q| self.pages[q].load(Ordering::Acquire) != 0) {
                None => return Some((p << PAGE_SHIFT) as u32),
                Some(busy) => p = (busy + 1).next_multiple_of(step),
            }
        }
        None
    }

    // ------------------------------------------------------------ checks --

    /// The inline page-table check of the checked modes: one table load and
    /// two compares; an access that crosses a page goes the slow way.
    #[inline(always)]
    fn page_allows<const N: u32>(&self, addr: u32, need: Prot) -> bool {
        let e = self.pages[(addr >> PAGE_SHIFT) as usize].load(Ordering::Relaxed);
        e & need.bits() != 0 && (addr & (PAGE_SIZE - 1)) <= PAGE_SIZE - N
    }

    /// Checks `addr..addr+len` against the page table.
    #[inline]
    pub fn check(&self, addr: u32, len: u32, access: Access) -> Result<(), GuestFault> {
        let fault = |kind| GuestFault {
            addr,
            size: len,
            access,
            kind,
            pc: None,
        };
        if len == 0 {
            return Ok(());
        }
        let last = u64::from(addr) + u64::from(len) - 1;
        if last >= ADDRESS_SPACE {
            return Err(fault(FaultKind::Wraps));
        }
        let need = match access {
            Access::Read => Prot::READ,
            Access::Write => Prot::WRITE,
            Access::Fetch => Prot::EXEC,
        };
        for p in (addr >> PAGE_SHIFT) as usize..=(last >> PAGE_SHIFT) as usize {
            let e = Prot::from_bits_truncate(self.pages[p].load(Ordering::Relaxed));
            if !e.contains(Prot::MAPPED) {
                return Err(fault(FaultKind::Unmapped));
            }
            if !e.contains(need) {
                return Err(fault(if access == Access::Write {
                    FaultKind::ReadOnly
                } else {
                    FaultKind::Unmapped
                }));
            }
        }
        Ok(())
    }

    fn read_checked(&self, addr: u32, out: &mut [u8], access: Access) -> Result<(), GuestFault> {
        self.check(addr, out.len() as u32, access)?;
        // SAFETY: the page table says every byte is mapped and readable; host
        // pages of mapped guest pages are always readable.
        unsafe {
            std::ptr::copy_nonoverlapping(self.base.add(addr as usize), out.as_mut_ptr(), out.len())
        };
        Ok(())
    }

    fn write_checked(&self, addr: u32, data: &[u8]) -> Result<(), GuestFault> {
        self.check(addr, data.len() as u32, Access::Write)?;
        // SAFETY: the page table says every byte is mapped writable, and the
        // host protection follows it (checked mode keeps host pages writable).
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.base.add(addr as usize), data.len())
        };
        self.res.notice_store(addr, data.len() as u32);
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn read_checked_or_raise(&self, addr: u32, out: &mut [u8]) {
        if let Err(f) = self.read_checked(addr, out, Access::Read) {
            fault::raise(f)
        }
    }

    #[cold]
    #[inline(never)]
    fn write_checked_or_raise(&self, addr: u32, data: &[u8]) {
        if let Err(f) = self.write_checked(addr, data) {
            fault::raise(f)
        }
    }

    // --------------------------------------------------------- accessors --

    accessors! {
        u8, 1, read_u8, write_u8, try_read_u8, try_write_u8;
        u16, 2, read_u16, write_u16, try_read_u16, try_write_u16;
        u32, 4, read_u32, write_u32, try_read_u32, try_write_u32;
        u64, 8, read_u64, write_u64, try_read_u64, try_write_u64;
        u128, 16, read_u128, write_u128, try_read_u128, try_write_u128;
    }

    /// Reads a big-endian `f32`.
    #[inline(always)]
    pub fn read_f32(&self, addr: u32) -> f32 {
        f32::from_bits(self.read_u32(addr))
    }
    /// Reads a big-endian `f64`.
    #[inline(always)]
    pub fn read_f64(&self, addr: u32) -> f64 {
        f64::from_bits(self.read_u64(addr))
    }
    /// Writes a big-endian `f32`.
    #[inline(always)]
    pub fn write_f32(&self, addr: u32, v: f32) {
        self.write_u32(addr, v.to_bits())
    }
    /// Writes a big-endian `f64`.
    #[inline(always)]
    pub fn write_f64(&self, addr: u32, v: f64) {
        self.write_u64(addr, v.to_bits())
    }

    /// Reads `out.len()` bytes at `addr` (checked).
    pub fn read_bytes(&self, addr: u32, out: &mut [u8]) -> Result<(), GuestFault> {
        self.read_checked(addr, out, Access::Read)
    }

    /// Writes `data` at `addr` (checked, noticed by reservations).
    pub fn write_bytes(&self, addr: u32, data: &[u8]) -> Result<(), GuestFault> {
        self.write_checked(addr, data)
    }

    /// Fetches the instruction word at `addr` (checked for execute permission).
    pub fn fetch_u32(&self, addr: u32) -> Result<u32, GuestFault> {
        let mut b = [0u8; 4];
        self.read_checked(addr, &mut b, Access::Fetch)?;
        Ok(u32::from_be_bytes(b))
    }

    /// Writes `data` at `addr` ignoring write protection (loaders filling a
    /// read-only segment). Every page must be mapped.
    pub fn host_write(&self, addr: u32, data: &[u8]) -> Result<(), MemError> {
        if data.is_empty() {
            return Ok(());
        }
        let (first, last) = Self::page_range(addr, data.len() as u64)?;
        let mut restore = Vec::new();
        for p in first..=last {
            let e = Prot::from_bits_truncate(self.pages[p].load(Ordering::Acquire));
            if !e.contains(Prot::MAPPED) {
                return Err(MemError::NotMapped {
                    addr: (p << PAGE_SHIFT) as u32,
                });
            }
            if !e.contains(Prot::WRITE) && self.mode != CheckMode::Checked {
                self.vm.protect(
                    self.host_page(p),
                    PAGE_SIZE as usize,
                    Prot::READ | Prot::WRITE,
                )?;
                restore.push((p, e & !Prot::MAPPED));
            }
        }
        // SAFETY: every page is mapped and host-writable now.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.base.add(addr as usize), data.len())
        };
        self.res.notice_store(addr, data.len() as u32);
        for (p, prot) in restore {
            self.vm
                .protect(self.host_page(p), PAGE_SIZE as usize, prot)?;
        }
        Ok(())
    }

    /// Fills `len` bytes at `addr` with `byte` (checked).
    pub fn fill(&self, addr: u32, len: u32, byte: u8) -> Result<(), GuestFault> {
        self.check(addr, len, Access::Write)?;
        // SAFETY: checked writable above.
        unsafe { std::ptr::write_bytes(self.base.add(addr as usize), byte, len as usize) };
        self.res.notice_store(addr, len);
        Ok(())
    }

    /// `dcbz`: zeroes the 128-byte line holding `addr` (checked).
    pub fn zero_line(&self, addr: u32) -> Result<(), GuestFault> {
        let line = addr & !(crate::CACHE_LINE - 1);
        self.fill(line, crate::CACHE_LINE, 0).map_err(|mut f| {
            f.addr = addr;
            f
        })
    }

    /// Reads a NUL-terminated string at `addr`, at most `max` bytes (the NUL
    /// not included). Fails when unterminated within `max` or on a fault.
    pub fn read_cstr(&self, addr: u32, max: u32) -> Result<Vec<u8>, GuestFault> {
        let mut out = Vec::new();
        for i in 0..max {
            let a = addr.wrapping_add(i);
            let b = self.try_read_u8(a)?;
            if b == 0 {
                return Ok(out);
            }
            out.push(b);
        }
        Err(GuestFault {
            addr,
            size: max,
            access: Access::Read,
            kind: FaultKind::Unmapped,
            pc: None,
        })
    }

    // ------------------------------------------------------ reservations --

    fn reserved_ptr<T>(&self, addr: u32, access: Access) -> Result<*mut T, GuestFault> {
        let size = size_of::<T>() as u32;
        if !addr.is_multiple_of(size) {
            return Err(GuestFault {
                addr,
                size,
                access,
                kind: FaultKind::Unaligned,
                pc: None,
            });
        }
        self.check(addr, size, access)?;
        // SAFETY: checked above; aligned, inside the reservation.
        Ok(unsafe { self.base.add(addr as usize) }.cast())
    }

    /// `lwarx`: reads the big-endian word at `addr` and reserves its line.
    pub fn load_reserved_u32(&self, res: &mut Reservation, addr: u32) -> Result<u32, GuestFault> {
        let p = self.reserved_ptr::<u32>(addr, Access::Read)?;
        // SAFETY: aligned, mapped; AtomicU32 has the layout of u32.
        let a = unsafe { AtomicU32::from_ptr(p) };
        self.res
            .acquire(res, addr, || u64::from(a.load(Ordering::Acquire)));
        Ok(u32::from_be(res.value as u32))
    }

    /// `ldarx`: reads the big-endian doubleword at `addr` and reserves its line.
    pub fn load_reserved_u64(&self, res: &mut Reservation, addr: u32) -> Result<u64, GuestFault> {
        let p = self.reserved_ptr::<u64>(addr, Access::Read)?;
        // SAFETY: aligned, mapped; AtomicU64 has the layout of u64.
        let a = unsafe { AtomicU64::from_ptr(p) };
        self.res.acquire(res, addr, || a.load(Ordering::Acquire));
        Ok(u64::from_be(res.value))
    }

    /// `stwcx.`: stores `v` at `addr` if the reservation still holds; returns
    /// whether it stored. The reservation is gone afterwards either way.
    pub fn store_conditional_u32(
        &self,
        res: &mut Reservation,
        addr: u32,
        v: u32,
    ) -> Result<bool, GuestFault> {
        let p = match self.reserved_ptr::<u32>(addr, Access::Write) {
            Ok(p) => p,
            Err(f) => {
                self.res.release(res);
                return Err(f);
            }
        };
        // SAFETY: aligned, mapped writable.
        let a = unsafe { AtomicU32::from_ptr(p) };
        Ok(self.res.store_conditional(res, addr, |old| {
            a.compare_exchange(old as u32, v.to_be(), Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        }))
    }

    /// `stdcx.`: as [`Self::store_conditional_u32`] for a doubleword.
    pub fn store_conditional_u64(
        &self,
        res: &mut Reservation,
        addr: u32,
        v: u64,
    ) -> Result<bool, GuestFault> {
        let p = match self.reserved_ptr::<u64>(addr, Access::Write) {
            Ok(p) => p,
            Err(f) => {
                self.res.release(res);
                return Err(f);
            }
        };
        // SAFETY: aligned, mapped writable.
        let a = unsafe { AtomicU64::from_ptr(p) };
        Ok(self.res.store_conditional(res, addr, |old| {
            a.compare_exchange(old, v.to_be(), Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        }))
    }

    /// Drops a reservation (a thread exiting while it holds one, or a context
    /// switch that must clear it).
    pub fn clear_reservation(&self, res: &mut Reservation) {
        self.res.release(res);
    }

    /// Reservations held right now, all threads together (diagnostics).
    pub fn live_reservations(&self) -> u32 {
        self.res.live()
    }
}
