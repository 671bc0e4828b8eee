//! The register-state record the guest test program and the interpreter
//! exchange (big-endian, [`RECORD_SIZE`] bytes), and its comparison.

use crate::context::{PpuContext, V128};

/// Guest address of the memory window the load/store cases use.
pub const MEM_BASE: u32 = 0x1200_0000;
/// Bytes in the memory window (two 128-byte lines).
pub const MEM_SIZE: usize = 256;
/// Guest address of the first instruction slot.
pub const SLOT_BASE: u32 = 0x1100_0000;
/// Bytes per instruction slot.
pub const SLOT_SIZE: u32 = 32;
/// Guest address of the record array.
pub const REC_BASE: u32 = 0x1300_0000;

/// Offsets inside a record.
pub mod off {
    /// r0..r31, 8 bytes each.
    pub const GPR: usize = 0;
    /// f0..f31, 8 bytes each.
    pub const FPR: usize = 256;
    /// v0..v31, 16 bytes each.
    pub const VR: usize = 512;
    /// CR (low word of a doubleword).
    pub const CR: usize = 1024;
    /// XER.
    pub const XER: usize = 1032;
    /// LR.
    pub const LR: usize = 1040;
    /// CTR.
    pub const CTR: usize = 1048;
    /// FPSCR (as `mffs` stores it).
    pub const FPSCR: usize = 1056;
    /// VRSAVE (low word).
    pub const VRSAVE: usize = 1064;
    /// VSCR (a quadword, VSCR in its last word).
    pub const VSCR: usize = 1072;
    /// Where execution went after the case's words, relative to the slot.
    pub const NEXT: usize = 1088;
    /// The memory window.
    pub const MEM: usize = 1152;
}

/// Record size.
pub const RECORD_SIZE: usize = off::MEM + MEM_SIZE;

/// The state a case starts from or ends in.
#[derive(Clone, PartialEq)]
pub struct State {
    /// GPRs (r1, r2, r13 and r31 belong to the harness).
    pub gpr: [u64; 32],
    /// FPRs as bits.
    pub fpr: [u64; 32],
    /// VRs.
    pub vr: [u128; 32],
    /// CR.
    pub cr: u32,
    /// XER (SO, OV, CA, byte count).
    pub xer: u64,
    /// LR.
    pub lr: u64,
    /// CTR.
    pub ctr: u64,
    /// FPSCR (low 32 bits meaningful).
    pub fpscr: u64,
    /// VRSAVE.
    pub vrsave: u32,
    /// VSCR.
    pub vscr: u32,
    /// Next PC relative to the slot (outputs only).
    pub next: u64,
    /// The memory window.
    pub mem: [u8; MEM_SIZE],
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "State {{ cr: {:08x}, xer: {:x}, lr: {:x}, ctr: {:x}, fpscr: {:08x}, vscr: {:x}, next: {} }}",
            self.cr, self.xer, self.lr, self.ctr, self.fpscr, self.vscr, self.next
        )
    }
}

impl Default for State {
    fn default() -> Self {
        State {
            gpr: [0; 32],
            fpr: [0; 32],
            vr: [0; 32],
            cr: 0,
            xer: 0,
            lr: 0,
            ctr: 0,
            fpscr: 0,
            vrsave: 0,
            vscr: 0,
            next: 0,
            mem: [0; MEM_SIZE],
        }
    }
}

fn rd64(b: &[u8], o: usize) -> u64 {
    u64::from_be_bytes(b[o..o + 8].try_into().unwrap())
}

impl State {
    /// Serialises as a record.
    pub fn to_record(&self) -> Vec<u8> {
        let mut b = vec![0u8; RECORD_SIZE];
        let mut put = |o: usize, v: &[u8]| b[o..o + v.len()].copy_from_slice(v);
        for i in 0..32 {
            put(off::GPR + 8 * i, &self.gpr[i].to_be_bytes());
            put(off::FPR + 8 * i, &self.fpr[i].to_be_bytes());
            put(off::VR + 16 * i, &self.vr[i].to_be_bytes());
        }
        put(off::CR, &u64::from(self.cr).to_be_bytes());
        put(off::XER, &self.xer.to_be_bytes());
        put(off::LR, &self.lr.to_be_bytes());
        put(off::CTR, &self.ctr.to_be_bytes());
        put(off::FPSCR, &self.fpscr.to_be_bytes());
        put(off::VRSAVE, &u64::from(self.vrsave).to_be_bytes());
        put(off::VSCR, &u128::from(self.vscr).to_be_bytes());
        put(off::NEXT, &self.next.to_be_bytes());
        put(off::MEM, &self.mem);
        b
    }

    /// Parses a record.
    pub fn from_record(b: &[u8]) -> State {
        let mut s = State::default();
        for i in 0..32 {
            s.gpr[i] = rd64(b, off::GPR + 8 * i);
            s.fpr[i] = rd64(b, off::FPR + 8 * i);
            s.vr[i] = u128::from_be_bytes(
                b[off::VR + 16 * i..off::VR + 16 * i + 16]
                    .try_into()
                    .unwrap(),
            );
        }
        s.cr = rd64(b, off::CR) as u32;
        s.xer = rd64(b, off::XER);
        s.lr = rd64(b, off::LR);
        s.ctr = rd64(b, off::CTR);
        s.fpscr = rd64(b, off::FPSCR);
        s.vrsave = rd64(b, off::VRSAVE) as u32;
        s.vscr = u128::from_be_bytes(b[off::VSCR..off::VSCR + 16].try_into().unwrap()) as u32;
        s.next = rd64(b, off::NEXT);
        s.mem.copy_from_slice(&b[off::MEM..off::MEM + MEM_SIZE]);
        s
    }

    /// Loads this state into a context (the memory window is written by the
    /// caller).
    pub fn to_context(&self, ctx: &mut PpuContext) {
        ctx.gpr = self.gpr;
        for i in 0..32 {
            ctx.set_fpr_bits(i, self.fpr[i]);
            ctx.vr[i] = V128(self.vr[i]);
        }
        ctx.set_cr_word(self.cr);
        ctx.set_xer(self.xer);
        ctx.lr = self.lr;
        ctx.ctr = self.ctr;
        // The harness loads FPSCR with `mtfsf 0xff`, which computes VX and FEX.
        ctx.fpscr = 0;
        crate::helpers::fpu::mtfsf(&mut ctx.fpscr, 0xFF, self.fpscr);
        ctx.vrsave = self.vrsave;
        ctx.vscr = self.vscr;
    }

    /// Reads a context (and the memory window, passed in) into a state.
    pub fn from_context(ctx: &PpuContext, mem: [u8; MEM_SIZE], next: u64) -> State {
        State {
            gpr: ctx.gpr,
            fpr: std::array::from_fn(|i| ctx.fpr_bits(i)),
            vr: std::array::from_fn(|i| ctx.vr[i].0),
            cr: ctx.cr_word(),
            xer: ctx.xer(),
            lr: ctx.lr,
            ctr: ctx.ctr,
            fpscr: u64::from(ctx.fpscr),
            vrsave: ctx.vrsave,
            vscr: ctx.vscr,
            next,
            mem,
        }
    }
}

/// Fields that a case does not compare (undefined by the architecture, or
/// belonging to the harness).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ignore {
    /// GPRs not compared (bit n = rn). r1, r2, r13, r31 always are ignored.
    pub gpr: u32,
    /// FPRs not compared.
    pub fpr: u32,
    /// Per-VR byte masks of what to compare (0 = all of it).
    pub vr_keep: Option<(usize, u128)>,
    /// FPSCR bits not compared.
    pub fpscr: u32,
    /// XER bits not compared.
    pub xer: u64,
    /// CR bits not compared.
    pub cr: u32,
}

/// XER bits the Cell does not have but qemu's POWER9 model sets (OV32,
/// CA32): never compared.
pub const XER_POWER9_ONLY: u64 = 3 << 18;

/// FPSCR bits qemu does not model (FR: qemu never sets it), never compared;
/// unit tests check them.
pub const FPSCR_NOT_MODELED: u32 = 1 << 18;

/// Harness registers: r1 (stack), r2 (TOC), r13 (thread pointer), r31
/// (record pointer).
pub const HARNESS_GPRS: u32 = 1 << 1 | 1 << 2 | 1 << 13 | 1 << 31;

/// Lists the differences between `want` and `got`, empty when they agree.
pub fn diff(want: &State, got: &State, ig: &Ignore) -> Vec<String> {
    let mut d = Vec::new();
    for i in 0..32 {
        if (HARNESS_GPRS | ig.gpr) & (1 << i) == 0 && want.gpr[i] != got.gpr[i] {
            d.push(format!(
                "r{i}: want {:#018x} got {:#018x}",
                want.gpr[i], got.gpr[i]
            ));
        }
        if ig.fpr & (1 << i) == 0 && want.fpr[i] != got.fpr[i] {
            d.push(format!(
                "f{i}: want {:#018x} ({:e}) got {:#018x} ({:e})",
                want.fpr[i],
                f64::from_bits(want.fpr[i]),
                got.fpr[i],
                f64::from_bits(got.fpr[i])
            ));
        }
        let keep = match ig.vr_keep {
            Some((r, m)) if r == i => m,
            _ => u128::MAX,
        };
        if want.vr[i] & keep != got.vr[i] & keep {
            d.push(format!(
                "v{i}: want {:032x} got {:032x}",
                want.vr[i], got.vr[i]
            ));
        }
    }
    if want.cr & !ig.cr != got.cr & !ig.cr {
        d.push(format!("cr: want {:08x} got {:08x}", want.cr, got.cr));
    }
    let xm = !(XER_POWER9_ONLY | ig.xer);
    if want.xer & xm != got.xer & xm {
        d.push(format!(
            "xer: want {:x} got {:x}",
            want.xer & xm,
            got.xer & xm
        ));
    }
    if want.lr != got.lr {
        d.push(format!("lr: want {:#x} got {:#x}", want.lr, got.lr));
    }
    if want.ctr != got.ctr {
        d.push(format!("ctr: want {:#x} got {:#x}", want.ctr, got.ctr));
    }
    let fm = !(ig.fpscr | FPSCR_NOT_MODELED);
    if (want.fpscr as u32) & fm != (got.fpscr as u32) & fm {
        d.push(format!(
            "fpscr: want {:08x} got {:08x}",
            want.fpscr as u32 & fm,
            got.fpscr as u32 & fm
        ));
    }
    if want.vrsave != got.vrsave {
        d.push(format!(
            "vrsave: want {:x} got {:x}",
            want.vrsave, got.vrsave
        ));
    }
    if want.vscr != got.vscr {
        d.push(format!("vscr: want {:x} got {:x}", want.vscr, got.vscr));
    }
    if want.next != got.next {
        d.push(format!(
            "next pc: want slot+{} got slot+{}",
            want.next, got.next
        ));
    }
    if want.mem != got.mem {
        let first = (0..MEM_SIZE)
            .find(|&k| want.mem[k] != got.mem[k])
            .unwrap_or(0);
        let end = (first + 16).min(MEM_SIZE);
        d.push(format!(
            "memory at {:#x}: want {:02x?} got {:02x?}",
            MEM_BASE as usize + first,
            &want.mem[first..end],
            &got.mem[first..end]
        ));
    }
    d
}
