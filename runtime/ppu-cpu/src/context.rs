//! [`PpuContext`]: one PPU thread's registers.

use guest_mem::Reservation;

/// A 128-bit VMX register.
///
/// Held as a host-native `u128` with the guest's element 0 (the most
/// significant, first in memory) in the top bits: a big-endian quadword load
/// is `u128::from_be_bytes`, element-wise ops need no reordering, and byte `i`
/// of the guest register is `(v >> (120 - 8 * i)) as u8`. Helpers in
/// [`crate::helpers::vmx`] give element views.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct V128(pub u128);

impl std::fmt::Debug for V128 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// VSCR bit: non-Java mode (denormals flushed to zero in the VMX float ops).
pub const VSCR_NJ: u32 = 1 << 16;
/// VSCR bit: saturation happened (sticky).
pub const VSCR_SAT: u32 = 1;

/// One PPU thread's architectural state. `#[repr(C)]`, so lifted code and the
/// interpreter agree on it and it can be dumped.
///
/// The CR is kept one byte per bit (`cr[4*f + k]`, k = LT, GT, EQ, SO; each
/// 0 or 1): a conditional branch reads one byte, a compare writes four, and
/// nothing depends on the rest of the register. XER keeps SO, OV, CA and
/// the string byte count in bytes for the same reason. Use the methods to
/// read or write the architectural 32-bit forms.
#[repr(C, align(16))]
#[derive(Clone, PartialEq)]
pub struct PpuContext {
    /// General-purpose registers.
    pub gpr: [u64; 32],
    /// Floating-point registers.
    pub fpr: [f64; 32],
    /// Vector registers.
    pub vr: [V128; 32],
    /// Condition register, one byte (0 or 1) per bit, bit 0 (CR0.LT) first.
    pub cr: [u8; 32],
    /// Link register.
    pub lr: u64,
    /// Count register.
    pub ctr: u64,
    /// XER summary overflow.
    pub xer_so: u8,
    /// XER overflow.
    pub xer_ov: u8,
    /// XER carry.
    pub xer_ca: u8,
    /// XER byte count (bits 57..63: lswx/stswx length).
    pub xer_bc: u8,
    /// Floating-point status and control register.
    pub fpscr: u32,
    /// Vector status and control register ([`VSCR_NJ`], [`VSCR_SAT`]).
    pub vscr: u32,
    /// VRSAVE (only stored and read back).
    pub vrsave: u32,
    /// The current instruction address: the instruction being executed, or
    /// where execution resumes after a stop.
    pub cia: u32,
    /// This thread's `lwarx`/`ldarx` reservation (read by guest memory).
    pub reservation: Reservation,
}

impl std::fmt::Debug for PpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "PpuContext {{ cia: {:#010x}, lr: {:#x}, ctr: {:#x}, cr: {:#010x}, xer: {:#x}, fpscr: {:#010x}, vscr: {:#x}",
            self.cia,
            self.lr,
            self.ctr,
            self.cr_word(),
            self.xer(),
            self.fpscr,
            self.vscr
        )?;
        for (i, r) in self.gpr.iter().enumerate() {
            write!(f, "  r{i}={r:#x}")?;
        }
        writeln!(f, " }}")
    }
}

impl Default for PpuContext {
    fn default() -> Self {
        Self::new()
    }
}

impl PpuContext {
    /// A zeroed context with the Cell's reset VSCR (non-Java mode on, as
    /// the PS3's LV2 and Linux start threads).
    pub fn new() -> PpuContext {
        PpuContext {
            gpr: [0; 32],
            fpr: [0.0; 32],
            vr: [V128(0); 32],
            cr: [0; 32],
            lr: 0,
            ctr: 0,
            xer_so: 0,
            xer_ov: 0,
            xer_ca: 0,
            xer_bc: 0,
            fpscr: 0,
            vscr: VSCR_NJ,
            vrsave: 0,
            cia: 0,
            reservation: Reservation::default(),
        }
    }

    /// The CR as the architecture's 32-bit word (CR0 in the top nibble).
    #[inline]
    pub fn cr_word(&self) -> u32 {
        let mut w = 0;
        for b in self.cr {
            w = (w << 1) | u32::from(b & 1);
        }
        w
    }

    /// Sets the whole CR from its 32-bit form.
    #[inline]
    pub fn set_cr_word(&mut self, w: u32) {
        for (i, b) in self.cr.iter_mut().enumerate() {
            *b = ((w >> (31 - i)) & 1) as u8;
        }
    }

    /// CR field `f` (0..8) as a nibble: LT=8, GT=4, EQ=2, SO=1.
    #[inline(always)]
    pub fn cr_field(&self, f: usize) -> u32 {
        let c = &self.cr[4 * f..4 * f + 4];
        u32::from(c[0]) << 3 | u32::from(c[1]) << 2 | u32::from(c[2]) << 1 | u32::from(c[3])
    }

    /// Sets CR field `f` from a nibble (LT=8, GT=4, EQ=2, SO=1).
    #[inline(always)]
    pub fn set_cr_field(&mut self, f: usize, nibble: u32) {
        let c = &mut self.cr[4 * f..4 * f + 4];
        c[0] = ((nibble >> 3) & 1) as u8;
        c[1] = ((nibble >> 2) & 1) as u8;
        c[2] = ((nibble >> 1) & 1) as u8;
        c[3] = (nibble & 1) as u8;
    }

    /// XER as the architecture's register (SO bit 31, OV 30, CA 29, byte
    /// count in the low 7 bits, in the 32-bit numbering of its low word).
    #[inline]
    pub fn xer(&self) -> u64 {
        u64::from(self.xer_so) << 31
            | u64::from(self.xer_ov) << 30
            | u64::from(self.xer_ca) << 29
            | u64::from(self.xer_bc & 0x7F)
    }

    /// Sets XER from its architectural form (other bits are dropped).
    #[inline]
    pub fn set_xer(&mut self, v: u64) {
        self.xer_so = ((v >> 31) & 1) as u8;
        self.xer_ov = ((v >> 30) & 1) as u8;
        self.xer_ca = ((v >> 29) & 1) as u8;
        self.xer_bc = (v & 0x7F) as u8;
    }

    /// FPR `n` as raw bits.
    #[inline(always)]
    pub fn fpr_bits(&self, n: usize) -> u64 {
        self.fpr[n].to_bits()
    }

    /// Sets FPR `n` from raw bits.
    #[inline(always)]
    pub fn set_fpr_bits(&mut self, n: usize, bits: u64) {
        self.fpr[n] = f64::from_bits(bits);
    }
}
