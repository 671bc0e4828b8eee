//! Integer semantics: rotate masks, carries, overflow, CR0, shifts,
//! multiplies and divides. Pure `#[inline(always)]` functions shared by the
//! interpreter and lifted code.
//!
//! Where the architecture leaves a result undefined (divide by zero, the
//! most negative number divided by -1, the high half of `mulhw` in 64-bit
//! mode), these return what `qemu-ppc64` returns, which the conformance test
//! checks.

/// The 32-bit rotate-left of the low word of `x`, with the result replicated
/// into both halves (what `rlwinm` and friends rotate, ROTL32 in the ISA).
#[inline(always)]
pub fn rotl32_dup(x: u64, n: u32) -> u64 {
    let r = (x as u32).rotate_left(n & 31) as u64;
    r | r << 32
}

/// 64-bit rotate left.
#[inline(always)]
pub fn rotl64(x: u64, n: u32) -> u64 {
    x.rotate_left(n & 63)
}

/// MASK(mb, me) of the 64-bit rotates: ones from bit `mb` to bit `me`
/// (PowerISA numbering, bit 0 = MSB), wrapping when `mb > me`.
#[inline(always)]
pub fn mask64(mb: u32, me: u32) -> u64 {
    let begin = u64::MAX >> (mb & 63);
    let end = u64::MAX << (63 - (me & 63));
    if mb <= me { begin & end } else { begin | end }
}

/// MASK(mb+32, me+32): the mask of the 32-bit rotates, as a 64-bit value.
#[inline(always)]
pub fn mask32(mb: u32, me: u32) -> u64 {
    mask64((mb & 31) + 32, (me & 31) + 32)
}

/// CR0 (or any field) for a signed comparison of `a` with `b`, plus SO.
#[inline(always)]
pub fn cmp_signed(a: i64, b: i64, so: u8) -> u32 {
    let c = if a < b {
        8
    } else if a > b {
        4
    } else {
        2
    };
    c | u32::from(so)
}

/// A CR field for an unsigned comparison of `a` with `b`, plus SO.
#[inline(always)]
pub fn cmp_unsigned(a: u64, b: u64, so: u8) -> u32 {
    let c = if a < b {
        8
    } else if a > b {
        4
    } else {
        2
    };
    c | u32::from(so)
}

/// CR0 of a record-form (`.`) integer instruction: the 64-bit result
/// compared with zero, plus SO.
#[inline(always)]
pub fn cr0(result: u64, so: u8) -> u32 {
    cmp_signed(result as i64, 0, so)
}

/// `a + b` and the carry out (XER[CA]).
#[inline(always)]
pub fn add_carry(a: u64, b: u64) -> (u64, u8) {
    let (r, c) = a.overflowing_add(b);
    (r, c as u8)
}

/// `a + b + ca` and the carry out.
#[inline(always)]
pub fn add_extended(a: u64, b: u64, ca: u8) -> (u64, u8) {
    let (r1, c1) = a.overflowing_add(b);
    let (r2, c2) = r1.overflowing_add(u64::from(ca));
    (r2, (c1 | c2) as u8)
}

/// Signed 64-bit overflow of `a + b (+ carry-in) = r`.
#[inline(always)]
pub fn add_overflow(a: u64, b: u64, r: u64) -> u8 {
    (((a ^ r) & (b ^ r)) >> 63) as u8
}

/// `subf`-style: `!a + b + 1` = `b - a`, and the carry out.
#[inline(always)]
pub fn subf_carry(a: u64, b: u64) -> (u64, u8) {
    add_extended(!a, b, 1)
}

/// `mullw`: the signed product of the low words, as 64 bits, and whether it
/// overflows 32 bits (OV).
#[inline(always)]
pub fn mullw(a: u64, b: u64) -> (u64, u8) {
    let p = i64::from(a as i32) * i64::from(b as i32);
    (p as u64, (p != i64::from(p as i32)) as u8)
}

/// `mulld`: the low 64 bits of the signed product and overflow.
#[inline(always)]
pub fn mulld(a: u64, b: u64) -> (u64, u8) {
    let (r, o) = (a as i64).overflowing_mul(b as i64);
    (r as u64, o as u8)
}

/// `mulhw`: the high word of the signed 32×32 product. The upper half of
/// the register is undefined; qemu leaves it zero.
#[inline(always)]
pub fn mulhw(a: u64, b: u64) -> u64 {
    let p = i64::from(a as i32) * i64::from(b as i32);
    u64::from((p >> 32) as u32)
}

/// `mulhwu`: the high word of the unsigned 32×32 product (zero-extended, as
/// qemu does).
#[inline(always)]
pub fn mulhwu(a: u64, b: u64) -> u64 {
    let p = u64::from(a as u32) * u64::from(b as u32);
    p >> 32
}

/// `mulhd`: the high 64 bits of the signed 128-bit product.
#[inline(always)]
pub fn mulhd(a: u64, b: u64) -> u64 {
    ((i128::from(a as i64) * i128::from(b as i64)) >> 64) as u64
}

/// `mulhdu`: the high 64 bits of the unsigned 128-bit product.
#[inline(always)]
pub fn mulhdu(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) >> 64) as u64
}

/// `divw`: the signed quotient of the low words and overflow (divide by
/// zero, or `i32::MIN / -1`). On overflow the result is undefined; qemu
/// (which divides by 1 instead) gives the dividend's low word, and so do
/// these helpers.
#[inline(always)]
pub fn divw(a: u64, b: u64) -> (u64, u8) {
    let (x, y) = (a as i32, b as i32);
    if y == 0 || (x == i32::MIN && y == -1) {
        (u64::from(x as u32), 1)
    } else {
        (u64::from((x / y) as u32), 0)
    }
}

/// `divwu`: the unsigned quotient of the low words and overflow (divide by zero).
#[inline(always)]
pub fn divwu(a: u64, b: u64) -> (u64, u8) {
    let (x, y) = (a as u32, b as u32);
    match x.checked_div(y) {
        Some(q) => (u64::from(q), 0),
        None => (u64::from(x), 1),
    }
}

/// `divd`: the signed 64-bit quotient and overflow.
#[inline(always)]
pub fn divd(a: u64, b: u64) -> (u64, u8) {
    let (x, y) = (a as i64, b as i64);
    if y == 0 || (x == i64::MIN && y == -1) {
        (a, 1)
    } else {
        ((x / y) as u64, 0)
    }
}

/// `divdu`: the unsigned 64-bit quotient and overflow.
#[inline(always)]
pub fn divdu(a: u64, b: u64) -> (u64, u8) {
    match a.checked_div(b) {
        Some(q) => (q, 0),
        None => (a, 1),
    }
}

/// `slw`: shift the low word left by `rb & 63` (0 from 32 on), zero-extended.
#[inline(always)]
pub fn slw(s: u64, rb: u64) -> u64 {
    let n = rb & 63;
    if n >= 32 {
        0
    } else {
        u64::from((s as u32) << n)
    }
}

/// `srw`: shift the low word right by `rb & 63` (0 from 32 on).
#[inline(always)]
pub fn srw(s: u64, rb: u64) -> u64 {
    let n = rb & 63;
    if n >= 32 {
        0
    } else {
        u64::from((s as u32) >> n)
    }
}

/// `sraw`/`srawi`: arithmetic shift of the low word, sign-extended to 64
/// bits, and CA (set when negative and one bits were shifted out).
#[inline(always)]
pub fn sraw(s: u64, n: u64) -> (u64, u8) {
    let n = n & 63;
    let x = s as i32;
    if n >= 32 {
        let r = (x >> 31) as i64;
        (r as u64, (x < 0) as u8)
    } else {
        let r = x >> n;
        let lost = (x as u32) & ((1u32 << n).wrapping_sub(1));
        (r as i64 as u64, (x < 0 && lost != 0) as u8)
    }
}

/// `sld`: shift left by `rb & 127` (0 from 64 on).
#[inline(always)]
pub fn sld(s: u64, rb: u64) -> u64 {
    let n = rb & 127;
    if n >= 64 { 0 } else { s << n }
}

/// `srd`: shift right by `rb & 127` (0 from 64 on).
#[inline(always)]
pub fn srd(s: u64, rb: u64) -> u64 {
    let n = rb & 127;
    if n >= 64 { 0 } else { s >> n }
}

/// `srad`/`sradi`: arithmetic shift right by `n & 127`, and CA.
#[inline(always)]
pub fn srad(s: u64, n: u64) -> (u64, u8) {
    let n = n & 127;
    let x = s as i64;
    if n >= 64 {
        ((x >> 63) as u64, (x < 0) as u8)
    } else {
        let r = x >> n;
        let lost = s & ((1u64 << n).wrapping_sub(1));
        (r as u64, (x < 0 && lost != 0) as u8)
    }
}

/// The trap condition of `tw`/`twi`/`td`/`tdi`: `to` bits LT, GT, EQ, LTU, GTU.
#[inline(always)]
pub fn trap_taken(to: u32, a: i64, b: i64) -> bool {
    (to & 16 != 0 && a < b)
        || (to & 8 != 0 && a > b)
        || (to & 4 != 0 && a == b)
        || (to & 2 != 0 && (a as u64) < (b as u64))
        || (to & 1 != 0 && (a as u64) > (b as u64))
}

/// Whether a `bc`-family branch is taken, updating CTR as BO says:
/// returns (taken, new ctr).
#[inline(always)]
pub fn bc_taken(bo: u32, cr_bit: u8, ctr: u64) -> (bool, u64) {
    let ctr = if bo & 4 == 0 {
        ctr.wrapping_sub(1)
    } else {
        ctr
    };
    let ctr_ok = bo & 4 != 0 || ((ctr != 0) ^ (bo & 2 != 0));
    let cond_ok = bo & 16 != 0 || (cr_bit != 0) == (bo & 8 != 0);
    (ctr_ok && cond_ok, ctr)
}
