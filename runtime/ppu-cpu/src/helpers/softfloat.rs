//! Exact IEEE arithmetic in integers: the reference the FPU helpers use.
//!
//! Every operation computes the exact result (or enough bits of it plus a
//! sticky bit), then [`round`] rounds it once to double or single precision
//! in any of the four rounding modes, reporting inexact, overflow, underflow
//! (tininess detected before rounding, as the PowerPC does) and whether the
//! fraction was incremented (FPSCR[FR]). No host floating point is involved,
//! so the results do not depend on the host's rounding mode or FMA support.

/// A finite nonzero value: `(-1)^neg × sig × 2^exp`.
#[derive(Debug, Clone, Copy)]
pub struct Exact {
    /// Sign.
    pub neg: bool,
    /// Significand (nonzero).
    pub sig: u128,
    /// Exponent of the significand's least significant bit.
    pub exp: i32,
    /// Nonzero bits below `sig`'s LSB were dropped (the value is a little
    /// larger in magnitude than `sig × 2^exp`).
    pub sticky: bool,
}

/// Destination precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prec {
    /// IEEE double: 53 bits, exponents -1022..=1023.
    Double,
    /// IEEE single: 24 bits, exponents -126..=127.
    Single,
}

impl Prec {
    fn params(self) -> (i32, i32, i32) {
        match self {
            Prec::Double => (53, -1022, 1023),
            Prec::Single => (24, -126, 127),
        }
    }
}

/// Rounding modes, numbered as FPSCR[RN].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Round to nearest, ties to even.
    Nearest,
    /// Toward zero.
    Zero,
    /// Toward +infinity.
    Up,
    /// Toward -infinity.
    Down,
}

impl Mode {
    /// The mode FPSCR[RN] (its low two bits) selects.
    #[inline]
    pub fn from_rn(rn: u32) -> Mode {
        match rn & 3 {
            0 => Mode::Nearest,
            1 => Mode::Zero,
            2 => Mode::Up,
            _ => Mode::Down,
        }
    }
}

/// What rounding reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rounded {
    /// The result as a double's bits (a single result is widened exactly).
    pub bits: u64,
    /// The result differs from the exact value.
    pub inexact: bool,
    /// The fraction was incremented (|result| > |exact|).
    pub fr: bool,
    /// Overflow.
    pub overflow: bool,
    /// Underflow: tiny before rounding and inexact.
    pub underflow: bool,
}

/// Splits a finite nonzero double into an [`Exact`].
#[inline]
pub fn unpack(bits: u64) -> Exact {
    let neg = bits >> 63 != 0;
    let e = ((bits >> 52) & 0x7FF) as i32;
    let f = bits & ((1 << 52) - 1);
    if e == 0 {
        Exact {
            neg,
            sig: u128::from(f),
            exp: -1074,
            sticky: false,
        }
    } else {
        Exact {
            neg,
            sig: u128::from(f | 1 << 52),
            exp: e - 1075,
            sticky: false,
        }
    }
}

/// Rounds `x` to `prec` in `mode`.
pub fn round(x: Exact, prec: Prec, mode: Mode) -> Rounded {
    let (p, emin, emax) = prec.params();
    let msb = 127 - x.sig.leading_zeros() as i32;
    let e_top = msb + x.exp; // exponent of the leading bit
    let lsb_exp = e_top.max(emin) - (p - 1);
    let shift = lsb_exp - x.exp;
    let (mut q, rbit, rest) = if shift <= 0 {
        (x.sig << (-shift) as u32, false, x.sticky)
    } else if shift > 128 {
        (0, false, true)
    } else {
        let q = if shift == 128 { 0 } else { x.sig >> shift };
        let rem = if shift == 128 {
            x.sig
        } else {
            x.sig & ((1u128 << shift) - 1)
        };
        let half = 1u128 << (shift - 1);
        (q, rem & half != 0, rem & (half - 1) != 0 || x.sticky)
    };
    let inexact = rbit || rest;
    let inc = match mode {
        Mode::Nearest => rbit && (rest || q & 1 == 1),
        Mode::Zero => false,
        Mode::Up => inexact && !x.neg,
        Mode::Down => inexact && x.neg,
    };
    let mut lsb = lsb_exp;
    if inc {
        q += 1;
        if q == 1u128 << p {
            q >>= 1;
            lsb += 1;
        }
    }
    let tiny = e_top < emin;
    let mut out = Rounded {
        inexact,
        fr: inc,
        underflow: tiny && inexact,
        ..Rounded::default()
    };
    let sign = u64::from(x.neg) << 63;
    // Encode.
    let normal = q >= 1u128 << (p - 1);
    let e_res = if normal { lsb + p - 1 } else { emin - 1 };
    if e_res > emax {
        out.overflow = true;
        out.inexact = true;
        let to_inf = match mode {
            Mode::Nearest => true,
            Mode::Zero => false,
            Mode::Up => !x.neg,
            Mode::Down => x.neg,
        };
        out.fr = to_inf;
        out.bits = match (prec, to_inf) {
            (Prec::Double, true) => sign | 0x7FF0_0000_0000_0000,
            (Prec::Double, false) => sign | 0x7FEF_FFFF_FFFF_FFFF,
            (Prec::Single, true) => sign | 0x7FF0_0000_0000_0000,
            (Prec::Single, false) => sign | single_to_double(0x7F7F_FFFF),
        };
        return out;
    }
    out.bits = match prec {
        Prec::Double => {
            let be = if normal { (e_res + 1023) as u64 } else { 0 };
            sign | be << 52 | (q as u64 & ((1 << 52) - 1))
        }
        Prec::Single => {
            let be = if normal { (e_res + 127) as u32 } else { 0 };
            let s = be << 23 | (q as u32 & ((1 << 23) - 1));
            sign | single_to_double(s) & !(1 << 63)
        }
    };
    out
}

/// Widens single bits to double bits exactly (NaNs keep their payload and
/// stay signaling: this is `lfs`, not a conversion).
pub fn single_to_double(s: u32) -> u64 {
    let sign = u64::from(s >> 31) << 63;
    let e = (s >> 23) & 0xFF;
    let f = u64::from(s & 0x7F_FFFF);
    if e == 0xFF {
        sign | 0x7FF0_0000_0000_0000 | f << 29
    } else if e == 0 {
        if f == 0 {
            sign
        } else {
            // Normalise the single denormal.
            let lz = f.leading_zeros() as i32 - 41; // bits above the 23-bit field
            let f2 = (f << (lz + 1)) & 0x7F_FFFF;
            let de = (1023 - 126 - 1 - lz) as u64;
            sign | de << 52 | f2 << 29
        }
    } else {
        sign | (u64::from(e) + 1023 - 127) << 52 | f << 29
    }
}

/// Exact sum of two values.
pub fn add(x: Exact, y: Exact) -> Option<Exact> {
    // Normalise both to their MSB at bit 125, keeping the exponents.
    let norm = |v: Exact| {
        let lz = v.sig.leading_zeros() as i32;
        let sh = lz - 2;
        if sh >= 0 {
            Exact {
                sig: v.sig << sh,
                exp: v.exp - sh,
                ..v
            }
        } else {
            let s = (-sh) as u32;
            Exact {
                sig: v.sig >> s,
                exp: v.exp + sh.abs(),
                sticky: v.sticky || v.sig & ((1 << s) - 1) != 0,
                ..v
            }
        }
    };
    let (mut a, mut b) = (norm(x), norm(y));
    if b.exp > a.exp || (b.exp == a.exp && b.sig > a.sig) {
        std::mem::swap(&mut a, &mut b);
    }
    let d = (a.exp - b.exp) as u32;
    let (bs, bsticky) = if d >= 128 {
        (0, true)
    } else {
        (
            b.sig >> d,
            b.sticky || (d > 0 && b.sig & ((1u128 << d) - 1) != 0),
        )
    };
    if a.neg == b.neg {
        Some(Exact {
            neg: a.neg,
            sig: a.sig + bs,
            exp: a.exp,
            sticky: bsticky || a.sticky,
        })
    } else {
        // |a| >= |b|: a - b, with b's sticky part borrowing one.
        let diff = a.sig - bs - u128::from(bsticky);
        if diff == 0 && !bsticky {
            return None; // exact zero
        }
        Some(Exact {
            neg: a.neg,
            sig: diff,
            exp: a.exp,
            sticky: bsticky,
        })
    }
}

/// Exact product.
pub fn mul(x: Exact, y: Exact) -> Exact {
    Exact {
        neg: x.neg != y.neg,
        sig: x.sig * y.sig,
        exp: x.exp + y.exp,
        sticky: false,
    }
}

fn normalize53(v: Exact) -> Exact {
    let lz = v.sig.leading_zeros() as i32 - (127 - 52);
    Exact {
        sig: v.sig << lz,
        exp: v.exp - lz,
        ..v
    }
}

/// Quotient with enough bits and a sticky remainder.
pub fn div(x: Exact, y: Exact) -> Exact {
    let (a, b) = (normalize53(x), normalize53(y));
    let num = a.sig << 74;
    let q = num / b.sig;
    let r = num % b.sig;
    Exact {
        neg: a.neg != b.neg,
        sig: q,
        exp: a.exp - 74 - b.exp,
        sticky: r != 0,
    }
}

/// Square root (of a positive value) with a sticky remainder.
pub fn sqrt(x: Exact) -> Exact {
    let a = normalize53(x);
    // Make the exponent even and the radicand wide: sig << k, k chosen so
    // exp - k is even and the radicand has about 117 bits.
    let mut k = 64;
    if (a.exp - k) % 2 != 0 {
        k += 1;
    }
    let n = a.sig << k;
    let (s, rem) = isqrt(n);
    Exact {
        neg: false,
        sig: s,
        exp: (a.exp - k) / 2,
        sticky: rem != 0,
    }
}

/// Integer square root and remainder.
fn isqrt(n: u128) -> (u128, u128) {
    let mut rem = 0u128;
    let mut root = 0u128;
    for i in (0..64).rev() {
        root <<= 1;
        rem = (rem << 2) | ((n >> (2 * i)) & 3);
        let trial = (root << 1) | 1;
        if rem >= trial {
            rem -= trial;
            root |= 1;
        }
    }
    (root, rem)
}
