//! FPU semantics with the FPSCR: arithmetic, conversions, compares, moves to
//! and from the FPSCR. Each arithmetic helper takes the FPSCR by reference
//! and updates it as the PowerISA says (sticky exception bits, FX, VX, FEX,
//! FR, FI, FPRF), computing its result through [`super::softfloat`] in the
//! rounding mode FPSCR[RN] selects.
//!
//! Enabled exceptions (VE, OE, UE, ZE, XE set) change FEX but not the
//! result: LV2 and Linux run with floating-point interrupts off, where the
//! hardware still writes the target.

use super::softfloat::{self as sf, Exact, Mode, Prec, Rounded};

/// FPSCR bit masks (PowerISA bit n of the 32-bit FPSCR is `1 << (31 - n)`).
pub mod bits {
    /// Exception summary.
    pub const FX: u32 = 1 << 31;
    /// Enabled exception summary.
    pub const FEX: u32 = 1 << 30;
    /// Invalid operation summary.
    pub const VX: u32 = 1 << 29;
    /// Overflow.
    pub const OX: u32 = 1 << 28;
    /// Underflow.
    pub const UX: u32 = 1 << 27;
    /// Zero divide.
    pub const ZX: u32 = 1 << 26;
    /// Inexact.
    pub const XX: u32 = 1 << 25;
    /// Invalid: signaling NaN.
    pub const VXSNAN: u32 = 1 << 24;
    /// Invalid: infinity - infinity.
    pub const VXISI: u32 = 1 << 23;
    /// Invalid: infinity / infinity.
    pub const VXIDI: u32 = 1 << 22;
    /// Invalid: zero / zero.
    pub const VXZDZ: u32 = 1 << 21;
    /// Invalid: infinity × zero.
    pub const VXIMZ: u32 = 1 << 20;
    /// Invalid compare.
    pub const VXVC: u32 = 1 << 19;
    /// Fraction rounded.
    pub const FR: u32 = 1 << 18;
    /// Fraction inexact.
    pub const FI: u32 = 1 << 17;
    /// Result flags (C and FPCC).
    pub const FPRF: u32 = 0x1F << 12;
    /// FPCC alone (FL FG FE FU).
    pub const FPCC: u32 = 0xF << 12;
    /// Invalid: software request.
    pub const VXSOFT: u32 = 1 << 10;
    /// Invalid: square root of a negative number.
    pub const VXSQRT: u32 = 1 << 9;
    /// Invalid: integer conversion.
    pub const VXCVI: u32 = 1 << 8;
    /// Invalid operation enable.
    pub const VE: u32 = 1 << 7;
    /// Overflow enable.
    pub const OE: u32 = 1 << 6;
    /// Underflow enable.
    pub const UE: u32 = 1 << 5;
    /// Zero divide enable.
    pub const ZE: u32 = 1 << 4;
    /// Inexact enable.
    pub const XE: u32 = 1 << 3;
    /// Non-IEEE mode.
    pub const NI: u32 = 1 << 2;
    /// Rounding mode.
    pub const RN: u32 = 3;
    /// All the invalid-operation bits.
    pub const VX_ALL: u32 = VXSNAN | VXISI | VXIDI | VXZDZ | VXIMZ | VXVC | VXSOFT | VXSQRT | VXCVI;
    /// The reserved bit (20), which stays 0.
    pub const RESERVED: u32 = 1 << 11;
    /// All the sticky exception bits (those whose 0→1 sets FX).
    pub const EXC: u32 = OX | UX | ZX | XX | VX_ALL;
}
use bits::*;

const QNAN_BIT: u64 = 1 << 51;
/// The default quiet NaN the PowerPC produces for an invalid operation.
pub const DEFAULT_NAN: u64 = 0x7FF8_0000_0000_0000;

#[inline(always)]
fn is_nan(b: u64) -> bool {
    b & 0x7FFF_FFFF_FFFF_FFFF > 0x7FF0_0000_0000_0000
}
#[inline(always)]
fn is_snan(b: u64) -> bool {
    is_nan(b) && b & QNAN_BIT == 0
}
#[inline(always)]
fn is_inf(b: u64) -> bool {
    b & 0x7FFF_FFFF_FFFF_FFFF == 0x7FF0_0000_0000_0000
}
#[inline(always)]
fn is_zero(b: u64) -> bool {
    b & 0x7FFF_FFFF_FFFF_FFFF == 0
}
#[inline(always)]
fn neg(b: u64) -> bool {
    b >> 63 != 0
}

/// Sets exception bits `ex` in the FPSCR: sticky bits, FX on a new one, VX
/// and FEX recomputed.
#[inline]
pub fn raise(fpscr: &mut u32, ex: u32) {
    let new = ex & !*fpscr & EXC;
    *fpscr |= ex;
    if new != 0 {
        *fpscr |= FX;
    }
    summarize(fpscr);
}

/// Recomputes VX and FEX from the other bits.
#[inline]
pub fn summarize(fpscr: &mut u32) {
    let mut f = *fpscr & !(VX | FEX);
    if f & VX_ALL != 0 {
        f |= VX;
    }
    let en = (f & VX != 0 && f & VE != 0)
        || (f & OX != 0 && f & OE != 0)
        || (f & UX != 0 && f & UE != 0)
        || (f & ZX != 0 && f & ZE != 0)
        || (f & XX != 0 && f & XE != 0);
    if en {
        f |= FEX;
    }
    *fpscr = f;
}

/// CR1 of a record-form floating-point instruction: FX, FEX, VX, OX.
#[inline(always)]
pub fn cr1(fpscr: u32) -> u32 {
    fpscr >> 28
}

/// The FPRF code (C and FPCC, five bits) of a double.
#[inline]
pub fn fprf_of(b: u64) -> u32 {
    let n = neg(b);
    if is_nan(b) {
        0x11
    } else if is_inf(b) {
        if n { 0x09 } else { 0x05 }
    } else if is_zero(b) {
        if n { 0x12 } else { 0x02 }
    } else if b & 0x7FF0_0000_0000_0000 == 0 {
        if n { 0x18 } else { 0x14 }
    } else if n {
        0x08
    } else {
        0x04
    }
}

#[inline]
fn set_fprf(fpscr: &mut u32, code: u32) {
    *fpscr = (*fpscr & !FPRF) | (code << 12);
}

fn quiet(b: u64) -> u64 {
    b | QNAN_BIT
}

/// Rounds a double (NaN) result to single: the NaN keeps the payload bits a
/// single can hold.
fn nan_to_single(b: u64) -> u64 {
    b & 0xFFFF_FFFF_E000_0000
}

fn mode(fpscr: u32) -> Mode {
    Mode::from_rn(fpscr & RN)
}

/// Applies a rounding's flags and the FPRF of its result.
fn finish(fpscr: &mut u32, r: Rounded, prec: Prec) -> f64 {
    let mut ex = 0;
    if r.overflow {
        ex |= OX;
    }
    if r.underflow {
        ex |= UX;
    }
    if r.inexact {
        ex |= XX;
    }
    *fpscr &= !(FR | FI);
    if r.inexact {
        *fpscr |= FI;
    }
    if r.fr {
        *fpscr |= FR;
    }
    raise(fpscr, ex);
    // A single-precision result is classified as the double it is stored
    // as (what qemu does; a single denormal counts as a normal double).
    let _ = prec;
    set_fprf(fpscr, fprf_of(r.bits));
    f64::from_bits(r.bits)
}

/// Result of an invalid operation: default NaN, FR/FI cleared, FPRF QNaN.
fn invalid(fpscr: &mut u32, ex: u32) -> f64 {
    *fpscr &= !(FR | FI);
    raise(fpscr, ex);
    set_fprf(fpscr, 0x11);
    f64::from_bits(DEFAULT_NAN)
}

/// Result that is an exact special value (NaN propagation, infinities,
/// zeros): FR/FI cleared, FPRF set.
fn special(fpscr: &mut u32, ex: u32, b: u64, prec: Prec) -> f64 {
    let b = if prec == Prec::Single && is_nan(b) {
        nan_to_single(b)
    } else {
        b
    };
    *fpscr &= !(FR | FI);
    raise(fpscr, ex);
    set_fprf(fpscr, fprf_of(b));
    f64::from_bits(b)
}

/// Propagates the first NaN among `ops` (quieted), with VXSNAN if any is
/// signaling. None if no operand is a NaN.
fn nan_operand(fpscr: &mut u32, ops: &[u64], prec: Prec) -> Option<f64> {
    let first = ops.iter().copied().find(|&b| is_nan(b))?;
    let ex = if ops.iter().any(|&b| is_snan(b)) {
        VXSNAN
    } else {
        0
    };
    Some(special(fpscr, ex, quiet(first), prec))
}

fn signed_zero_sum(fpscr: u32, a_neg: bool, b_neg: bool) -> u64 {
    if a_neg == b_neg {
        u64::from(a_neg) << 63
    } else if mode(fpscr) == Mode::Down {
        1 << 63
    } else {
        0
    }
}

fn add_impl(fpscr: &mut u32, a: u64, b: u64, prec: Prec) -> f64 {
    if let Some(r) = nan_operand(fpscr, &[a, b], prec) {
        return r;
    }
    match (is_inf(a), is_inf(b)) {
        (true, true) if neg(a) != neg(b) => return invalid(fpscr, VXISI),
        (true, _) => return special(fpscr, 0, a, prec),
        (_, true) => return special(fpscr, 0, b, prec),
        _ => {}
    }
    let exact = match (is_zero(a), is_zero(b)) {
        (true, true) => return special(fpscr, 0, signed_zero_sum(*fpscr, neg(a), neg(b)), prec),
        (true, false) => sf::unpack(b),
        (false, true) => sf::unpack(a),
        (false, false) => match sf::add(sf::unpack(a), sf::unpack(b)) {
            Some(e) => e,
            None => return special(fpscr, 0, signed_zero_sum(*fpscr, neg(a), neg(b)), prec),
        },
    };
    let r = sf::round(exact, prec, mode(*fpscr));
    finish(fpscr, r, prec)
}

fn mul_impl(fpscr: &mut u32, a: u64, c: u64, prec: Prec) -> f64 {
    if let Some(r) = nan_operand(fpscr, &[a, c], prec) {
        return r;
    }
    let sign = (a ^ c) & (1 << 63);
    if (is_inf(a) && is_zero(c)) || (is_zero(a) && is_inf(c)) {
        return invalid(fpscr, VXIMZ);
    }
    if is_inf(a) || is_inf(c) {
        return special(fpscr, 0, sign | 0x7FF0_0000_0000_0000, prec);
    }
    if is_zero(a) || is_zero(c) {
        return special(fpscr, 0, sign, prec);
    }
    let r = sf::round(sf::mul(sf::unpack(a), sf::unpack(c)), prec, mode(*fpscr));
    finish(fpscr, r, prec)
}

fn div_impl(fpscr: &mut u32, a: u64, b: u64, prec: Prec) -> f64 {
    if let Some(r) = nan_operand(fpscr, &[a, b], prec) {
        return r;
    }
    let sign = (a ^ b) & (1 << 63);
    match (is_inf(a), is_inf(b), is_zero(a), is_zero(b)) {
        (true, true, _, _) => return invalid(fpscr, VXIDI),
        (_, _, true, true) => return invalid(fpscr, VXZDZ),
        (true, _, _, _) => return special(fpscr, 0, sign | 0x7FF0_0000_0000_0000, prec),
        (_, true, _, _) | (_, _, true, _) => return special(fpscr, 0, sign, prec),
        (_, _, _, true) => return special(fpscr, ZX, sign | 0x7FF0_0000_0000_0000, prec),
        _ => {}
    }
    let r = sf::round(sf::div(sf::unpack(a), sf::unpack(b)), prec, mode(*fpscr));
    finish(fpscr, r, prec)
}

fn sqrt_impl(fpscr: &mut u32, b: u64, prec: Prec) -> f64 {
    if let Some(r) = nan_operand(fpscr, &[b], prec) {
        return r;
    }
    if is_zero(b) {
        return special(fpscr, 0, b, prec);
    }
    if neg(b) {
        return invalid(fpscr, VXSQRT);
    }
    if is_inf(b) {
        return special(fpscr, 0, b, prec);
    }
    let r = sf::round(sf::sqrt(sf::unpack(b)), prec, mode(*fpscr));
    finish(fpscr, r, prec)
}

/// a × c + b, optionally negating the addend and the result.
fn fma_impl(fpscr: &mut u32, a: u64, c: u64, b: u64, sub: bool, negate: bool, prec: Prec) -> f64 {
    let negr = |v: f64| {
        if negate && !v.is_nan() { -v } else { v }
    };
    if let Some(r) = nan_operand(fpscr, &[a, b, c], prec) {
        // A SNaN among the operands also counts, and the NaN is not negated.
        return r;
    }
    let b = if sub { b ^ (1 << 63) } else { b };
    let psign = (a ^ c) & (1 << 63) != 0;
    if (is_inf(a) && is_zero(c)) || (is_zero(a) && is_inf(c)) {
        return invalid(fpscr, VXIMZ);
    }
    let prod_inf = is_inf(a) || is_inf(c);
    if prod_inf {
        if is_inf(b) && neg(b) != psign {
            return invalid(fpscr, VXISI);
        }
        let v = special(
            fpscr,
            0,
            u64::from(psign) << 63 | 0x7FF0_0000_0000_0000,
            prec,
        );
        return negr_fix(fpscr, negr(v), negate);
    }
    if is_inf(b) {
        let v = special(fpscr, 0, b, prec);
        return negr_fix(fpscr, negr(v), negate);
    }
    let prod_zero = is_zero(a) || is_zero(c);
    let exact = match (prod_zero, is_zero(b)) {
        (true, true) => {
            let z = signed_zero_sum(*fpscr, psign, neg(b));
            let v = special(fpscr, 0, z, prec);
            return negr_fix(fpscr, negr(v), negate);
        }
        (true, false) => sf::unpack(b),
        (false, true) => sf::mul(sf::unpack(a), sf::unpack(c)),
        (false, false) => match sf::add(sf::mul(sf::unpack(a), sf::unpack(c)), sf::unpack(b)) {
            Some(e) => e,
            None => {
                let z = signed_zero_sum(*fpscr, psign, neg(b));
                let v = special(fpscr, 0, z, prec);
                return negr_fix(fpscr, negr(v), negate);
            }
        },
    };
    let mut exact = exact;
    if negate {
        // Round the negated value so directed modes round the right way.
        exact.neg = !exact.neg;
    }
    let r = sf::round(exact, prec, mode(*fpscr));
    finish(fpscr, r, prec)
}

/// After negating a special result, FPRF must describe the negated value.
fn negr_fix(fpscr: &mut u32, v: f64, negate: bool) -> f64 {
    if negate {
        let b = v.to_bits();
        set_fprf(fpscr, fprf_of(b));
    }
    v
}

macro_rules! binop {
    ($(#[$m:meta])* $name:ident, $names:ident, $imp:ident, $fast:ident) => {
        $(#[$m])*
        #[inline]
        pub fn $name(fpscr: &mut u32, a: f64, b: f64) -> f64 {
            dispatch(stringify!($name), fpscr, |f| fast::$fast(f, a, b, Prec::Double), |f| $imp(f, a.to_bits(), b.to_bits(), Prec::Double))
        }
        $(#[$m])*
        /// (Single precision.)
        #[inline]
        pub fn $names(fpscr: &mut u32, a: f64, b: f64) -> f64 {
            dispatch(stringify!($names), fpscr, |f| fast::$fast(f, a, b, Prec::Single), |f| $imp(f, a.to_bits(), b.to_bits(), Prec::Single))
        }
    };
}

binop!(
    /// `fadd`: a + b.
    fadd, fadds, add_impl, add
);
binop!(
    /// `fmul`: a × c.
    fmul, fmuls, mul_impl, mul
);
binop!(
    /// `fdiv`: a / b.
    fdiv, fdivs, div_impl, div
);

fn sub_impl(fpscr: &mut u32, a: u64, b: u64, prec: Prec) -> f64 {
    // NaN operands propagate unchanged (b is not negated then).
    if is_nan(b) || is_nan(a) {
        return add_impl(fpscr, a, b, prec);
    }
    add_impl(fpscr, a, b ^ (1 << 63), prec)
}
binop!(
    /// `fsub`: a - b.
    fsub, fsubs, sub_impl, sub
);

/// `fsqrt`.
#[inline]
pub fn fsqrt(fpscr: &mut u32, b: f64) -> f64 {
    dispatch(
        "fsqrt",
        fpscr,
        |f| fast::sqrt(f, b, Prec::Double),
        |f| sqrt_impl(f, b.to_bits(), Prec::Double),
    )
}
/// `fsqrts`.
#[inline]
pub fn fsqrts(fpscr: &mut u32, b: f64) -> f64 {
    dispatch(
        "fsqrts",
        fpscr,
        |f| fast::sqrt(f, b, Prec::Single),
        |f| sqrt_impl(f, b.to_bits(), Prec::Single),
    )
}

macro_rules! fmaop {
    ($(#[$m:meta])* $name:ident, $names:ident, $sub:expr, $neg:expr) => {
        $(#[$m])*
        #[inline]
        pub fn $name(fpscr: &mut u32, a: f64, c: f64, b: f64) -> f64 {
            dispatch(stringify!($name), fpscr, |_| None, |f| fma_impl(f, a.to_bits(), c.to_bits(), b.to_bits(), $sub, $neg, Prec::Double))
        }
        $(#[$m])*
        /// (Single precision.)
        #[inline]
        pub fn $names(fpscr: &mut u32, a: f64, c: f64, b: f64) -> f64 {
            dispatch(stringify!($names), fpscr, |f| fast::fma_single(f, a, c, b, $sub, $neg), |f| fma_impl(f, a.to_bits(), c.to_bits(), b.to_bits(), $sub, $neg, Prec::Single))
        }
    };
}

fmaop!(
    /// `fmadd`: a × c + b, rounded once.
    fmadd, fmadds, false, false
);
fmaop!(
    /// `fmsub`: a × c - b.
    fmsub, fmsubs, true, false
);
fmaop!(
    /// `fnmadd`: -(a × c + b).
    fnmadd, fnmadds, false, true
);
fmaop!(
    /// `fnmsub`: -(a × c - b).
    fnmsub, fnmsubs, true, true
);

/// `frsp`: round to single precision.
#[inline]
pub fn frsp(fpscr: &mut u32, b: f64) -> f64 {
    dispatch("frsp", fpscr, |f| fast::frsp(f, b), |f| frsp_soft(f, b))
}

fn frsp_soft(fpscr: &mut u32, b: f64) -> f64 {
    let bb = b.to_bits();
    if let Some(r) = nan_operand(fpscr, &[bb], Prec::Single) {
        return r;
    }
    if is_inf(bb) || is_zero(bb) {
        return special(fpscr, 0, bb, Prec::Single);
    }
    let r = sf::round(sf::unpack(bb), Prec::Single, mode(*fpscr));
    finish(fpscr, r, Prec::Single)
}

/// `fres`: reciprocal estimate, computed as qemu does (the exact quotient
/// 1/b rounded to single precision).
#[inline]
pub fn fres(fpscr: &mut u32, b: f64) -> f64 {
    div_impl(fpscr, 1f64.to_bits(), b.to_bits(), Prec::Single)
}

/// `frsqrte`: reciprocal square root estimate, computed as qemu does
/// (1 / sqrt(b), each step rounded to double).
#[inline]
pub fn frsqrte(fpscr: &mut u32, b: f64) -> f64 {
    let bb = b.to_bits();
    if let Some(r) = nan_operand(fpscr, &[bb], Prec::Double) {
        return r;
    }
    if is_zero(bb) {
        return special(
            fpscr,
            ZX,
            (bb & (1 << 63)) | 0x7FF0_0000_0000_0000,
            Prec::Double,
        );
    }
    if neg(bb) {
        return invalid(fpscr, VXSQRT);
    }
    if is_inf(bb) {
        return special(fpscr, 0, 0, Prec::Double);
    }
    // As qemu: sqrt, then 1/x, each rounded; the inexact flag of either
    // step counts.
    let mut scratch = *fpscr;
    let s = sqrt_impl(&mut scratch, bb, Prec::Double);
    let sqrt_inexact = scratch & FI != 0;
    let r = div_impl(fpscr, 1f64.to_bits(), s.to_bits(), Prec::Double);
    if sqrt_inexact {
        *fpscr |= FI;
        raise(fpscr, XX);
    }
    r
}

/// `fsel`: c if a ≥ 0 (a not a NaN; -0 counts), else b. No exceptions.
#[inline(always)]
pub fn fsel(a: f64, c: f64, b: f64) -> f64 {
    if a >= 0.0 { c } else { b }
}

/// Converts to an integer of `bits` bits (32 or 64), rounding as `mode`.
fn to_int(fpscr: &mut u32, b: f64, bits: u32, m: Mode) -> f64 {
    let bb = b.to_bits();
    let (min, max) = if bits == 32 {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        (i64::MIN, i64::MAX)
    };
    // An invalid conversion: FPRF (undefined in the ISA) is set to the
    // quiet-NaN class, as qemu does; the saturated result is sign-extended,
    // except a NaN's, whose fctiw result is 0x0000_0000_8000_0000.
    let sat = |fpscr: &mut u32, v: i64, ex: u32| {
        *fpscr &= !(FR | FI);
        raise(fpscr, ex | VXCVI);
        set_fprf(fpscr, 0x11);
        let r = if bits == 32 {
            v as i32 as i64 as u64
        } else {
            v as u64
        };
        f64::from_bits(r)
    };
    if is_nan(bb) {
        let r = sat(fpscr, min, if is_snan(bb) { VXSNAN } else { 0 });
        return if bits == 32 {
            f64::from_bits(r.to_bits() & 0xFFFF_FFFF)
        } else {
            r
        };
    }
    if is_inf(bb) {
        return sat(fpscr, if neg(bb) { min } else { max }, 0);
    }
    let (v, inexact, fr) = if is_zero(bb) {
        (0i128, false, false)
    } else {
        let e = sf::unpack(bb);
        // Integer part and the dropped fraction.
        let (ip, frac_half, frac_rest) = if e.exp >= 0 {
            if e.exp > 70 {
                (i128::MAX, false, false)
            } else {
                ((e.sig << e.exp) as i128, false, false)
            }
        } else {
            let sh = (-e.exp) as u32;
            if sh >= 120 {
                (0, false, true)
            } else {
                let ip = (e.sig >> sh) as i128;
                let rem = e.sig & ((1u128 << sh) - 1);
                let half = 1u128 << (sh - 1);
                (ip, rem & half != 0, rem & (half - 1) != 0)
            }
        };
        let inexact = frac_half || frac_rest;
        let inc = match m {
            Mode::Nearest => frac_half && (frac_rest || ip & 1 == 1),
            Mode::Zero => false,
            Mode::Up => inexact && !e.neg,
            Mode::Down => inexact && e.neg,
        };
        let mag = ip.saturating_add(i128::from(inc));
        (if e.neg { -mag } else { mag }, inexact, inc)
    };
    if v < i128::from(min) {
        return sat(fpscr, min, 0);
    }
    if v > i128::from(max) {
        return sat(fpscr, max, 0);
    }
    *fpscr &= !(FR | FI);
    if inexact {
        *fpscr |= FI;
        if fr {
            *fpscr |= FR;
        }
        raise(fpscr, XX);
    }
    // fctiw: the high word is undefined; qemu sign-extends the result.
    let r = v as i64 as u64;
    f64::from_bits(r)
}

/// `fctiw`: to a 32-bit integer in the current rounding mode.
#[inline]
pub fn fctiw(fpscr: &mut u32, b: f64) -> f64 {
    let m = mode(*fpscr);
    to_int(fpscr, b, 32, m)
}
/// `fctiwz`: to a 32-bit integer, rounding toward zero.
#[inline]
pub fn fctiwz(fpscr: &mut u32, b: f64) -> f64 {
    dispatch(
        "fctiwz",
        fpscr,
        |f| fast::to_int_zero(f, b, 32),
        |f| to_int(f, b, 32, Mode::Zero),
    )
}
/// `fctid`: to a 64-bit integer in the current rounding mode.
#[inline]
pub fn fctid(fpscr: &mut u32, b: f64) -> f64 {
    let m = mode(*fpscr);
    to_int(fpscr, b, 64, m)
}
/// `fctidz`: to a 64-bit integer, rounding toward zero.
#[inline]
pub fn fctidz(fpscr: &mut u32, b: f64) -> f64 {
    dispatch(
        "fctidz",
        fpscr,
        |f| fast::to_int_zero(f, b, 64),
        |f| to_int(f, b, 64, Mode::Zero),
    )
}

/// `fcfid`: the 64-bit integer in b's bits, converted to double.
#[inline]
pub fn fcfid(fpscr: &mut u32, b: f64) -> f64 {
    dispatch("fcfid", fpscr, |f| fast::fcfid(f, b), |f| fcfid_soft(f, b))
}

fn fcfid_soft(fpscr: &mut u32, b: f64) -> f64 {
    let v = b.to_bits() as i64;
    if v == 0 {
        return special(fpscr, 0, 0, Prec::Double);
    }
    let e = Exact {
        neg: v < 0,
        sig: u128::from(v.unsigned_abs()),
        exp: 0,
        sticky: false,
    };
    let r = sf::round(e, Prec::Double, mode(*fpscr));
    finish(fpscr, r, Prec::Double)
}

/// `fcmpu` (`ordered` false) / `fcmpo`: the CR field value, also written to
/// FPSCR[FPCC].
#[inline]
pub fn fcmp(fpscr: &mut u32, a: f64, b: f64, ordered: bool) -> u32 {
    let (ab, bb) = (a.to_bits(), b.to_bits());
    let c = if is_nan(ab) || is_nan(bb) {
        1
    } else if a < b {
        8
    } else if a > b {
        4
    } else {
        2
    };
    *fpscr = (*fpscr & !FPCC) | (c << 12);
    if c == 1 {
        let snan = is_snan(ab) || is_snan(bb);
        let mut ex = if snan { VXSNAN } else { 0 };
        if ordered && (!snan || *fpscr & VE == 0) {
            ex |= VXVC;
        }
        raise(fpscr, ex);
    }
    c
}

/// `mtfsf`: copies the fields of FPSCR selected by `flm` from the low word
/// of `bits`. FEX and VX are recomputed, not copied.
#[inline]
pub fn mtfsf(fpscr: &mut u32, flm: u32, bits: u64) {
    let mut mask = 0u32;
    for f in 0..8 {
        if flm & (0x80 >> f) != 0 {
            mask |= 0xF000_0000 >> (4 * f);
        }
    }
    let v = bits as u32 & !RESERVED;
    *fpscr = (*fpscr & !mask) | (v & mask);
    summarize(fpscr);
}

/// `mtfsfi`: sets FPSCR field `bf` to `u`.
#[inline]
pub fn mtfsfi(fpscr: &mut u32, bf: usize, u: u32) {
    let sh = 28 - 4 * bf as u32;
    *fpscr = (*fpscr & !(0xF << sh)) | (((u & 0xF) << sh) & !RESERVED);
    summarize(fpscr);
}

/// `mtfsb0`: clears FPSCR bit `bt` (FEX and VX cannot be cleared this way).
#[inline]
pub fn mtfsb0(fpscr: &mut u32, bt: u32) {
    let m = 1u32 << (31 - bt);
    if m & (FEX | VX) == 0 {
        *fpscr &= !m;
    }
    summarize(fpscr);
}

/// `mtfsb1`: sets FPSCR bit `bt` (FEX and VX cannot be set this way); an
/// exception bit going 0→1 sets FX.
#[inline]
pub fn mtfsb1(fpscr: &mut u32, bt: u32) {
    let m = 1u32 << (31 - bt);
    if m & (FEX | VX) == 0 {
        raise(fpscr, m);
    }
}

/// `mcrfs`: returns FPSCR field `bfa` and clears the exception bits in it.
#[inline]
pub fn mcrfs(fpscr: &mut u32, bfa: usize) -> u32 {
    let sh = 28 - 4 * bfa as u32;
    let v = (*fpscr >> sh) & 0xF;
    let clearable = (FX | EXC) & (0xF << sh);
    *fpscr &= !clearable;
    summarize(fpscr);
    v
}

/// `lfs`: the single in memory as a double's bits, exactly.
#[inline(always)]
pub fn single_to_double_bits(s: u32) -> u64 {
    sf::single_to_double(s)
}

/// `stfs`: a double's bits as a single, without rounding (the ISA's
/// truncating conversion for stores; denormal singles are shifted in).
#[inline]
pub fn double_to_single_bits(b: u64) -> u32 {
    let sign = ((b >> 63) as u32) << 31;
    let e = ((b >> 52) & 0x7FF) as i32;
    if e > 896 || e == 0x7FF {
        // Normal single range, infinities and NaNs: drop the low bits.
        ((b >> 32) as u32 & 0xC000_0000) | ((b >> 29) as u32 & 0x3FFF_FFFF)
    } else if e >= 874 {
        // Denormal as a single.
        let frac = (b & ((1 << 52) - 1)) | (1 << 52);
        let sh = 896 - e + 1; // 1..=23
        sign | ((frac >> (29 + sh)) as u32)
    } else {
        sign
    }
}

// ------------------------------------------------------------ fast paths

/// Which implementation the arithmetic helpers use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Impl {
    /// Host floating point with exact error terms for the common case
    /// (round-to-nearest, finite operands, results well inside the normal
    /// range), the reference for the rest. The default.
    Fast = 1,
    /// Always the exact integer reference ([`super::softfloat`]).
    Reference = 2,
    /// Both; a difference is logged as an error and the reference's result
    /// is used.
    Both = 3,
}

static IMPL: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Selects the implementation (overrides `CELLPORT_FPU`).
#[inline]
pub fn set_impl(i: Impl) {
    IMPL.store(i as u8, std::sync::atomic::Ordering::Relaxed);
}

/// The implementation in use: `CELLPORT_FPU` = `fast` (default),
/// `reference`/`soft`, or `both`, unless [`set_impl`] chose.
#[inline(always)]
pub fn current_impl() -> Impl {
    // Lifted code is built with this cfg (see `recomp`'s build): the fast
    // forms, with no switch to test at every operation.
    if cfg!(cellport_fast_helpers) {
        return Impl::Fast;
    }
    match IMPL.load(std::sync::atomic::Ordering::Relaxed) {
        1 => Impl::Fast,
        2 => Impl::Reference,
        3 => Impl::Both,
        _ => init_impl(),
    }
}

#[cold]
fn init_impl() -> Impl {
    let i = match std::env::var("CELLPORT_FPU").as_deref() {
        Ok("reference") | Ok("soft") | Ok("0") => Impl::Reference,
        Ok("both") | Ok("2") => Impl::Both,
        Ok("fast") | Ok("1") | Err(_) => Impl::Fast,
        Ok(other) => {
            log::warn!("CELLPORT_FPU={other:?} is not fast, reference or both; using fast");
            Impl::Fast
        }
    };
    set_impl(i);
    i
}

/// Runs the fast path (which declines by returning None) or the reference.
#[inline(always)]
fn dispatch(
    name: &str,
    fpscr: &mut u32,
    fast: impl FnOnce(u32) -> Option<(f64, u32)>,
    soft: impl FnOnce(&mut u32) -> f64,
) -> f64 {
    match current_impl() {
        Impl::Fast => match fast(*fpscr) {
            Some((r, f)) => {
                *fpscr = f;
                r
            }
            None => soft(fpscr),
        },
        Impl::Reference => soft(fpscr),
        Impl::Both => {
            let before = *fpscr;
            let r = soft(fpscr);
            if let Some((fr, ff)) = fast(before)
                && (fr.to_bits() != r.to_bits() || ff != *fpscr)
            {
                {
                    log::error!(
                        "fpu fast path differs in {name}: fast {:#018x} fpscr {ff:08x}, reference {:#018x} fpscr {:08x} (fpscr before {before:08x})",
                        fr.to_bits(),
                        r.to_bits(),
                        *fpscr
                    );
                }
            }
            r
        }
    }
}

/// The fast paths: each returns the result and the new FPSCR, or None
/// where only the reference is exact (other rounding modes, NaNs,
/// infinities, results near overflow or underflow, double-rounding
/// hazards). Public so tests can compare them with the reference.
pub mod fast {
    use super::*;

    /// 2^-969: above this, product and quotient error terms are exact.
    const SAFE_MIN: f64 = f64::from_bits(0x0360_0000_0000_0000);
    /// 2^995: below this, Dekker's split cannot overflow.
    const SAFE_MAX: f64 = f64::from_bits(0x7E20_0000_0000_0000);
    /// Smallest normal single, as a double.
    const SINGLE_MIN: f64 = f64::from_bits(0x3810_0000_0000_0000);

    #[inline(always)]
    fn safe(x: f64) -> bool {
        let a = x.abs();
        (SAFE_MIN..SAFE_MAX).contains(&a)
    }

    /// The exact error of `a + b = r` (TwoSum).
    #[inline(always)]
    fn sum_err(a: f64, b: f64, r: f64) -> f64 {
        let bb = r - a;
        (a - (r - bb)) + (b - bb)
    }

    /// The exact error of `a × b = r` (an FMA, or Dekker's product).
    #[inline(always)]
    fn prod_err(a: f64, b: f64, r: f64) -> f64 {
        #[cfg(target_feature = "fma")]
        {
            a.mul_add(b, -r)
        }
        #[cfg(not(target_feature = "fma"))]
        {
            const SPLIT: f64 = 134_217_729.0; // 2^27 + 1
            let split = |x: f64| {
                let c = SPLIT * x;
                let hi = c - (c - x);
                (hi, x - hi)
            };
            let (ah, al) = split(a);
            let (bh, bl) = split(b);
            ((ah * bh - r) + ah * bl + al * bh) + al * bl
        }
    }

    /// FPSCR after an inexact-or-exact result `r` (RN): FI, FR, XX, FPRF.
    #[inline(always)]
    fn finish(fpscr: u32, r: f64, inexact: bool, fr: bool) -> u32 {
        let mut f = fpscr & !(FR | FI | FPRF);
        if inexact {
            f |= FI;
            if fr {
                f |= FR;
            }
            raise(&mut f, XX);
        }
        f | fprf_of(r.to_bits()) << 12
    }

    /// Rounds the exact value `r + err` (err's sign is all that matters;
    /// `|err|` < half an ulp of `r`) to single, or None on a hazard.
    #[inline(always)]
    fn single(fpscr: u32, r: f64, err: f64) -> Option<(f64, u32)> {
        let f = r as f32;
        let fd = f64::from(f);
        if !f.is_finite() || fd.abs() <= SINGLE_MIN {
            return None;
        }
        if fd == r {
            let inexact = err != 0.0;
            return Some((
                fd,
                finish(fpscr, fd, inexact, inexact && (err < 0.0) != (fd < 0.0)),
            ));
        }
        // r exactly halfway between two singles: the error decides.
        if err != 0.0 && r.to_bits() & 0x1FFF_FFFF == 0x1000_0000 {
            return None;
        }
        Some((fd, finish(fpscr, fd, true, fd.abs() > r.abs())))
    }

    /// Rounds `r` (exact up to `err`) to `prec`.
    #[inline(always)]
    fn round(fpscr: u32, r: f64, err: f64, prec: Prec) -> Option<(f64, u32)> {
        match prec {
            Prec::Double => {
                let inexact = err != 0.0;
                Some((
                    r,
                    finish(fpscr, r, inexact, inexact && (err < 0.0) != (r < 0.0)),
                ))
            }
            Prec::Single => single(fpscr, r, err),
        }
    }

    /// a + b.
    #[inline(always)]
    pub fn add(fpscr: u32, a: f64, b: f64, prec: Prec) -> Option<(f64, u32)> {
        if fpscr & RN != 0 {
            return None;
        }
        let r = a + b;
        if !r.is_finite() || !a.is_finite() || !b.is_finite() || (r == 0.0 && prec == Prec::Single)
        {
            return None;
        }
        round(fpscr, r, sum_err(a, b, r), prec)
    }

    /// a - b.
    #[inline(always)]
    pub fn sub(fpscr: u32, a: f64, b: f64, prec: Prec) -> Option<(f64, u32)> {
        add(fpscr, a, -b, prec)
    }

    /// a × b.
    #[inline(always)]
    pub fn mul(fpscr: u32, a: f64, b: f64, prec: Prec) -> Option<(f64, u32)> {
        if fpscr & RN != 0 || !safe(a) || !safe(b) {
            return None;
        }
        let r = a * b;
        if !safe(r) {
            return None;
        }
        round(fpscr, r, prod_err(a, b, r), prec)
    }

    /// a / b.
    #[inline(always)]
    pub fn div(fpscr: u32, a: f64, b: f64, prec: Prec) -> Option<(f64, u32)> {
        if fpscr & RN != 0 || !safe(a) || !safe(b) {
            return None;
        }
        let q = a / b;
        if !safe(q) {
            return None;
        }
        // a = q×b + rem exactly; the exact quotient is q + rem/b.
        let p = q * b;
        let rem = (a - p) - prod_err(q, b, p);
        let err = if (rem < 0.0) != (b < 0.0) {
            -rem.abs()
        } else {
            rem.abs()
        };
        round(fpscr, q, err, prec)
    }

    /// sqrt(b).
    #[inline(always)]
    pub fn sqrt(fpscr: u32, b: f64, prec: Prec) -> Option<(f64, u32)> {
        if fpscr & RN != 0 || !safe(b) || b < 0.0 {
            return None;
        }
        let s = b.sqrt();
        let p = s * s;
        let rem = (b - p) - prod_err(s, s, p);
        round(fpscr, s, rem, prec)
    }

    /// Single-precision a × c ± b, negated or not, fused.
    #[inline(always)]
    pub fn fma_single(
        fpscr: u32,
        a: f64,
        c: f64,
        b: f64,
        sub: bool,
        negate: bool,
    ) -> Option<(f64, u32)> {
        if fpscr & RN != 0 || !safe(a) || !safe(c) || !(safe(b) || b == 0.0) {
            return None;
        }
        let b = if sub { -b } else { b };
        let r = a.mul_add(c, b);
        if !safe(r) {
            return None;
        }
        let f = r as f32;
        let fd = f64::from(f);
        // Exactness is unknown when r is itself a single, and a midpoint
        // needs the error's sign: leave both to the reference.
        if fd == r
            || r.to_bits() & 0x1FFF_FFFF == 0x1000_0000
            || !f.is_finite()
            || fd.abs() <= SINGLE_MIN
        {
            return None;
        }
        let v = if negate { -fd } else { fd };
        Some((v, finish(fpscr, v, true, fd.abs() > r.abs())))
    }

    /// frsp.
    #[inline(always)]
    pub fn frsp(fpscr: u32, b: f64) -> Option<(f64, u32)> {
        if fpscr & RN != 0 || !b.is_finite() || b == 0.0 {
            return None;
        }
        single(fpscr, b, 0.0)
    }

    /// fctiwz / fctidz for in-range values.
    #[inline(always)]
    pub fn to_int_zero(fpscr: u32, b: f64, bits: u32) -> Option<(f64, u32)> {
        let lim = if bits == 32 {
            2_147_483_648.0
        } else {
            9_223_372_036_854_775_808.0
        };
        if !(b > -lim && b < lim) {
            return None;
        }
        let t = b.trunc();
        let mut f = fpscr & !(FR | FI);
        if t != b {
            f |= FI;
            raise(&mut f, XX);
        }
        Some((f64::from_bits(t as i64 as u64), f))
    }

    /// fcfid.
    #[inline(always)]
    pub fn fcfid(fpscr: u32, b: f64) -> Option<(f64, u32)> {
        if fpscr & RN != 0 {
            return None;
        }
        let v = b.to_bits() as i64;
        if v == i64::MIN {
            return None;
        }
        let r = v as f64;
        // |v| < 2^63: r is within range; the error's sign from an exact
        // integer comparison.
        let back = if r.abs() >= 9_223_372_036_854_775_808.0 {
            i128::from(i64::MAX) + 1
        } else {
            i128::from(r as i64)
        };
        let back = if r < 0.0 && r.abs() >= 9_223_372_036_854_775_808.0 {
            -back
        } else {
            back
        };
        let diff = i128::from(v) - back; // exact - rounded
        let inexact = diff != 0;
        Some((
            r,
            finish(fpscr, r, inexact, inexact && (diff < 0) != (r < 0.0)),
        ))
    }
}

/// Double-precision arithmetic whose FI, FR and FPRF nobody reads: the
/// lifter uses these where a later operation in the same block overwrites
/// those bits before anything (a call, `mffs`, a compare, the block's end)
/// could read them. When XX is already set, the rounding mode is
/// round-to-nearest, no exception is enabled, NI is off and the operands
/// and the result are where no other exception can arise, the operation
/// changes no FPSCR bit anyone sees: the host's result alone is exact.
/// Anything else, and the `reference` and `both` modes, go to the full
/// operation.
pub mod status_dead {
    use super::*;

    /// FPSCR allows the quiet path: XX set, RN nearest, no enables, no NI.
    #[inline(always)]
    fn quiet(fpscr: u32) -> bool {
        fpscr & (XX | RN | VE | OE | UE | ZE | XE | NI) == XX && current_impl() == Impl::Fast
    }

    /// Away from overflow and underflow (as the fast paths' `safe`).
    #[inline(always)]
    fn safe(x: f64) -> bool {
        const SAFE_MIN: f64 = f64::from_bits(0x0360_0000_0000_0000);
        const SAFE_MAX: f64 = f64::from_bits(0x7E20_0000_0000_0000);
        (SAFE_MIN..SAFE_MAX).contains(&x.abs())
    }

    /// `fadd` with FI/FR/FPRF dead.
    #[inline(always)]
    pub fn fadd(fpscr: &mut u32, a: f64, b: f64) -> f64 {
        if quiet(*fpscr) {
            let r = a + b;
            if a.is_finite() && b.is_finite() && r.is_finite() {
                return r;
            }
        }
        super::fadd(fpscr, a, b)
    }

    /// `fsub` with FI/FR/FPRF dead.
    #[inline(always)]
    pub fn fsub(fpscr: &mut u32, a: f64, b: f64) -> f64 {
        if quiet(*fpscr) {
            let r = a - b;
            if a.is_finite() && b.is_finite() && r.is_finite() {
                return r;
            }
        }
        super::fsub(fpscr, a, b)
    }

    /// `fmul` with FI/FR/FPRF dead.
    #[inline(always)]
    pub fn fmul(fpscr: &mut u32, a: f64, b: f64) -> f64 {
        if quiet(*fpscr) && safe(a) && safe(b) {
            let r = a * b;
            if safe(r) {
                return r;
            }
        }
        super::fmul(fpscr, a, b)
    }

    /// `fdiv` with FI/FR/FPRF dead.
    #[inline(always)]
    pub fn fdiv(fpscr: &mut u32, a: f64, b: f64) -> f64 {
        if quiet(*fpscr) && safe(a) && safe(b) {
            let r = a / b;
            if safe(r) {
                return r;
            }
        }
        super::fdiv(fpscr, a, b)
    }

    /// `fcfid` with FI/FR/FPRF dead (the conversion can only be inexact).
    #[inline(always)]
    pub fn fcfid(fpscr: &mut u32, b: f64) -> f64 {
        if quiet(*fpscr) {
            return b.to_bits() as i64 as f64;
        }
        super::fcfid(fpscr, b)
    }
}

/// The reference implementations (exact integer arithmetic), whatever
/// [`current_impl`] says: what the fast paths are checked against.
pub mod reference {
    use super::*;

    macro_rules! two {
        ($($name:ident = $imp:ident, $prec:ident;)*) => {$(
            #[doc = concat!("Reference `", stringify!($name), "`.")]
            #[inline]
            pub fn $name(fpscr: &mut u32, a: f64, b: f64) -> f64 {
                $imp(fpscr, a.to_bits(), b.to_bits(), Prec::$prec)
            }
        )*};
    }
    two! {
        fadd = add_impl, Double;
        fadds = add_impl, Single;
        fsub = sub_impl, Double;
        fsubs = sub_impl, Single;
        fmul = mul_impl, Double;
        fmuls = mul_impl, Single;
        fdiv = div_impl, Double;
        fdivs = div_impl, Single;
    }

    macro_rules! three {
        ($($name:ident = $sub:expr, $neg:expr, $prec:ident;)*) => {$(
            #[doc = concat!("Reference `", stringify!($name), "`.")]
            #[inline]
            pub fn $name(fpscr: &mut u32, a: f64, c: f64, b: f64) -> f64 {
                fma_impl(fpscr, a.to_bits(), c.to_bits(), b.to_bits(), $sub, $neg, Prec::$prec)
            }
        )*};
    }
    three! {
        fmadd = false, false, Double;
        fmadds = false, false, Single;
        fmsub = true, false, Double;
        fmsubs = true, false, Single;
        fnmadd = false, true, Double;
        fnmadds = false, true, Single;
        fnmsub = true, true, Double;
        fnmsubs = true, true, Single;
    }

    /// Reference `fsqrt`.
    #[inline]
    pub fn fsqrt(fpscr: &mut u32, b: f64) -> f64 {
        sqrt_impl(fpscr, b.to_bits(), Prec::Double)
    }
    /// Reference `fsqrts`.
    #[inline]
    pub fn fsqrts(fpscr: &mut u32, b: f64) -> f64 {
        sqrt_impl(fpscr, b.to_bits(), Prec::Single)
    }
    /// Reference `frsp`.
    #[inline]
    pub fn frsp(fpscr: &mut u32, b: f64) -> f64 {
        frsp_soft(fpscr, b)
    }
    /// Reference `fctiwz`.
    #[inline]
    pub fn fctiwz(fpscr: &mut u32, b: f64) -> f64 {
        to_int(fpscr, b, 32, Mode::Zero)
    }
    /// Reference `fctidz`.
    #[inline]
    pub fn fctidz(fpscr: &mut u32, b: f64) -> f64 {
        to_int(fpscr, b, 64, Mode::Zero)
    }
    /// Reference `fcfid`.
    #[inline]
    pub fn fcfid(fpscr: &mut u32, b: f64) -> f64 {
        fcfid_soft(fpscr, b)
    }
}
