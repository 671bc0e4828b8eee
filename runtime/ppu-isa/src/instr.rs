//! [`Instr`]: a decoded instruction and its fields.

use crate::op::{Flags, Op};

/// A decoded instruction: the op and the word it came from. The fields are
/// read from the word on demand (each accessor is one shift and mask), named
/// as in the PowerISA books. Register numbers are `usize` for indexing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instr {
    /// The operation.
    pub op: Op,
    /// The instruction word.
    pub word: u32,
}

#[inline(always)]
const fn bits(w: u32, first: u32, last: u32) -> u32 {
    // PowerISA bit numbering: bit 0 is the most significant.
    (w >> (31 - last)) & ((1 << (last - first + 1)) - 1)
}

impl Instr {
    /// Bits 6..10: RT/RS/FRT/FRS/VD/VS/BO/TO (and BF in its top three bits).
    #[inline(always)]
    pub const fn rt(self) -> usize {
        bits(self.word, 6, 10) as usize
    }
    /// Same field as [`Self::rt`], for stores and logical ops (RS).
    #[inline(always)]
    pub const fn rs(self) -> usize {
        self.rt()
    }
    /// Bits 11..15: RA/FRA/VA/BI/BA.
    #[inline(always)]
    pub const fn ra(self) -> usize {
        bits(self.word, 11, 15) as usize
    }
    /// Bits 16..20: RB/FRB/VB/BB.
    #[inline(always)]
    pub const fn rb(self) -> usize {
        bits(self.word, 16, 20) as usize
    }
    /// Bits 21..25: FRC / VC.
    #[inline(always)]
    pub const fn rc_reg(self) -> usize {
        bits(self.word, 21, 25) as usize
    }
    /// BO (bits 6..10) of a conditional branch.
    #[inline(always)]
    pub const fn bo(self) -> u32 {
        bits(self.word, 6, 10)
    }
    /// BI (bits 11..15) of a conditional branch: the CR bit tested.
    #[inline(always)]
    pub const fn bi(self) -> usize {
        self.ra()
    }
    /// BF (bits 6..8): the CR field a compare writes.
    #[inline(always)]
    pub const fn bf(self) -> usize {
        bits(self.word, 6, 8) as usize
    }
    /// BFA (bits 11..13): the CR (or FPSCR) field mcrf/mcrfs read.
    #[inline(always)]
    pub const fn bfa(self) -> usize {
        bits(self.word, 11, 13) as usize
    }
    /// L (bit 10) of compares: 1 = 64-bit compare.
    #[inline(always)]
    pub const fn l(self) -> bool {
        bits(self.word, 10, 10) != 0
    }
    /// L field of `sync` (bits 9..10): 0 sync (hwsync), 1 lwsync, 2 ptesync.
    #[inline(always)]
    pub const fn sync_l(self) -> u32 {
        bits(self.word, 9, 10)
    }
    /// The 16-bit immediate, sign-extended (SI, D).
    #[inline(always)]
    pub const fn simm(self) -> i64 {
        self.word as u16 as i16 as i64
    }
    /// The 16-bit immediate, zero-extended (UI).
    #[inline(always)]
    pub const fn uimm(self) -> u64 {
        self.word as u16 as u64
    }
    /// The DS displacement (low two bits cleared), sign-extended.
    #[inline(always)]
    pub const fn ds(self) -> i64 {
        (self.word & 0xFFFC) as u16 as i16 as i64
    }
    /// The LI displacement of `b`, sign-extended, in bytes.
    #[inline(always)]
    pub const fn li(self) -> i64 {
        (((self.word & 0x03FF_FFFC) << 6) as i32 >> 6) as i64
    }
    /// The BD displacement of `bc`, sign-extended, in bytes.
    #[inline(always)]
    pub const fn bd(self) -> i64 {
        (self.word & 0xFFFC) as u16 as i16 as i64
    }
    /// AA: the branch target is absolute.
    #[inline(always)]
    pub const fn aa(self) -> bool {
        self.word & 2 != 0
    }
    /// LK: the branch sets LR.
    #[inline(always)]
    pub const fn lk(self) -> bool {
        self.word & 1 != 0
    }
    /// Rc: the op records to CR0 (CR1 for floating point, CR6 for VMX
    /// compares). False for ops without a record form.
    #[inline(always)]
    pub fn rc(self) -> bool {
        match self.op.flags() {
            Flags::Rc | Flags::OeRc => self.word & 1 != 0,
            Flags::VRc => self.word & (1 << 10) != 0,
            Flags::Plain | Flags::Branch => false,
        }
    }
    /// OE: the op records overflow in XER (false for ops without OE).
    #[inline(always)]
    pub fn oe(self) -> bool {
        self.op.flags() == Flags::OeRc && self.word & (1 << 10) != 0
    }
    /// SH of the 32-bit rotates and srawi (bits 16..20); also NB of lswi.
    #[inline(always)]
    pub const fn sh32(self) -> u32 {
        bits(self.word, 16, 20)
    }
    /// MB of the 32-bit rotates (bits 21..25).
    #[inline(always)]
    pub const fn mb32(self) -> u32 {
        bits(self.word, 21, 25)
    }
    /// ME of the 32-bit rotates (bits 26..30).
    #[inline(always)]
    pub const fn me32(self) -> u32 {
        bits(self.word, 26, 30)
    }
    /// The 6-bit SH of the 64-bit rotates and sradi (bits 16..20 ‖ 30).
    #[inline(always)]
    pub const fn sh64(self) -> u32 {
        bits(self.word, 16, 20) | (bits(self.word, 30, 30) << 5)
    }
    /// The 6-bit MB (or ME) of the 64-bit rotates (bits 21..26, stored with
    /// the high bit last).
    #[inline(always)]
    pub const fn mb64(self) -> u32 {
        bits(self.word, 21, 25) | (bits(self.word, 26, 26) << 5)
    }
    /// The SPR number of mfspr/mtspr (the two halves swapped back).
    #[inline(always)]
    pub const fn spr(self) -> u32 {
        bits(self.word, 16, 20) << 5 | bits(self.word, 11, 15)
    }
    /// FXM/CRM of mtcrf/mtocrf/mfocrf (bits 12..19).
    #[inline(always)]
    pub const fn crm(self) -> u32 {
        bits(self.word, 12, 19)
    }
    /// FLM of mtfsf (bits 7..14).
    #[inline(always)]
    pub const fn flm(self) -> u32 {
        bits(self.word, 7, 14)
    }
    /// U of mtfsfi (bits 16..19).
    #[inline(always)]
    pub const fn u_imm(self) -> u32 {
        bits(self.word, 16, 19)
    }
    /// NB of lswi/stswi (0 means 32).
    #[inline(always)]
    pub const fn nb(self) -> u32 {
        bits(self.word, 16, 20)
    }
    /// TH of dcbt/dcbtst (bits 6..10).
    #[inline(always)]
    pub const fn th(self) -> u32 {
        bits(self.word, 6, 10)
    }
    /// LEV of sc (bits 20..26).
    #[inline(always)]
    pub const fn lev(self) -> u32 {
        bits(self.word, 20, 26)
    }
    /// UIMM of vsplt*/vcfux/... (bits 11..15, the VA field).
    #[inline(always)]
    pub const fn vuimm(self) -> u32 {
        bits(self.word, 11, 15)
    }
    /// SIMM of vspltis* (bits 11..15, sign-extended 5 bits).
    #[inline(always)]
    pub const fn vsimm(self) -> i32 {
        ((bits(self.word, 11, 15) << 27) as i32) >> 27
    }
    /// SHB of vsldoi (bits 22..25).
    #[inline(always)]
    pub const fn shb(self) -> u32 {
        bits(self.word, 22, 25)
    }
    /// STRM of dst/dss (bits 9..10).
    #[inline(always)]
    pub const fn strm(self) -> u32 {
        bits(self.word, 9, 10)
    }

    /// The target of a `b` or `bc` at `pc` (AA honoured), as a 32-bit
    /// effective address. None for other ops.
    pub fn branch_target(self, pc: u32) -> Option<u32> {
        let disp = match self.op {
            Op::B => self.li(),
            Op::Bc => self.bd(),
            _ => return None,
        };
        let base = if self.aa() { 0 } else { i64::from(pc) };
        Some(base.wrapping_add(disp) as u32)
    }

    /// Whether the op ends a basic block (any branch, `sc`, a trap).
    pub fn is_branch(self) -> bool {
        matches!(self.op, Op::B | Op::Bc | Op::Bclr | Op::Bcctr)
    }
}
