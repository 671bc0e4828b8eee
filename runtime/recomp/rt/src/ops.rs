//! Small operations lifted code uses that are not instruction semantics of
//! their own (those are in `ppu_cpu::helpers`, shared with the interpreter).

/// A CR field nibble (LT=8, GT=4, EQ=2, SO=1) as the four CR bytes.
#[inline(always)]
pub fn nibble_bits(n: u32) -> [u8; 4] {
    [
        ((n >> 3) & 1) as u8,
        ((n >> 2) & 1) as u8,
        ((n >> 1) & 1) as u8,
        (n & 1) as u8,
    ]
}

/// Four CR bytes as a nibble.
#[inline(always)]
pub fn bits_nibble(lt: u8, gt: u8, eq: u8, so: u8) -> u32 {
    u32::from(lt) << 3 | u32::from(gt) << 2 | u32::from(eq) << 1 | u32::from(so)
}

use guest_mem::{GuestFault, GuestMemory, Reservation};

/// Whether lifted code checks each guest access itself (a compare, then
/// guest-mem's checked accessor for what fails it) instead of relying on
/// trap mode: where guest memory runs in checked mode (the PS5, whose
/// payloads have no fault handler), or with the `checked-memory` feature;
/// elsewhere lifted code needs guest memory in trap (or both) mode, where
/// the host protections catch every bad access, and its loads and stores
/// are one host instruction each, with no check and no slow path beside
/// them (`Mem::new` refuses checked-mode memory then: [`supports`]).
pub const CHECKED_ACCESSORS: bool = cfg!(any(
    feature = "checked-memory",
    all(target_os = "freebsd", target_vendor = "sony")
));

/// Whether lifted code built this way can run on guest memory in `mode`
/// (see [`CHECKED_ACCESSORS`]); the error says why not.
pub fn supports(mode: guest_mem::CheckMode) -> Result<(), String> {
    if CHECKED_ACCESSORS || mode != guest_mem::CheckMode::Checked {
        Ok(())
    } else {
        Err("guest memory is in checked mode (CELLPORT_MEM_CHECK=checked, or no fault handler on this \
             platform), but this program's lifted code was built for trap mode: unset CELLPORT_MEM_CHECK, \
             or rebuild with `recomp --checked-memory` (recomp-rt's `checked-memory` feature)"
            .into())
    }
}

/// The guest-memory view lifted code uses: a `Copy` value kept in host
/// registers for the whole function (base address, the checked-mode limit),
/// so loads need not reload them from the `GuestMemory` after a store.
/// Loads are volatile big-endian loads from the host mapping (another guest
/// thread's stores must be seen by a polling loop); stores by a program
/// with one guest thread are plain unaligned stores (nothing else can
/// observe them, and LLVM makes each one instruction), else guest-mem's
/// accessors (which also notice live `lwarx` reservations). With
/// [`CHECKED_ACCESSORS`], an address at or above the limit (every address
/// outside trap mode) takes guest-mem's checked accessors. Everything else
/// delegates.
///
/// `ONE_THREAD`: the program has one guest thread for certain (its lifted
/// code was generated so, see [`Mem::single_threaded`]): stores never
/// notice reservations, with no flag to test.
#[derive(Debug, Clone, Copy)]
pub struct Mem<const ONE_THREAD: bool = false> {
    base: *mut u8,
    limit: u32,
    stack_fast: bool,
    /// Stores must tell guest-mem (which breaks other threads' `lwarx`
    /// reservations); false when the program has only one guest thread, whose
    /// own stores never break its own reservation.
    notice: bool,
    mem: &'static GuestMemory,
}

// SAFETY: the view only holds the address of guest memory, which is itself
// Send + Sync (`GuestMemory`); it hands out no references into it.
unsafe impl<const T: bool> Send for Mem<T> {}
// SAFETY: as above.
unsafe impl<const T: bool> Sync for Mem<T> {}

/// A value stored unaligned.
#[repr(C, packed)]
#[derive(Clone, Copy)]
struct Unaligned<T>(T);

macro_rules! view_accessors {
    ($($t:ty, $read:ident, $write:ident, $stack:ident;)*) => {$(
        #[doc = concat!("Reads a big-endian `", stringify!($t), "`.")]
        #[inline(always)]
        pub fn $read(self, ea: u32) -> $t {
            if !CHECKED_ACCESSORS || ea < self.limit {
                // SAFETY: trap mode (`Mem::new` refuses checked mode without
                // CHECKED_ACCESSORS; with it, limit is only nonzero in trap
                // mode): the reservation plus its guard covers every u32
                // address + 16 bytes, and a bad page traps to guest-mem's
                // handler.
                <$t>::from_be(unsafe { std::ptr::read_volatile(self.base.add(ea as usize) as *const Unaligned<$t>).0 })
            } else {
                self.mem.$read(ea)
            }
        }

        #[doc = concat!("Writes a big-endian `", stringify!($t), "`.")]
        #[inline(always)]
        pub fn $write(self, ea: u32, v: $t) {
            if (!CHECKED_ACCESSORS || ea < self.limit) && (ONE_THREAD || !self.notice) {
                // SAFETY: as for the read; with one guest thread there is
                // no other thread's reservation for the store to break and
                // no other thread to see it.
                unsafe { std::ptr::write_unaligned(self.base.add(ea as usize) as *mut $t, v.to_be()) }
            } else {
                // guest-mem's own store: the volatile store and the
                // reservation notice.
                self.mem.$write(ea, v)
            }
        }

        #[doc = concat!("An r1-based (stack) load of a big-endian `", stringify!($t), "`: in trap mode (always, without CHECKED_ACCESSORS) with the stack fast path on, a plain load from the host mapping, which LLVM may keep in registers; otherwise the ordinary read.")]
        #[inline(always)]
        pub fn $stack(self, ea: u32) -> $t {
            if !CHECKED_ACCESSORS || self.stack_fast {
                // SAFETY: as for the read (stack_fast implies trap mode).
                unsafe { <$t>::from_be(std::ptr::read_unaligned(self.base.add(ea as usize) as *const $t)) }
            } else {
                self.$read(ea)
            }
        }
    )*};
}

impl Mem {
    /// The view of `mem`; `stack_fast` enables the stack fast path (only
    /// honoured in trap mode); `threads` says whether the program may run
    /// more than one guest thread (then every store notices reservations).
    /// Lifted code may only use it where [`supports`] accepts the memory's
    /// mode (`Rt::new` checks when it is given lifted functions).
    pub fn new(mem: &'static GuestMemory, stack_fast: bool, threads: bool) -> Mem {
        let trap = mem.mode() == guest_mem::CheckMode::Trap;
        Mem {
            base: mem.base_ptr(),
            limit: if trap { u32::MAX } else { 0 },
            stack_fast: stack_fast && trap,
            notice: threads,
            mem,
        }
    }

    /// The view for lifted code generated for a program with one guest
    /// thread (a Linux test program; the runner refuses to start such code
    /// under a personality that runs more threads).
    #[inline(always)]
    pub fn single_threaded(self) -> Mem<true> {
        debug_assert!(
            !self.notice,
            "single-threaded lifted code in a program with threads"
        );
        Mem {
            base: self.base,
            limit: self.limit,
            stack_fast: self.stack_fast,
            notice: false,
            mem: self.mem,
        }
    }
}

impl<const ONE_THREAD: bool> Mem<ONE_THREAD> {
    /// The guest memory behind the view.
    pub fn memory(self) -> &'static GuestMemory {
        self.mem
    }

    view_accessors! {
        u8, read_u8, write_u8, stack_read_u8;
        u16, read_u16, write_u16, stack_read_u16;
        u32, read_u32, write_u32, stack_read_u32;
        u64, read_u64, write_u64, stack_read_u64;
        u128, read_u128, write_u128, stack_read_u128;
    }

    /// `dcbz`: zeroes the 128-byte line.
    #[inline]
    pub fn zero_line(self, ea: u32) -> Result<(), GuestFault> {
        self.mem.zero_line(ea)
    }

    /// `lwarx`.
    #[inline]
    pub fn load_reserved_u32(self, res: &mut Reservation, ea: u32) -> Result<u32, GuestFault> {
        self.mem.load_reserved_u32(res, ea)
    }

    /// `ldarx`.
    #[inline]
    pub fn load_reserved_u64(self, res: &mut Reservation, ea: u32) -> Result<u64, GuestFault> {
        self.mem.load_reserved_u64(res, ea)
    }

    /// `stwcx.`.
    #[inline]
    pub fn store_conditional_u32(
        self,
        res: &mut Reservation,
        ea: u32,
        v: u32,
    ) -> Result<bool, GuestFault> {
        self.mem.store_conditional_u32(res, ea, v)
    }

    /// `stdcx.`.
    #[inline]
    pub fn store_conditional_u64(
        self,
        res: &mut Reservation,
        ea: u32,
        v: u64,
    ) -> Result<bool, GuestFault> {
        self.mem.store_conditional_u64(res, ea, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use guest_mem::CheckMode;

    #[test]
    fn trap_mode_lifted_code_refuses_checked_memory() {
        assert!(supports(CheckMode::Trap).is_ok());
        assert!(supports(CheckMode::Both).is_ok());
        let checked = supports(CheckMode::Checked);
        assert_eq!(checked.is_ok(), CHECKED_ACCESSORS);
        if let Err(e) = checked {
            assert!(e.contains("checked-memory"), "{e}");
        }
    }
}
