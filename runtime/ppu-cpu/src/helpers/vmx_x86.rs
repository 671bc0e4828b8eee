//! x86-64 SIMD forms of the VMX integer operations lifted code spends its
//! time in (libjpeg-turbo's AltiVec IDCT, colour conversion, upsampling,
//! FDCT): the multiply-sums, packs, merges, shifts, saturating adds,
//! unpacks, splats, selects and compares. Each has the name and signature
//! of its scalar reference in [`super::vmx_scalar`] and gives the same result and
//! the same VSCR[SAT], bit for bit (the tests at the end compare them on
//! random and edge operands).
//!
//! Compiled only where SSE4.1 is enabled at compile time (the `mod` line
//! says so); the per-lane shifts use AVX2's variable shifts where the build
//! enables AVX2 (`-C target-cpu=x86-64-v3`) and a lane loop otherwise.
//!
//! Layout: a [`V128`] is a `u128` whose most significant part is guest
//! element 0, and x86-64 is little-endian, so reinterpreted as an `__m128i`
//! guest byte i is host byte 15 - i, halfword i host halfword 7 - i and
//! word i host word 3 - i: the element order is reversed, the bytes inside
//! an element are not. Lane-wise operations therefore map one to one;
//! operations that combine neighbours (multiply-sums) pair the same
//! elements on both sides; operations that pick halves (merge high, pack a
//! then b) take the host's other half or operand order.
//!
//! Every `unsafe` block here only calls `std::arch` intrinsics of features
//! the build enables (SSE2 to SSE4.1 always, AVX2 where gated on it) and
//! reinterprets 16 plain bytes between `u128` and `__m128i`.

use std::arch::x86_64::*;

use crate::context::{V128, VSCR_SAT};

// ------------------------------------------------------------- plumbing

/// The register as an `__m128i` (host element order, see the module doc).
#[inline(always)]
fn m(x: V128) -> __m128i {
    // SAFETY: u128 and __m128i are both 16 plain bytes; every bit pattern
    // is valid for either.
    unsafe { std::mem::transmute::<u128, __m128i>(x.0) }
}

/// Back from an `__m128i`.
#[inline(always)]
fn v(x: __m128i) -> V128 {
    // SAFETY: as in `m`.
    V128(unsafe { std::mem::transmute::<__m128i, u128>(x) })
}

/// Sets VSCR[SAT] when `any` (sticky, never cleared).
#[inline(always)]
fn note_sat(vscr: &mut u32, any: bool) {
    *vscr |= VSCR_SAT * u32::from(any);
}

/// Whether any bit of `x` is set.
#[inline(always)]
fn any(x: __m128i) -> bool {
    // SAFETY: SSE4.1 is enabled for this build (the module's cfg).
    unsafe { _mm_testz_si128(x, x) == 0 }
}

/// Whether any 32-bit lane of `x` has its sign bit set.
#[inline(always)]
fn any_sign32(x: __m128i) -> bool {
    // SAFETY: SSE2 (x86-64 baseline).
    unsafe { _mm_movemask_ps(_mm_castsi128_ps(x)) != 0 }
}

/// Signed saturating 32-bit `x + y`: the result and a mask whose lanes'
/// sign bits mark saturation. `x_sign` carries the sign of the true `x`
/// (it differs from `x` only where `x` has wrapped, see `vmsumshs`).
#[inline(always)]
fn adds32(x_sign: __m128i, x: __m128i, y: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 and SSE4.1 (`blendv_ps`), enabled for this build.
    unsafe {
        let r = _mm_add_epi32(x, y);
        // Overflow: x and y of one sign, r of the other.
        let ov = _mm_andnot_si128(_mm_xor_si128(x_sign, y), _mm_xor_si128(y, r));
        let limit = _mm_xor_si128(_mm_srai_epi32(y, 31), _mm_set1_epi32(i32::MAX));
        let out = _mm_blendv_ps(
            _mm_castsi128_ps(r),
            _mm_castsi128_ps(limit),
            _mm_castsi128_ps(ov),
        );
        (_mm_castps_si128(out), ov)
    }
}

/// Signed saturating 16-bit `x + y` with `x_sign` as in [`adds32`]: the
/// result and a mask of the saturated lanes (all ones).
#[inline(always)]
fn adds16(x_sign: __m128i, x: __m128i, y: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 and SSE4.1 (`blendv_epi8`), enabled for this build.
    unsafe {
        let r = _mm_add_epi16(x, y);
        let ov = _mm_andnot_si128(_mm_xor_si128(x_sign, y), _mm_xor_si128(y, r));
        let ov = _mm_srai_epi16(ov, 15);
        let limit = _mm_xor_si128(_mm_srai_epi16(y, 15), _mm_set1_epi16(i16::MAX));
        (_mm_blendv_epi8(r, limit, ov), ov)
    }
}

// ------------------------------------------------------------- multiply-sums

/// `vmsumshs`: per word, c plus the two signed halfword products, saturated
/// to i32. `pmaddwd` wraps only where all four halfwords are -32768 (the
/// true pair sum is +2^31, it gives i32::MIN); that lane is added as the
/// positive number it is.
#[inline(always)]
pub fn vmsumshs(vscr: &mut u32, a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    let (p, wrapped) = unsafe {
        let p = _mm_madd_epi16(m(a), m(b));
        (p, _mm_cmpeq_epi32(p, _mm_set1_epi32(i32::MIN)))
    };
    // SAFETY: SSE2.
    let p_sign = unsafe { _mm_xor_si128(p, wrapped) };
    let (r, ov) = adds32(p_sign, p, m(c));
    note_sat(vscr, any_sign32(ov));
    v(r)
}

/// `vmsumshm`: per word, c plus the two signed halfword products, modulo
/// 2^32 (`pmaddwd`'s one wrap is the same modulo 2^32).
#[inline(always)]
pub fn vmsumshm(a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_add_epi32(_mm_madd_epi16(m(a), m(b)), m(c)) })
}

/// `vmsumuhm`: per word, c plus the two unsigned halfword products, modulo
/// 2^32 (the 32-bit products from `pmullw`/`pmulhuw`, even and odd lanes).
#[inline(always)]
pub fn vmsumuhm(a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2 and SSE4.1 (`blend_epi16`), enabled for this build.
    v(unsafe {
        let (a, b) = (m(a), m(b));
        let lo = _mm_mullo_epi16(a, b);
        let hi = _mm_mulhi_epu16(a, b);
        let even = _mm_blend_epi16::<0xAA>(lo, _mm_slli_epi32::<16>(hi));
        let odd = _mm_blend_epi16::<0xAA>(_mm_srli_epi32::<16>(lo), hi);
        _mm_add_epi32(_mm_add_epi32(even, odd), m(c))
    })
}

/// `vmsummbm`: per word, c plus the four products of a's signed bytes and
/// b's unsigned bytes, modulo 2^32 (bytes widened to halfwords, even and
/// odd, then `pmaddwd`).
#[inline(always)]
pub fn vmsummbm(a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe {
        let (a, b) = (m(a), m(b));
        let a_even = _mm_srai_epi16::<8>(_mm_slli_epi16::<8>(a));
        let a_odd = _mm_srai_epi16::<8>(a);
        let b_even = _mm_and_si128(b, _mm_set1_epi16(0x00FF));
        let b_odd = _mm_srli_epi16::<8>(b);
        let sum = _mm_add_epi32(_mm_madd_epi16(a_even, b_even), _mm_madd_epi16(a_odd, b_odd));
        _mm_add_epi32(sum, m(c))
    })
}

/// `vmsumubm`: per word, c plus the four unsigned byte products, modulo
/// 2^32.
#[inline(always)]
pub fn vmsumubm(a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe {
        let (a, b) = (m(a), m(b));
        let low = _mm_set1_epi16(0x00FF);
        let even = _mm_madd_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low));
        let odd = _mm_madd_epi16(_mm_srli_epi16::<8>(a), _mm_srli_epi16::<8>(b));
        _mm_add_epi32(_mm_add_epi32(even, odd), m(c))
    })
}

/// `vmhaddshs`: (a×b >> 15) + c per signed halfword, saturated. The
/// shifted product is +32768 (shown as -32768) only for -32768 × -32768,
/// which is added as the positive number it is.
#[inline(always)]
pub fn vmhaddshs(vscr: &mut u32, a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2 and SSSE3 (`mulhrs_epi16`), enabled for this build.
    let (t, t_sign) = unsafe {
        let (a, b) = (m(a), m(b));
        // pmulhrsw's (a×b + 0x4000) >> 15, less one where bit 14 of the
        // product (of its low halfword) is set: the rounding carried.
        // (Built from pmulhw/pmullw instead, LLVM turns it into 32-bit
        // pmulld on the widened operands, half the speed.)
        let lo = _mm_mullo_epi16(a, b);
        let carried = _mm_srai_epi16::<15>(_mm_slli_epi16::<1>(lo));
        let t = _mm_add_epi16(_mm_mulhrs_epi16(a, b), carried);
        let wrapped = _mm_cmpeq_epi16(t, _mm_set1_epi16(i16::MIN));
        (t, _mm_xor_si128(t, wrapped))
    };
    let (r, ov) = adds16(t_sign, t, m(c));
    note_sat(vscr, any(ov));
    v(r)
}

/// `vmhraddshs`: (a×b + 0x4000 >> 15) + c per signed halfword, saturated.
/// The rounded product is `pmulhrsw`'s; +32768 (-32768 × -32768) as in
/// [`vmhaddshs`].
#[inline(always)]
pub fn vmhraddshs(vscr: &mut u32, a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2 and SSSE3 (`mulhrs_epi16`), enabled for this build.
    let (t, t_sign) = unsafe {
        let t = _mm_mulhrs_epi16(m(a), m(b));
        let wrapped = _mm_cmpeq_epi16(t, _mm_set1_epi16(i16::MIN));
        (t, _mm_xor_si128(t, wrapped))
    };
    let (r, ov) = adds16(t_sign, t, m(c));
    note_sat(vscr, any(ov));
    v(r)
}

/// `vmladduhm`: a×b + c per halfword, modulo 2^16.
#[inline(always)]
pub fn vmladduhm(a: V128, b: V128, c: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_add_epi16(_mm_mullo_epi16(m(a), m(b)), m(c)) })
}

// ------------------------------------------------------------- packs

/// `vpkshus`: a's then b's signed halfwords to unsigned bytes, saturated.
/// (Host order: b's lanes are the low half, hence `packus(b, a)`.)
#[inline(always)]
pub fn vpkshus(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`testz`), enabled for this build.
    unsafe {
        // Out of 0..=255 exactly when the high byte is not zero.
        note_sat(
            vscr,
            _mm_testz_si128(_mm_or_si128(a, b), _mm_set1_epi16(0xFF00u16 as i16)) == 0,
        );
        v(_mm_packus_epi16(b, a))
    }
}

/// `vpkshss`: signed halfwords to signed bytes, saturated.
#[inline(always)]
pub fn vpkshss(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`testz`), enabled for this build.
    unsafe {
        // Out of -128..=127 exactly when x + 128 is not in 0..=255.
        let bias = _mm_set1_epi16(0x80);
        let biased = _mm_or_si128(_mm_add_epi16(a, bias), _mm_add_epi16(b, bias));
        note_sat(
            vscr,
            _mm_testz_si128(biased, _mm_set1_epi16(0xFF00u16 as i16)) == 0,
        );
        v(_mm_packs_epi16(b, a))
    }
}

/// `vpkuhus`: unsigned halfwords to unsigned bytes, saturated.
#[inline(always)]
pub fn vpkuhus(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`min_epu16`, `testz`), enabled for this build.
    unsafe {
        let high = _mm_set1_epi16(0xFF00u16 as i16);
        note_sat(vscr, _mm_testz_si128(_mm_or_si128(a, b), high) == 0);
        let max = _mm_set1_epi16(0xFF);
        v(_mm_packus_epi16(
            _mm_min_epu16(b, max),
            _mm_min_epu16(a, max),
        ))
    }
}

/// `vpkswss`: signed words to signed halfwords, saturated.
#[inline(always)]
pub fn vpkswss(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`testz`), enabled for this build.
    unsafe {
        let bias = _mm_set1_epi32(0x8000);
        let biased = _mm_or_si128(_mm_add_epi32(a, bias), _mm_add_epi32(b, bias));
        note_sat(
            vscr,
            _mm_testz_si128(biased, _mm_set1_epi32(0xFFFF_0000u32 as i32)) == 0,
        );
        v(_mm_packs_epi32(b, a))
    }
}

/// `vpkswus`: signed words to unsigned halfwords, saturated.
#[inline(always)]
pub fn vpkswus(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`packus_epi32`, `testz`), enabled for this build.
    unsafe {
        let high = _mm_set1_epi32(0xFFFF_0000u32 as i32);
        note_sat(vscr, _mm_testz_si128(_mm_or_si128(a, b), high) == 0);
        v(_mm_packus_epi32(b, a))
    }
}

/// `vpkuwus`: unsigned words to unsigned halfwords, saturated.
#[inline(always)]
pub fn vpkuwus(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`min_epu32`, `packus_epi32`, `testz`),
    // enabled for this build.
    unsafe {
        let high = _mm_set1_epi32(0xFFFF_0000u32 as i32);
        note_sat(vscr, _mm_testz_si128(_mm_or_si128(a, b), high) == 0);
        let max = _mm_set1_epi32(0xFFFF);
        v(_mm_packus_epi32(
            _mm_min_epu32(b, max),
            _mm_min_epu32(a, max),
        ))
    }
}

/// `vpkuwum`: the low halfwords of a's then b's words.
#[inline(always)]
pub fn vpkuwum(a: V128, b: V128) -> V128 {
    // SAFETY: SSE2 and SSE4.1 (`packus_epi32`), enabled for this build.
    v(unsafe {
        let low = _mm_set1_epi32(0xFFFF);
        _mm_packus_epi32(_mm_and_si128(m(b), low), _mm_and_si128(m(a), low))
    })
}

/// `vpkuhum`: the low bytes of a's then b's halfwords.
#[inline(always)]
pub fn vpkuhum(a: V128, b: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe {
        let low = _mm_set1_epi16(0xFF);
        _mm_packus_epi16(_mm_and_si128(m(b), low), _mm_and_si128(m(a), low))
    })
}

// ------------------------------------------------------------- merges

macro_rules! merge {
    ($($(#[$doc:meta])* $name:ident = $op:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            // SAFETY: SSE2, enabled for this build.
            v(unsafe { $op(m(b), m(a)) })
        }
    )*};
}
merge! {
    /// `vmrghb`: guest high half is the host high half; b's lane comes
    /// first in host order.
    vmrghb = _mm_unpackhi_epi8;
    /// `vmrghh`
    vmrghh = _mm_unpackhi_epi16;
    /// `vmrghw`
    vmrghw = _mm_unpackhi_epi32;
    /// `vmrglb`
    vmrglb = _mm_unpacklo_epi8;
    /// `vmrglh`
    vmrglh = _mm_unpacklo_epi16;
    /// `vmrglw`
    vmrglw = _mm_unpacklo_epi32;
}

// ------------------------------------------------------------- lane-wise arithmetic

macro_rules! lanewise {
    ($($(#[$doc:meta])* $name:ident = $op:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            // SAFETY: SSE2 to SSE4.1, enabled for this build.
            v(unsafe { $op(m(a), m(b)) })
        }
    )*};
}
lanewise! {
    /// `vaddubm`
    vaddubm = _mm_add_epi8;
    /// `vadduhm`
    vadduhm = _mm_add_epi16;
    /// `vadduwm`
    vadduwm = _mm_add_epi32;
    /// `vsububm`
    vsububm = _mm_sub_epi8;
    /// `vsubuhm`
    vsubuhm = _mm_sub_epi16;
    /// `vsubuwm`
    vsubuwm = _mm_sub_epi32;
    /// `vmaxub`
    vmaxub = _mm_max_epu8;
    /// `vmaxuh`
    vmaxuh = _mm_max_epu16;
    /// `vmaxuw`
    vmaxuw = _mm_max_epu32;
    /// `vmaxsb`
    vmaxsb = _mm_max_epi8;
    /// `vmaxsh`
    vmaxsh = _mm_max_epi16;
    /// `vmaxsw`
    vmaxsw = _mm_max_epi32;
    /// `vminub`
    vminub = _mm_min_epu8;
    /// `vminuh`
    vminuh = _mm_min_epu16;
    /// `vminuw`
    vminuw = _mm_min_epu32;
    /// `vminsb`
    vminsb = _mm_min_epi8;
    /// `vminsh`
    vminsh = _mm_min_epi16;
    /// `vminsw`
    vminsw = _mm_min_epi32;
    /// `vavgub`
    vavgub = _mm_avg_epu8;
    /// `vavguh`
    vavguh = _mm_avg_epu16;
    /// `vand`
    vand = _mm_and_si128;
    /// `vor`
    vor = _mm_or_si128;
    /// `vxor`
    vxor = _mm_xor_si128;
    /// `vcmpequb`
    vcmpequb = _mm_cmpeq_epi8;
    /// `vcmpequh`
    vcmpequh = _mm_cmpeq_epi16;
    /// `vcmpequw`
    vcmpequw = _mm_cmpeq_epi32;
    /// `vcmpgtsb`
    vcmpgtsb = _mm_cmpgt_epi8;
    /// `vcmpgtsh`
    vcmpgtsh = _mm_cmpgt_epi16;
    /// `vcmpgtsw`
    vcmpgtsw = _mm_cmpgt_epi32;
}

/// `vandc`: a & !b.
#[inline(always)]
pub fn vandc(a: V128, b: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_andnot_si128(m(b), m(a)) })
}

/// `vnor`: !(a | b).
#[inline(always)]
pub fn vnor(a: V128, b: V128) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_xor_si128(_mm_or_si128(m(a), m(b)), _mm_set1_epi32(-1)) })
}

/// `vsel`: bits of b where c is 1, of a where c is 0.
#[inline(always)]
pub fn vsel(a: V128, b: V128, c: V128) -> V128 {
    let c = m(c);
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_or_si128(_mm_and_si128(c, m(b)), _mm_andnot_si128(c, m(a))) })
}

macro_rules! signed_average {
    ($($(#[$doc:meta])* $name:ident = $avg:ident, $set1:ident, $bias:expr;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            // SAFETY: SSE2, enabled for this build.
            v(unsafe {
                let bias = $set1($bias);
                _mm_xor_si128($avg(_mm_xor_si128(m(a), bias), _mm_xor_si128(m(b), bias)), bias)
            })
        }
    )*};
}
signed_average! {
    /// `vavgsb`: the unsigned average of the operands biased by 128.
    vavgsb = _mm_avg_epu8, _mm_set1_epi8, i8::MIN;
    /// `vavgsh`: the unsigned average of the operands biased by 32768.
    vavgsh = _mm_avg_epu16, _mm_set1_epi16, i16::MIN;
}

macro_rules! unsigned_compare {
    ($($(#[$doc:meta])* $name:ident = $cmp:ident, $set1:ident, $bias:expr;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            // SAFETY: SSE2, enabled for this build.
            v(unsafe {
                let bias = $set1($bias);
                $cmp(_mm_xor_si128(m(a), bias), _mm_xor_si128(m(b), bias))
            })
        }
    )*};
}
unsigned_compare! {
    /// `vcmpgtub`: a signed compare of the operands with their sign bits flipped.
    vcmpgtub = _mm_cmpgt_epi8, _mm_set1_epi8, i8::MIN;
    /// `vcmpgtuh`
    vcmpgtuh = _mm_cmpgt_epi16, _mm_set1_epi16, i16::MIN;
    /// `vcmpgtuw`
    vcmpgtuw = _mm_cmpgt_epi32, _mm_set1_epi32, i32::MIN;
}

// ------------------------------------------------------------- saturating add/sub

macro_rules! saturating_hw {
    ($($(#[$doc:meta])* $name:ident = $sat:ident, $wrap:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(vscr: &mut u32, a: V128, b: V128) -> V128 {
            let (a, b) = (m(a), m(b));
            // SAFETY: SSE2, enabled for this build.
            let (r, w) = unsafe { ($sat(a, b), $wrap(a, b)) };
            // A lane saturated exactly when it differs from the modulo result.
            // SAFETY: SSE2.
            note_sat(vscr, any(unsafe { _mm_xor_si128(r, w) }));
            v(r)
        }
    )*};
}
saturating_hw! {
    /// `vaddubs`
    vaddubs = _mm_adds_epu8, _mm_add_epi8;
    /// `vadduhs`
    vadduhs = _mm_adds_epu16, _mm_add_epi16;
    /// `vaddsbs`
    vaddsbs = _mm_adds_epi8, _mm_add_epi8;
    /// `vaddshs`
    vaddshs = _mm_adds_epi16, _mm_add_epi16;
    /// `vsububs`
    vsububs = _mm_subs_epu8, _mm_sub_epi8;
    /// `vsubuhs`
    vsubuhs = _mm_subs_epu16, _mm_sub_epi16;
    /// `vsubsbs`
    vsubsbs = _mm_subs_epi8, _mm_sub_epi8;
    /// `vsubshs`
    vsubshs = _mm_subs_epi16, _mm_sub_epi16;
}

/// `vaddsws`: signed words, saturated.
#[inline(always)]
pub fn vaddsws(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let a = m(a);
    let (r, ov) = adds32(a, a, m(b));
    note_sat(vscr, any_sign32(ov));
    v(r)
}

/// `vsubsws`: signed words, saturated.
#[inline(always)]
pub fn vsubsws(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`blendv_ps`), enabled for this build.
    let (r, ov) = unsafe {
        let r = _mm_sub_epi32(a, b);
        // Overflow: a and b of different signs, r's sign not a's.
        let ov = _mm_and_si128(_mm_xor_si128(a, b), _mm_xor_si128(a, r));
        let limit = _mm_xor_si128(_mm_srai_epi32::<31>(a), _mm_set1_epi32(i32::MAX));
        let out = _mm_blendv_ps(
            _mm_castsi128_ps(r),
            _mm_castsi128_ps(limit),
            _mm_castsi128_ps(ov),
        );
        (_mm_castps_si128(out), ov)
    };
    note_sat(vscr, any_sign32(ov));
    v(r)
}

/// `vadduws`: unsigned words, saturated (a carry shows as a sum below a).
#[inline(always)]
pub fn vadduws(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let a = m(a);
    // SAFETY: SSE2 and SSE4.1 (`max_epu32`), enabled for this build.
    let (r, carry) = unsafe {
        let r = _mm_add_epi32(a, m(b));
        let no_carry = _mm_cmpeq_epi32(_mm_max_epu32(r, a), r);
        let carry = _mm_xor_si128(no_carry, _mm_set1_epi32(-1));
        (_mm_or_si128(r, carry), carry)
    };
    note_sat(vscr, any(carry));
    v(r)
}

/// `vsubuws`: unsigned words, saturated at zero.
#[inline(always)]
pub fn vsubuws(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (a, b) = (m(a), m(b));
    // SAFETY: SSE2 and SSE4.1 (`max_epu32`), enabled for this build.
    let (r, borrow) = unsafe {
        let no_borrow = _mm_cmpeq_epi32(_mm_max_epu32(a, b), a);
        let r = _mm_and_si128(_mm_sub_epi32(a, b), no_borrow);
        (r, _mm_xor_si128(no_borrow, _mm_set1_epi32(-1)))
    };
    note_sat(vscr, any(borrow));
    v(r)
}

// ------------------------------------------------------------- shifts

/// Per-lane shifts of 32-bit lanes by `count & 31` (AVX2 `vpsllvd` and
/// friends).
#[cfg(target_feature = "avx2")]
macro_rules! shift_w {
    ($($(#[$doc:meta])* $name:ident = $op:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            // SAFETY: SSE2 and AVX2, enabled for this build.
            v(unsafe { $op(m(a), _mm_and_si128(m(b), _mm_set1_epi32(31))) })
        }
    )*};
}
#[cfg(target_feature = "avx2")]
shift_w! {
    /// `vslw`
    vslw = _mm_sllv_epi32;
    /// `vsrw`
    vsrw = _mm_srlv_epi32;
    /// `vsraw`
    vsraw = _mm_srav_epi32;
}

/// The halfword counts (`& 15`) of the high and the low halfword of each
/// 32-bit lane of `b`, each as a 32-bit count.
#[cfg(target_feature = "avx2")]
#[inline(always)]
fn half_counts(b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2, enabled for this build.
    unsafe {
        let n = _mm_and_si128(b, _mm_set1_epi16(15));
        (
            _mm_srli_epi32::<16>(n),
            _mm_and_si128(n, _mm_set1_epi32(0xFFFF)),
        )
    }
}

/// `vslh`: each halfword shifted left by its own count (`& 15`). AVX2 has
/// 32-bit variable shifts only: the high halfword of each 32-bit lane is
/// shifted in place, the low one on its own, and the halves are blended.
#[cfg(target_feature = "avx2")]
#[inline(always)]
pub fn vslh(a: V128, b: V128) -> V128 {
    let (a, (nh, nl)) = (m(a), half_counts(m(b)));
    // SAFETY: SSE2, SSE4.1 and AVX2, enabled for this build.
    v(unsafe {
        let hi = _mm_sllv_epi32(_mm_and_si128(a, _mm_set1_epi32(0xFFFF_0000u32 as i32)), nh);
        let lo = _mm_sllv_epi32(a, nl);
        _mm_blend_epi16::<0xAA>(lo, hi)
    })
}

/// `vsrh`: each halfword shifted right (logical) by its own count.
#[cfg(target_feature = "avx2")]
#[inline(always)]
pub fn vsrh(a: V128, b: V128) -> V128 {
    let (a, (nh, nl)) = (m(a), half_counts(m(b)));
    // SAFETY: SSE2, SSE4.1 and AVX2, enabled for this build.
    v(unsafe {
        let hi = _mm_srlv_epi32(a, nh);
        let lo = _mm_srlv_epi32(_mm_and_si128(a, _mm_set1_epi32(0xFFFF)), nl);
        _mm_blend_epi16::<0xAA>(lo, hi)
    })
}

/// `vsrah`: each halfword shifted right (arithmetic) by its own count; the
/// low halfword is shifted at the top of the lane and moved down.
#[cfg(target_feature = "avx2")]
#[inline(always)]
pub fn vsrah(a: V128, b: V128) -> V128 {
    let (a, (nh, nl)) = (m(a), half_counts(m(b)));
    // SAFETY: SSE2, SSE4.1 and AVX2, enabled for this build.
    v(unsafe {
        let hi = _mm_srav_epi32(a, nh);
        let lo = _mm_srli_epi32::<16>(_mm_srav_epi32(_mm_slli_epi32::<16>(a), nl));
        _mm_blend_epi16::<0xAA>(lo, hi)
    })
}

/// Lane loops for the shifts where AVX2 is not enabled: host-order lanes,
/// no element views (the same work as the reference, no worse).
#[cfg(not(target_feature = "avx2"))]
macro_rules! shift_loop {
    ($($(#[$doc:meta])* $name:ident = $t:ty, $bits:expr, |$x:ident, $n:ident| $e:expr;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            let mut r = 0u128;
            let mut i = 0;
            while i < 128 / $bits {
                let $x = (a.0 >> ($bits * i)) as $t;
                let $n = (b.0 >> ($bits * i)) as u32 & ($bits - 1);
                let y: $t = $e;
                r |= u128::from(y) << ($bits * i);
                i += 1;
            }
            V128(r)
        }
    )*};
}
#[cfg(not(target_feature = "avx2"))]
shift_loop! {
    /// `vslh`
    vslh = u16, 16, |x, n| x << n;
    /// `vsrh`
    vsrh = u16, 16, |x, n| x >> n;
    /// `vsrah`
    vsrah = u16, 16, |x, n| ((x as i16) >> n) as u16;
    /// `vslw`
    vslw = u32, 32, |x, n| x << n;
    /// `vsrw`
    vsrw = u32, 32, |x, n| x >> n;
    /// `vsraw`
    vsraw = u32, 32, |x, n| ((x as i32) >> n) as u32;
}

// ------------------------------------------------------------- unpacks

/// `vupkhsh`: guest halfwords 0..4 (host 4..8) sign-extended to words.
#[inline(always)]
pub fn vupkhsh(b: V128) -> V128 {
    let b = m(b);
    // SAFETY: SSE2 and SSE4.1 (`cvtepi16_epi32`), enabled for this build.
    v(unsafe { _mm_cvtepi16_epi32(_mm_unpackhi_epi64(b, b)) })
}

/// `vupklsh`: guest halfwords 4..8 (host 0..4) sign-extended to words.
#[inline(always)]
pub fn vupklsh(b: V128) -> V128 {
    // SAFETY: SSE4.1, enabled for this build.
    v(unsafe { _mm_cvtepi16_epi32(m(b)) })
}

/// `vupkhsb`: guest bytes 0..8 (host 8..16) sign-extended to halfwords.
#[inline(always)]
pub fn vupkhsb(b: V128) -> V128 {
    let b = m(b);
    // SAFETY: SSE2 and SSE4.1 (`cvtepi8_epi16`), enabled for this build.
    v(unsafe { _mm_cvtepi8_epi16(_mm_unpackhi_epi64(b, b)) })
}

/// `vupklsb`: guest bytes 8..16 (host 0..8) sign-extended to halfwords.
#[inline(always)]
pub fn vupklsb(b: V128) -> V128 {
    // SAFETY: SSE4.1, enabled for this build.
    v(unsafe { _mm_cvtepi8_epi16(m(b)) })
}

// ------------------------------------------------------------- splats, permute

/// `vspltb`: guest byte `uimm & 15` (host byte 15 - that) everywhere.
#[inline(always)]
pub fn vspltb(b: V128, uimm: u32) -> V128 {
    let j = 15 - (uimm & 15) as i8;
    // SAFETY: SSE2 and SSSE3 (`shuffle_epi8`), enabled for this build.
    v(unsafe { _mm_shuffle_epi8(m(b), _mm_set1_epi8(j)) })
}

/// `vsplth`: guest halfword `uimm & 7` (host halfword 7 - that) everywhere.
#[inline(always)]
pub fn vsplth(b: V128, uimm: u32) -> V128 {
    let j = 7 - (uimm & 7) as i16;
    // SAFETY: SSE2 and SSSE3 (`shuffle_epi8`), enabled for this build.
    v(unsafe { _mm_shuffle_epi8(m(b), _mm_set1_epi16(((2 * j + 1) << 8) | (2 * j))) })
}

/// `vspltw`: guest word `uimm & 3` (host word 3 - that) everywhere.
#[inline(always)]
pub fn vspltw(b: V128, uimm: u32) -> V128 {
    let j = 3 - (uimm & 3) as i32;
    // SAFETY: SSE2 and SSSE3 (`shuffle_epi8`), enabled for this build.
    v(unsafe { _mm_shuffle_epi8(m(b), _mm_set1_epi32(0x0302_0100 + 0x0404_0404 * j)) })
}

/// `vspltisb`: the 5-bit signed immediate in every byte.
#[inline(always)]
pub fn vspltisb(simm: i32) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_set1_epi8(simm as i8) })
}

/// `vspltish`: the immediate in every halfword.
#[inline(always)]
pub fn vspltish(simm: i32) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_set1_epi16(simm as i16) })
}

/// `vspltisw`: the immediate in every word.
#[inline(always)]
pub fn vspltisw(simm: i32) -> V128 {
    // SAFETY: SSE2, enabled for this build.
    v(unsafe { _mm_set1_epi32(simm) })
}

/// `vperm`: byte i is byte (c[i] & 31) of a ‖ b. Guest index k is host
/// byte 15 - (k & 15), i.e. `!k & 15` (`pandn` also clears bit 7, which
/// would zero a `pshufb` lane); bit 4 of k picks b, moved to bit 7 for
/// `pblendvb`.
#[inline(always)]
pub fn vperm(a: V128, b: V128, c: V128) -> V128 {
    let c = m(c);
    // SAFETY: SSE2, SSSE3 and SSE4.1, enabled for this build.
    v(unsafe {
        let idx = _mm_andnot_si128(c, _mm_set1_epi8(0x0F));
        let pa = _mm_shuffle_epi8(m(a), idx);
        let pb = _mm_shuffle_epi8(m(b), idx);
        _mm_blendv_epi8(pa, pb, _mm_slli_epi16::<3>(c))
    })
}

// ------------------------------------------------------------- tests

#[cfg(test)]
mod tests {
    //! Each SIMD form against its scalar reference, bit for bit (result and
    //! VSCR, from VSCR 0, SAT, NJ and NJ|SAT), on 100,000 operand sets of
    //! random and edge values per operation.

    use crate::context::{V128, VSCR_NJ, VSCR_SAT};
    use crate::helpers::vmx::reference;

    const CASES: usize = 100_000;
    const STARTS: [u32; 4] = [0, VSCR_SAT, VSCR_NJ, VSCR_NJ | VSCR_SAT];

    const EDGE_WORDS: &[u32] = &[
        0,
        1,
        0xFFFF_FFFF,
        0x8000_0000,
        0x7FFF_FFFF,
        0x8000_0001,
        0x7FFF_FFFE,
        0x0000_FFFF,
        0x0001_0000,
        0x0000_7FFF,
        0x0000_8000,
        0xFFFF_8000,
        0xFFFF_7FFF,
        0x8000_8000,
        0x7FFF_7FFF,
    ];
    const EDGE_HALVES: &[u16] = &[
        0, 1, 0xFFFF, 0x8000, 0x7FFF, 0x8001, 0x7FFE, 0x00FF, 0x0100, 0xFF80, 0xFF7F, 0x007F,
        0x0080, 0x000F, 0x0010, 0x001F,
    ];
    const EDGE_BYTES: &[u8] = &[0, 1, 0x7F, 0x80, 0x81, 0xFF, 0x0F, 0x10, 0x1F];

    /// xorshift64, seeded per operation.
    struct Rng(u64);
    impl Rng {
        fn new(name: &str) -> Rng {
            Rng(name.bytes().fold(0x9E37_79B9_7F4A_7C15, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
            }) | 1)
        }
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[(self.next() % xs.len() as u64) as usize]
        }
        /// One word: random, an edge word, two edge halfwords, four edge
        /// bytes, or from the few values that make every saturating lane
        /// and the -32768 × -32768 products likely.
        fn word(&mut self, mode: u64) -> u32 {
            match mode {
                0 => self.next() as u32,
                1 => self.pick(EDGE_WORDS),
                2 => (u32::from(self.pick(EDGE_HALVES)) << 16) | u32::from(self.pick(EDGE_HALVES)),
                3 => u32::from_be_bytes([
                    self.pick(EDGE_BYTES),
                    self.pick(EDGE_BYTES),
                    self.pick(EDGE_BYTES),
                    self.pick(EDGE_BYTES),
                ]),
                _ => {
                    let few = [0u16, 0x8000, 0x7FFF, 0xFFFF];
                    (u32::from(self.pick(&few)) << 16) | u32::from(self.pick(&few))
                }
            }
        }
        fn vec(&mut self) -> V128 {
            // Mostly one mode per vector, sometimes one per word.
            let whole = self.next() % 6;
            let mut x = 0u128;
            for _ in 0..4 {
                let mode = if whole == 5 { self.next() % 5 } else { whole };
                x = (x << 32) | u128::from(self.word(mode));
            }
            V128(x)
        }
    }

    fn fail(name: &str, ops: &[V128], start: u32, fast: (V128, u32), slow: (V128, u32)) -> ! {
        panic!(
            "{name}{ops:?} from VSCR {start:#x}: SIMD {:?} VSCR {:#x}, reference {:?} VSCR {:#x}",
            fast.0, fast.1, slow.0, slow.1
        )
    }

    type S3 = fn(&mut u32, V128, V128, V128) -> V128;
    type S2 = fn(&mut u32, V128, V128) -> V128;
    type P3 = fn(V128, V128, V128) -> V128;
    type P2 = fn(V128, V128) -> V128;
    type P1 = fn(V128) -> V128;
    type Imm = fn(V128, u32) -> V128;
    type SImm = fn(i32) -> V128;

    fn check_s3(name: &str, fast: S3, slow: S3) {
        let mut rng = Rng::new(name);
        for _ in 0..CASES {
            let (a, b, c) = (rng.vec(), rng.vec(), rng.vec());
            for start in STARTS {
                let (mut vf, mut vs) = (start, start);
                let (f, s) = (fast(&mut vf, a, b, c), slow(&mut vs, a, b, c));
                if (f, vf) != (s, vs) {
                    fail(name, &[a, b, c], start, (f, vf), (s, vs));
                }
            }
        }
    }

    fn check_s2(name: &str, fast: S2, slow: S2) {
        let mut rng = Rng::new(name);
        for _ in 0..CASES {
            let (a, b) = (rng.vec(), rng.vec());
            for start in STARTS {
                let (mut vf, mut vs) = (start, start);
                let (f, s) = (fast(&mut vf, a, b), slow(&mut vs, a, b));
                if (f, vf) != (s, vs) {
                    fail(name, &[a, b], start, (f, vf), (s, vs));
                }
            }
        }
    }

    fn check_p3(name: &str, fast: P3, slow: P3) {
        let mut rng = Rng::new(name);
        for _ in 0..CASES {
            let (a, b, c) = (rng.vec(), rng.vec(), rng.vec());
            let (f, s) = (fast(a, b, c), slow(a, b, c));
            if f != s {
                fail(name, &[a, b, c], 0, (f, 0), (s, 0));
            }
        }
    }

    fn check_p2(name: &str, fast: P2, slow: P2) {
        let mut rng = Rng::new(name);
        for _ in 0..CASES {
            let (a, b) = (rng.vec(), rng.vec());
            let (f, s) = (fast(a, b), slow(a, b));
            if f != s {
                fail(name, &[a, b], 0, (f, 0), (s, 0));
            }
        }
    }

    fn check_p1(name: &str, fast: P1, slow: P1) {
        let mut rng = Rng::new(name);
        for _ in 0..CASES {
            let a = rng.vec();
            let (f, s) = (fast(a), slow(a));
            if f != s {
                fail(name, &[a], 0, (f, 0), (s, 0));
            }
        }
    }

    fn check_imm(name: &str, fast: Imm, slow: Imm) {
        let mut rng = Rng::new(name);
        for k in 0..CASES {
            let (a, uimm) = (rng.vec(), k as u32 % 32);
            let (f, s) = (fast(a, uimm), slow(a, uimm));
            if f != s {
                fail(name, &[a, V128(uimm.into())], 0, (f, 0), (s, 0));
            }
        }
    }

    fn check_simm(name: &str, fast: SImm, slow: SImm) {
        for simm in -16..16 {
            let (f, s) = (fast(simm), slow(simm));
            if f != s {
                fail(name, &[V128(simm as u128)], 0, (f, 0), (s, 0));
            }
        }
    }

    macro_rules! tests {
        ($check:ident: $($name:ident),* $(,)?) => {$(
            #[test]
            fn $name() {
                $check(stringify!($name), super::$name, reference::$name);
            }
        )*};
    }

    tests!(check_s3: vmsumshs, vmhaddshs, vmhraddshs);
    tests!(check_p3: vmladduhm, vmsumuhm, vmsumshm, vmsummbm, vmsumubm, vsel, vperm);
    tests!(check_s2: vpkshus, vpkshss, vpkswss, vpkswus, vpkuhus, vpkuwus);
    tests!(check_s2: vaddubs, vadduhs, vadduws, vaddsbs, vaddshs, vaddsws);
    tests!(check_s2: vsububs, vsubuhs, vsubuws, vsubsbs, vsubshs, vsubsws);
    tests!(check_p2: vpkuwum, vpkuhum, vmrghb, vmrghh, vmrghw, vmrglb, vmrglh, vmrglw);
    tests!(check_p2: vslh, vslw, vsrh, vsrw, vsrah, vsraw);
    tests!(check_p2: vaddubm, vadduhm, vadduwm, vsububm, vsubuhm, vsubuwm);
    tests!(check_p2: vmaxub, vmaxuh, vmaxuw, vmaxsb, vmaxsh, vmaxsw);
    tests!(check_p2: vminub, vminuh, vminuw, vminsb, vminsh, vminsw);
    tests!(check_p2: vavgub, vavguh, vavgsb, vavgsh);
    tests!(check_p2: vand, vandc, vor, vxor, vnor);
    tests!(check_p2: vcmpequb, vcmpequh, vcmpequw, vcmpgtsb, vcmpgtsh, vcmpgtsw);
    tests!(check_p2: vcmpgtub, vcmpgtuh, vcmpgtuw);
    tests!(check_p1: vupkhsh, vupklsh, vupkhsb, vupklsb);
    tests!(check_imm: vspltb, vsplth, vspltw);
    tests!(check_simm: vspltisb, vspltish, vspltisw);
}
