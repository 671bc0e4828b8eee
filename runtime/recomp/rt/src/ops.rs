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

/// The guest-memory view lifted code uses: a `Copy` value kept in host
/// registers for the whole function (base address, the trap-mode limit),
/// so loads need not reload them from the `GuestMemory` after a store.
/// Loads take guest-mem's fast path (a compare against the limit, then a
/// volatile big-endian load); stores are guest-mem's plain accessors (which
/// also notice live `lwarx` reservations); everything else delegates.
#[derive(Debug, Clone, Copy)]
pub struct Mem {
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
unsafe impl Send for Mem {}
// SAFETY: as above.
unsafe impl Sync for Mem {}

/// A value stored unaligned.
#[repr(C, packed)]
#[derive(Clone, Copy)]
struct Unaligned<T>(T);

macro_rules! view_accessors {
    ($($t:ty, $read:ident, $write:ident, $stack:ident;)*) => {$(
        #[doc = concat!("Reads a big-endian `", stringify!($t), "`.")]
        #[inline(always)]
        pub fn $read(self, ea: u32) -> $t {
            if ea < self.limit {
                // SAFETY: trap mode (limit is only nonzero then): the
                // reservation plus its guard covers every u32 address + 16
                // bytes, and a bad page traps to guest-mem's handler.
                <$t>::from_be(unsafe { std::ptr::read_volatile(self.base.add(ea as usize) as *const Unaligned<$t>).0 })
            } else {
                self.mem.$read(ea)
            }
        }

        #[doc = concat!("Writes a big-endian `", stringify!($t), "`.")]
        #[inline(always)]
        pub fn $write(self, ea: u32, v: $t) {
            if ea < self.limit && !self.notice {
                // SAFETY: as for the read; with one guest thread there is
                // no other thread's reservation for the store to break.
                unsafe { std::ptr::write_volatile(self.base.add(ea as usize) as *mut Unaligned<$t>, Unaligned(v.to_be())) }
            } else {
                // guest-mem's own store: the volatile store and the
                // reservation notice.
                self.mem.$write(ea, v)
            }
        }

        #[doc = concat!("An r1-based (stack) load of a big-endian `", stringify!($t), "`: with the stack fast path on (trap mode), a plain load from the host mapping, which LLVM may keep in registers; otherwise the ordinary read.")]
        #[inline(always)]
        pub fn $stack(self, ea: u32) -> $t {
            if self.stack_fast {
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

    /// The guest memory behind the view.
    pub fn memory(self) -> &'static GuestMemory {
        self.mem
    }

    view_accessors! {
        u8, read_u8, write_u8, stack_read_u8;
        u16, read_u16, write_u16, stack_read_u16;
        u32, read_u32, write_u32, stack_read_u32;
        u64, read_u64, write_u64, stack_read_u64;
    }

    /// Reads a big-endian quadword.
    #[inline(always)]
    pub fn read_u128(self, ea: u32) -> u128 {
        self.mem.read_u128(ea)
    }

    /// Writes a big-endian quadword.
    #[inline(always)]
    pub fn write_u128(self, ea: u32, v: u128) {
        self.mem.write_u128(ea, v)
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
