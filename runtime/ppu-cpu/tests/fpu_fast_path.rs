//! The FPU fast paths against the exact reference, bit for bit (result and
//! FPSCR), over edge values and random operands in every rounding mode.

use ppu_cpu::helpers::fpu::{self, fast, reference};
use ppu_cpu::helpers::softfloat::Prec;

const EDGES: &[u64] = &[
    0,
    1 << 63,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x3FE0_0000_0000_0000,
    0x3FF8_0000_0000_0000,
    0x4330_0000_0000_0001,
    0x7FF0_0000_0000_0000,
    0x7FF8_0000_0000_0000,
    0x7FF0_0000_0000_0001,
    1,
    0x000F_FFFF_FFFF_FFFF,
    0x0010_0000_0000_0000,
    0x7FEF_FFFF_FFFF_FFFF,
    0x47EF_FFFF_E000_0000,
    0x47EF_FFFF_F000_0000,
    0x3810_0000_0000_0000,
    0x36A0_0000_0000_0000,
    0x3FF0_0000_1000_0000,
    0x3FF0_0000_1000_0001,
    0x3FF0_0000_3000_0000,
    0x3FF0_0000_0000_0001,
    0x0360_0000_0000_0000,
    0x7E20_0000_0000_0000,
    0x41E0_0000_0000_0000,
    0xC1E0_0000_0000_0000,
    0x43E0_0000_0000_0000,
    0x3FD5_5555_5555_5555,
    0x4000_0000_0000_0000,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn val(&mut self) -> f64 {
        let bits = match self.next() % 4 {
            0 => EDGES[(self.next() % EDGES.len() as u64) as usize],
            1 => (self.next() & 0x800F_FFFF_FFFF_FFFF) | (1023 - 30 + self.next() % 60) << 52,
            2 => (self.next() & 0x800F_FFFF_0000_0000) | (1023 - 10 + self.next() % 20) << 52, // short mantissas: exact cases
            _ => self.next(),
        };
        f64::from_bits(bits)
    }
    fn fpscr(&mut self) -> u32 {
        let rn = if self.next().is_multiple_of(4) {
            (self.next() % 4) as u32
        } else {
            0
        };
        let sticky = if self.next().is_multiple_of(2) {
            0
        } else {
            (self.next() as u32 & 0x1FF8_1700) | 0x8000_0000
        };
        // A consistent FPSCR (VX and FEX summarised), as every instruction
        // leaves it.
        let mut f = rn | sticky;
        fpu::summarize(&mut f);
        f
    }
}

type Two = fn(&mut u32, f64, f64) -> f64;
type Three = fn(&mut u32, f64, f64, f64) -> f64;
type One = fn(&mut u32, f64) -> f64;
type FastTwo = fn(u32, f64, f64) -> Option<(f64, u32)>;
type FastOne = fn(u32, f64) -> Option<(f64, u32)>;

#[test]
fn fast_paths_agree_with_the_reference() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let two: &[(&str, FastTwo, Two)] = &[
        (
            "fadd",
            |f, a, b| fast::add(f, a, b, Prec::Double),
            reference::fadd,
        ),
        (
            "fadds",
            |f, a, b| fast::add(f, a, b, Prec::Single),
            reference::fadds,
        ),
        (
            "fsub",
            |f, a, b| fast::sub(f, a, b, Prec::Double),
            reference::fsub,
        ),
        (
            "fsubs",
            |f, a, b| fast::sub(f, a, b, Prec::Single),
            reference::fsubs,
        ),
        (
            "fmul",
            |f, a, b| fast::mul(f, a, b, Prec::Double),
            reference::fmul,
        ),
        (
            "fmuls",
            |f, a, b| fast::mul(f, a, b, Prec::Single),
            reference::fmuls,
        ),
        (
            "fdiv",
            |f, a, b| fast::div(f, a, b, Prec::Double),
            reference::fdiv,
        ),
        (
            "fdivs",
            |f, a, b| fast::div(f, a, b, Prec::Single),
            reference::fdivs,
        ),
    ];
    let one: &[(&str, FastOne, One)] = &[
        (
            "fsqrt",
            |f, b| fast::sqrt(f, b, Prec::Double),
            reference::fsqrt,
        ),
        (
            "fsqrts",
            |f, b| fast::sqrt(f, b, Prec::Single),
            reference::fsqrts,
        ),
        ("frsp", fast::frsp, reference::frsp),
        (
            "fctiwz",
            |f, b| fast::to_int_zero(f, b, 32),
            reference::fctiwz,
        ),
        (
            "fctidz",
            |f, b| fast::to_int_zero(f, b, 64),
            reference::fctidz,
        ),
        ("fcfid", fast::fcfid, reference::fcfid),
    ];
    let three: &[(&str, bool, bool, Three)] = &[
        ("fmadds", false, false, reference::fmadds),
        ("fmsubs", true, false, reference::fmsubs),
        ("fnmadds", false, true, reference::fnmadds),
        ("fnmsubs", true, true, reference::fnmsubs),
    ];
    let mut bad = Vec::new();
    let mut taken = 0usize;
    for _ in 0..40_000 {
        let (a, b, c, f0) = (rng.val(), rng.val(), rng.val(), rng.fpscr());
        let mut check = |name: &str, got: Option<(f64, u32)>, want: (f64, u32)| {
            if let Some((r, f)) = got {
                taken += 1;
                if r.to_bits() != want.0.to_bits() || f != want.1 {
                    bad.push(format!(
                        "{name}({a:e} [{:#x}], {b:e} [{:#x}], {c:e}) fpscr {f0:08x}: fast {:#x}/{f:08x} reference {:#x}/{:08x}",
                        a.to_bits(),
                        b.to_bits(),
                        r.to_bits(),
                        want.0.to_bits(),
                        want.1
                    ));
                }
            }
        };
        for (name, fast, refr) in two {
            let mut f = f0;
            let w = refr(&mut f, a, b);
            check(name, fast(f0, a, b), (w, f));
        }
        for (name, fast, refr) in one {
            let mut f = f0;
            let w = refr(&mut f, b);
            check(name, fast(f0, b), (w, f));
        }
        for (name, sub, neg, refr) in three {
            let mut f = f0;
            let w = refr(&mut f, a, c, b);
            check(name, fast::fma_single(f0, a, c, b, *sub, *neg), (w, f));
        }
    }
    assert!(
        bad.is_empty(),
        "{} differences, e.g.:\n{}",
        bad.len(),
        bad.iter().take(12).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(
        taken > 200_000,
        "the fast paths were taken only {taken} times"
    );
}

#[test]
fn both_mode_uses_the_reference_result() {
    fpu::set_impl(fpu::Impl::Both);
    let mut f = 0;
    assert_eq!(fpu::fadd(&mut f, 1.0, 2.0f64.powi(-60)), 1.0);
    assert_eq!(f & fpu::bits::XX, fpu::bits::XX);
    fpu::set_impl(fpu::Impl::Fast);
}

/// `fpu::status_dead` (what the lifter uses where a later operation of the
/// block overwrites FI, FR and FPRF): the same result bits as the reference
/// and the same FPSCR except those three fields, from any FPSCR.
#[test]
fn status_dead_forms_agree_with_the_reference_but_for_fi_fr_fprf() {
    use fpu::bits::{FI, FPRF, FR, XX};
    let mut rng = Rng(0x0BAD_5EED_1234_5678);
    let two: &[(&str, Two, Two)] = &[
        ("fadd", fpu::status_dead::fadd, reference::fadd),
        ("fsub", fpu::status_dead::fsub, reference::fsub),
        ("fmul", fpu::status_dead::fmul, reference::fmul),
        ("fdiv", fpu::status_dead::fdiv, reference::fdiv),
    ];
    let mask = !(FI | FR | FPRF);
    let mut quiet = 0u32;
    for _ in 0..200_000 {
        let (a, b) = (rng.val(), rng.val());
        let mut f0 = rng.fpscr();
        // Most of the time XX is already set, as in a program that has
        // run any inexact operation: the quiet path's condition.
        if !rng.next().is_multiple_of(4) {
            f0 |= XX | 0x8000_0000;
            fpu::summarize(&mut f0);
        }
        for (name, dead, refr) in two {
            let (mut fd, mut fr) = (f0, f0);
            let (rd, rr) = (dead(&mut fd, a, b), refr(&mut fr, a, b));
            assert_eq!(
                rd.to_bits(),
                rr.to_bits(),
                "{name}({a:e}, {b:e}) fpscr {f0:08x}: result"
            );
            assert_eq!(
                fd & mask,
                fr & mask,
                "{name}({a:e}, {b:e}) fpscr {f0:08x}: FPSCR {fd:08x} against {fr:08x}"
            );
            quiet += u32::from(fd == f0 && fr != f0);
        }
        let mut fd = f0;
        let mut fr = f0;
        let (rd, rr) = (
            fpu::status_dead::fcfid(&mut fd, b),
            reference::fcfid(&mut fr, b),
        );
        assert_eq!(rd.to_bits(), rr.to_bits(), "fcfid({:#x})", b.to_bits());
        assert_eq!(
            fd & mask,
            fr & mask,
            "fcfid({:#x}) fpscr {f0:08x}",
            b.to_bits()
        );
    }
    // The quiet path ran (FPSCR left alone where the reference changed
    // FI/FR/FPRF), so the comparison above covered it.
    assert!(quiet > 10_000, "quiet path taken {quiet} times");
}
