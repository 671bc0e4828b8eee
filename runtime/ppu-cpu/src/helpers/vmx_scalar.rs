//! VMX (AltiVec) semantics on [`V128`], element 0 first as the guest sees
//! it: the scalar reference of every operation ([`super::vmx`] is what
//! callers use; it re-exports these and puts SIMD forms in front of some). Pure functions; the saturating ones take VSCR by reference to set
//! SAT, the float ones read VSCR[NJ] (non-Java mode: denormal inputs and
//! results are flushed to zero, sign kept).

use crate::context::{V128, VSCR_NJ, VSCR_SAT};

// ------------------------------------------------------------- element views

/// `[f(0), f(1), ...]`: what `std::array::from_fn` does, in a plain loop
/// that always inlines (from_fn's closure is often left out of line in
/// lifted code, which made every vector operation a call per lane).
#[inline(always)]
fn lanes<T: Copy + Default, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [T::default(); N];
    let mut i = 0;
    while i < N {
        out[i] = f(i);
        i += 1;
    }
    out
}

/// The 16 bytes, element 0 first.
#[inline(always)]
pub fn bytes(v: V128) -> [u8; 16] {
    v.0.to_be_bytes()
}
/// From 16 bytes, element 0 first.
#[inline(always)]
pub fn from_bytes(b: [u8; 16]) -> V128 {
    V128(u128::from_be_bytes(b))
}
/// The 8 halfwords, element 0 first.
#[inline(always)]
pub fn halves(v: V128) -> [u16; 8] {
    lanes(|i| (v.0 >> (112 - 16 * i)) as u16)
}
/// From 8 halfwords, element 0 first.
#[inline(always)]
pub fn from_halves(h: [u16; 8]) -> V128 {
    V128(h.iter().fold(0u128, |acc, &x| acc << 16 | u128::from(x)))
}
/// The 4 words, element 0 first.
#[inline(always)]
pub fn words(v: V128) -> [u32; 4] {
    lanes(|i| (v.0 >> (96 - 32 * i)) as u32)
}
/// From 4 words, element 0 first.
#[inline(always)]
pub fn from_words(w: [u32; 4]) -> V128 {
    V128(w.iter().fold(0u128, |acc, &x| acc << 32 | u128::from(x)))
}
/// Byte element `i`.
#[inline(always)]
pub fn byte(v: V128, i: usize) -> u8 {
    (v.0 >> (120 - 8 * i)) as u8
}
/// Halfword element `i`.
#[inline(always)]
pub fn half(v: V128, i: usize) -> u16 {
    (v.0 >> (112 - 16 * i)) as u16
}
/// Word element `i`.
#[inline(always)]
pub fn word(v: V128, i: usize) -> u32 {
    (v.0 >> (96 - 32 * i)) as u32
}

#[inline(always)]
fn map_b(a: V128, b: V128, mut f: impl FnMut(u8, u8) -> u8) -> V128 {
    let (x, y) = (bytes(a), bytes(b));
    from_bytes(lanes(|i| f(x[i], y[i])))
}
#[inline(always)]
fn map_h(a: V128, b: V128, mut f: impl FnMut(u16, u16) -> u16) -> V128 {
    let (x, y) = (halves(a), halves(b));
    from_halves(lanes(|i| f(x[i], y[i])))
}
#[inline(always)]
fn map_w(a: V128, b: V128, mut f: impl FnMut(u32, u32) -> u32) -> V128 {
    let (x, y) = (words(a), words(b));
    from_words(lanes(|i| f(x[i], y[i])))
}

#[inline(always)]
fn sat(vscr: &mut u32, s: bool) {
    if s {
        *vscr |= VSCR_SAT;
    }
}

/// Saturates `x` into `lo..=hi`, noting saturation.
#[inline(always)]
fn clamp(x: i64, lo: i64, hi: i64, s: &mut bool) -> i64 {
    if x < lo {
        *s = true;
        lo
    } else if x > hi {
        *s = true;
        hi
    } else {
        x
    }
}

/// CR6 of a record-form vector compare: LT when every element is true (all
/// ones), EQ when every element is false.
#[inline(always)]
pub fn cr6(r: V128) -> u32 {
    if r.0 == u128::MAX {
        8
    } else if r.0 == 0 {
        2
    } else {
        0
    }
}

// ------------------------------------------------------------- integer arithmetic

macro_rules! modular {
    ($($(#[$m:meta])* $name:ident = $map:ident, $op:ident;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            $map(a, b, |x, y| x.$op(y))
        }
    )*};
}
modular! {
    /// `vaddubm`
    vaddubm = map_b, wrapping_add;
    /// `vadduhm`
    vadduhm = map_h, wrapping_add;
    /// `vadduwm`
    vadduwm = map_w, wrapping_add;
    /// `vsububm`
    vsububm = map_b, wrapping_sub;
    /// `vsubuhm`
    vsubuhm = map_h, wrapping_sub;
    /// `vsubuwm`
    vsubuwm = map_w, wrapping_sub;
    /// `vmaxub`
    vmaxub = map_b, max;
    /// `vmaxuh`
    vmaxuh = map_h, max;
    /// `vmaxuw`
    vmaxuw = map_w, max;
    /// `vminub`
    vminub = map_b, min;
    /// `vminuh`
    vminuh = map_h, min;
    /// `vminuw`
    vminuw = map_w, min;
}

/// `vaddcuw`: the carry out of each word sum.
#[inline(always)]
pub fn vaddcuw(a: V128, b: V128) -> V128 {
    map_w(a, b, |x, y| x.overflowing_add(y).1 as u32)
}
/// `vsubcuw`: the carry (not borrow) of each word difference.
#[inline(always)]
pub fn vsubcuw(a: V128, b: V128) -> V128 {
    map_w(a, b, |x, y| (x >= y) as u32)
}

macro_rules! signed_minmax {
    ($($(#[$m:meta])* $name:ident = $map:ident, $st:ty, $ut:ty, $op:ident;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            $map(a, b, |x, y| (x as $st).$op(y as $st) as $ut)
        }
    )*};
}
signed_minmax! {
    /// `vmaxsb`
    vmaxsb = map_b, i8, u8, max;
    /// `vmaxsh`
    vmaxsh = map_h, i16, u16, max;
    /// `vmaxsw`
    vmaxsw = map_w, i32, u32, max;
    /// `vminsb`
    vminsb = map_b, i8, u8, min;
    /// `vminsh`
    vminsh = map_h, i16, u16, min;
    /// `vminsw`
    vminsw = map_w, i32, u32, min;
}

macro_rules! saturating {
    ($($(#[$m:meta])* $name:ident = $map:ident, $conv:ty, $ut:ty, $lo:expr, $hi:expr, $sub:expr;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(vscr: &mut u32, a: V128, b: V128) -> V128 {
            let mut s = false;
            let r = $map(a, b, |x, y| {
                let (x, y) = (i64::from(x as $conv), i64::from(y as $conv));
                clamp(if $sub { x - y } else { x + y }, $lo, $hi, &mut s) as $ut
            });
            sat(vscr, s);
            r
        }
    )*};
}
saturating! {
    /// `vaddubs`
    vaddubs = map_b, u8, u8, 0, 255, false;
    /// `vadduhs`
    vadduhs = map_h, u16, u16, 0, 65535, false;
    /// `vadduws`
    vadduws = map_w, u32, u32, 0, 0xFFFF_FFFF, false;
    /// `vaddsbs`
    vaddsbs = map_b, i8, u8, -128, 127, false;
    /// `vaddshs`
    vaddshs = map_h, i16, u16, -32768, 32767, false;
    /// `vaddsws`
    vaddsws = map_w, i32, u32, i32::MIN as i64, i32::MAX as i64, false;
    /// `vsububs`
    vsububs = map_b, u8, u8, 0, 255, true;
    /// `vsubuhs`
    vsubuhs = map_h, u16, u16, 0, 65535, true;
    /// `vsubuws`
    vsubuws = map_w, u32, u32, 0, 0xFFFF_FFFF, true;
    /// `vsubsbs`
    vsubsbs = map_b, i8, u8, -128, 127, true;
    /// `vsubshs`
    vsubshs = map_h, i16, u16, -32768, 32767, true;
    /// `vsubsws`
    vsubsws = map_w, i32, u32, i32::MIN as i64, i32::MAX as i64, true;
}

macro_rules! average {
    ($($(#[$m:meta])* $name:ident = $map:ident, $conv:ty, $ut:ty;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            $map(a, b, |x, y| ((i64::from(x as $conv) + i64::from(y as $conv) + 1) >> 1) as $ut)
        }
    )*};
}
average! {
    /// `vavgub`
    vavgub = map_b, u8, u8;
    /// `vavguh`
    vavguh = map_h, u16, u16;
    /// `vavguw`
    vavguw = map_w, u32, u32;
    /// `vavgsb`
    vavgsb = map_b, i8, u8;
    /// `vavgsh`
    vavgsh = map_h, i16, u16;
    /// `vavgsw`
    vavgsw = map_w, i32, u32;
}

// ------------------------------------------------------------- logical, shifts

/// `vand`
#[inline(always)]
pub fn vand(a: V128, b: V128) -> V128 {
    V128(a.0 & b.0)
}
/// `vandc`
#[inline(always)]
pub fn vandc(a: V128, b: V128) -> V128 {
    V128(a.0 & !b.0)
}
/// `vor`
#[inline(always)]
pub fn vor(a: V128, b: V128) -> V128 {
    V128(a.0 | b.0)
}
/// `vnor`
#[inline(always)]
pub fn vnor(a: V128, b: V128) -> V128 {
    V128(!(a.0 | b.0))
}
/// `vxor`
#[inline(always)]
pub fn vxor(a: V128, b: V128) -> V128 {
    V128(a.0 ^ b.0)
}
/// `vsel`: bits of b where c is 1, of a where c is 0.
#[inline(always)]
pub fn vsel(a: V128, b: V128, c: V128) -> V128 {
    V128((a.0 & !c.0) | (b.0 & c.0))
}

macro_rules! shifts {
    ($($(#[$m:meta])* $name:ident = $map:ident, $bits:expr, |$x:ident, $n:ident| $e:expr;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            $map(a, b, |$x, y| { let $n = (y as u32) & ($bits - 1); $e })
        }
    )*};
}
shifts! {
    /// `vrlb`
    vrlb = map_b, 8, |x, n| x.rotate_left(n);
    /// `vrlh`
    vrlh = map_h, 16, |x, n| x.rotate_left(n);
    /// `vrlw`
    vrlw = map_w, 32, |x, n| x.rotate_left(n);
    /// `vslb`
    vslb = map_b, 8, |x, n| x << n;
    /// `vslh`
    vslh = map_h, 16, |x, n| x << n;
    /// `vslw`
    vslw = map_w, 32, |x, n| x << n;
    /// `vsrb`
    vsrb = map_b, 8, |x, n| x >> n;
    /// `vsrh`
    vsrh = map_h, 16, |x, n| x >> n;
    /// `vsrw`
    vsrw = map_w, 32, |x, n| x >> n;
    /// `vsrab`
    vsrab = map_b, 8, |x, n| ((x as i8) >> n) as u8;
    /// `vsrah`
    vsrah = map_h, 16, |x, n| ((x as i16) >> n) as u16;
    /// `vsraw`
    vsraw = map_w, 32, |x, n| ((x as i32) >> n) as u32;
}

/// `vsl`: shift the whole register left by the low 3 bits of b's last byte
/// (the ISA asks for every byte to hold the same count; the Cell and qemu
/// use each byte's own count for the bits shifted into it... qemu uses the
/// last byte's).
#[inline(always)]
pub fn vsl(a: V128, b: V128) -> V128 {
    V128(a.0 << (b.0 as u32 & 7))
}
/// `vsr`: as `vsl`, to the right.
#[inline(always)]
pub fn vsr(a: V128, b: V128) -> V128 {
    V128(a.0 >> (b.0 as u32 & 7))
}
/// `vslo`: shift left by octets (bits 121..124 of b).
#[inline(always)]
pub fn vslo(a: V128, b: V128) -> V128 {
    let n = (b.0 as u32 >> 3) & 15;
    V128(if n == 0 { a.0 } else { a.0 << (8 * n) })
}
/// `vsro`: shift right by octets.
#[inline(always)]
pub fn vsro(a: V128, b: V128) -> V128 {
    let n = (b.0 as u32 >> 3) & 15;
    V128(if n == 0 { a.0 } else { a.0 >> (8 * n) })
}
/// `vsldoi`: bytes `shb..shb+16` of a ‖ b.
#[inline(always)]
pub fn vsldoi(a: V128, b: V128, shb: u32) -> V128 {
    let s = shb & 15;
    if s == 0 {
        a
    } else {
        V128(a.0 << (8 * s) | b.0 >> (128 - 8 * s))
    }
}

/// `vperm` (scalar reference).
#[inline(always)]
pub fn vperm_ref(a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (bytes(a), bytes(b), bytes(c));
    from_bytes(lanes(|i| {
        let k = (z[i] & 31) as usize;
        if k < 16 { x[k] } else { y[k - 16] }
    }))
}

// ------------------------------------------------------------- splat, merge, pack

/// `vspltb`
#[inline(always)]
pub fn vspltb(b: V128, uimm: u32) -> V128 {
    V128(u128::from_ne_bytes([byte(b, (uimm & 15) as usize); 16]))
}
/// `vsplth`
#[inline(always)]
pub fn vsplth(b: V128, uimm: u32) -> V128 {
    from_halves([half(b, (uimm & 7) as usize); 8])
}
/// `vspltw`
#[inline(always)]
pub fn vspltw(b: V128, uimm: u32) -> V128 {
    from_words([word(b, (uimm & 3) as usize); 4])
}
/// `vspltisb`
#[inline(always)]
pub fn vspltisb(simm: i32) -> V128 {
    V128(u128::from_ne_bytes([simm as u8; 16]))
}
/// `vspltish`
#[inline(always)]
pub fn vspltish(simm: i32) -> V128 {
    from_halves([simm as u16; 8])
}
/// `vspltisw`
#[inline(always)]
pub fn vspltisw(simm: i32) -> V128 {
    from_words([simm as u32; 4])
}

macro_rules! merge {
    ($($(#[$m:meta])* $name:ident = $view:ident, $from:ident, $n:expr, $off:expr;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            let (x, y) = ($view(a), $view(b));
            $from(lanes(|i| if i % 2 == 0 { x[$off + i / 2] } else { y[$off + i / 2] }))
        }
    )*};
}
merge! {
    /// `vmrghb`
    vmrghb = bytes, from_bytes, 16, 0;
    /// `vmrghh`
    vmrghh = halves, from_halves, 8, 0;
    /// `vmrghw`
    vmrghw = words, from_words, 4, 0;
    /// `vmrglb`
    vmrglb = bytes, from_bytes, 16, 8;
    /// `vmrglh`
    vmrglh = halves, from_halves, 8, 4;
    /// `vmrglw`
    vmrglw = words, from_words, 4, 2;
}

/// `vpkuhum`: the low bytes of a's then b's halfwords.
#[inline(always)]
pub fn vpkuhum(a: V128, b: V128) -> V128 {
    let (x, y) = (halves(a), halves(b));
    from_bytes(lanes(|i| if i < 8 { x[i] as u8 } else { y[i - 8] as u8 }))
}
/// `vpkuwum`: the low halfwords of a's then b's words.
#[inline(always)]
pub fn vpkuwum(a: V128, b: V128) -> V128 {
    let (x, y) = (words(a), words(b));
    from_halves(lanes(|i| if i < 4 { x[i] as u16 } else { y[i - 4] as u16 }))
}

macro_rules! pack_sat {
    ($($(#[$m:meta])* $name:ident = $view:ident, $from:ident, $n:expr, $conv:ty, $out:ty, $lo:expr, $hi:expr;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(vscr: &mut u32, a: V128, b: V128) -> V128 {
            let (x, y) = ($view(a), $view(b));
            let mut s = false;
            let r = $from(lanes(|i| {
                let v = if i < $n { x[i] } else { y[i - $n] };
                clamp(i64::from(v as $conv), $lo, $hi, &mut s) as $out
            }));
            sat(vscr, s);
            r
        }
    )*};
}
pack_sat! {
    /// `vpkuhus`
    vpkuhus = halves, from_bytes, 8, u16, u8, 0, 255;
    /// `vpkuwus`
    vpkuwus = words, from_halves, 4, u32, u16, 0, 65535;
    /// `vpkshus`
    vpkshus = halves, from_bytes, 8, i16, u8, 0, 255;
    /// `vpkswus`
    vpkswus = words, from_halves, 4, i32, u16, 0, 65535;
    /// `vpkshss`
    vpkshss = halves, from_bytes, 8, i16, u8, -128, 127;
    /// `vpkswss`
    vpkswss = words, from_halves, 4, i32, u16, -32768, 32767;
}

/// `vpkpx`: words as 8:8:8:8 pixels packed to 1:5:5:5.
#[inline(always)]
pub fn vpkpx(a: V128, b: V128) -> V128 {
    let (x, y) = (words(a), words(b));
    from_halves(lanes(|i| {
        let w = if i < 4 { x[i] } else { y[i - 4] };
        (((w >> 24) & 1) << 15
            | ((w >> 19) & 0x1F) << 10
            | ((w >> 11) & 0x1F) << 5
            | ((w >> 3) & 0x1F)) as u16
    }))
}

/// `vupkhsb`: the high 8 bytes sign-extended to halfwords.
#[inline(always)]
pub fn vupkhsb(b: V128) -> V128 {
    let x = bytes(b);
    from_halves(lanes(|i| x[i] as i8 as u16))
}
/// `vupklsb`: the low 8 bytes sign-extended to halfwords.
#[inline(always)]
pub fn vupklsb(b: V128) -> V128 {
    let x = bytes(b);
    from_halves(lanes(|i| x[8 + i] as i8 as u16))
}
/// `vupkhsh`
#[inline(always)]
pub fn vupkhsh(b: V128) -> V128 {
    let x = halves(b);
    from_words(lanes(|i| x[i] as i16 as u32))
}
/// `vupklsh`
#[inline(always)]
pub fn vupklsh(b: V128) -> V128 {
    let x = halves(b);
    from_words(lanes(|i| x[4 + i] as i16 as u32))
}
fn unpack_px(h: u16) -> u32 {
    let h = u32::from(h);
    let a = if h & 0x8000 != 0 { 0xFF } else { 0 };
    a << 24 | ((h >> 10) & 0x1F) << 16 | ((h >> 5) & 0x1F) << 8 | (h & 0x1F)
}
/// `vupkhpx`
#[inline(always)]
pub fn vupkhpx(b: V128) -> V128 {
    let x = halves(b);
    from_words(lanes(|i| unpack_px(x[i])))
}
/// `vupklpx`
#[inline(always)]
pub fn vupklpx(b: V128) -> V128 {
    let x = halves(b);
    from_words(lanes(|i| unpack_px(x[4 + i])))
}

// ------------------------------------------------------------- multiply, sums

macro_rules! mul_eo {
    ($($(#[$m:meta])* $name:ident = $view:ident, $from:ident, $conv:ty, $wide:ty, $out:ty, $odd:expr;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            let (x, y) = ($view(a), $view(b));
            $from(lanes(|i| {
                let k = 2 * i + $odd;
                (<$wide>::from(x[k] as $conv) * <$wide>::from(y[k] as $conv)) as $out
            }))
        }
    )*};
}
mul_eo! {
    /// `vmuleub`
    vmuleub = bytes, from_halves, u8, u16, u16, 0;
    /// `vmuloub`
    vmuloub = bytes, from_halves, u8, u16, u16, 1;
    /// `vmulesb`
    vmulesb = bytes, from_halves, i8, i16, u16, 0;
    /// `vmulosb`
    vmulosb = bytes, from_halves, i8, i16, u16, 1;
    /// `vmuleuh`
    vmuleuh = halves, from_words, u16, u32, u32, 0;
    /// `vmulouh`
    vmulouh = halves, from_words, u16, u32, u32, 1;
    /// `vmulesh`
    vmulesh = halves, from_words, i16, i32, u32, 0;
    /// `vmulosh`
    vmulosh = halves, from_words, i16, i32, u32, 1;
}

/// `vmhaddshs`: (a×b >> 15) + c, saturated.
#[inline]
pub fn vmhaddshs(vscr: &mut u32, a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (halves(a), halves(b), halves(c));
    let mut s = false;
    let r = from_halves(lanes(|i| {
        let p = (i32::from(x[i] as i16) * i32::from(y[i] as i16)) >> 15;
        clamp(i64::from(p) + i64::from(z[i] as i16), -32768, 32767, &mut s) as u16
    }));
    sat(vscr, s);
    r
}
/// `vmhraddshs`: (a×b + 0x4000 >> 15) + c, saturated.
#[inline]
pub fn vmhraddshs(vscr: &mut u32, a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (halves(a), halves(b), halves(c));
    let mut s = false;
    let r = from_halves(lanes(|i| {
        let p = (i32::from(x[i] as i16) * i32::from(y[i] as i16) + 0x4000) >> 15;
        clamp(i64::from(p) + i64::from(z[i] as i16), -32768, 32767, &mut s) as u16
    }));
    sat(vscr, s);
    r
}
/// `vmladduhm`: a×b + c, modulo 2^16.
#[inline]
pub fn vmladduhm(a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (halves(a), halves(b), halves(c));
    from_halves(lanes(|i| x[i].wrapping_mul(y[i]).wrapping_add(z[i])))
}
/// `vmsumubm`: per word, the sum of four unsigned byte products plus c.
#[inline]
pub fn vmsumubm(a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (bytes(a), bytes(b), words(c));
    from_words(lanes(|i| {
        (0..4).fold(z[i], |acc, k| {
            acc.wrapping_add(u32::from(x[4 * i + k]) * u32::from(y[4 * i + k]))
        })
    }))
}
/// `vmsummbm`: signed bytes of a × unsigned bytes of b, summed per word, plus c.
#[inline]
pub fn vmsummbm(a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (bytes(a), bytes(b), words(c));
    from_words(lanes(|i| {
        (0..4).fold(z[i], |acc, k| {
            acc.wrapping_add((i32::from(x[4 * i + k] as i8) * i32::from(y[4 * i + k])) as u32)
        })
    }))
}
/// `vmsumuhm`
#[inline]
pub fn vmsumuhm(a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (halves(a), halves(b), words(c));
    from_words(lanes(|i| {
        (0..2).fold(z[i], |acc, k| {
            acc.wrapping_add(u32::from(x[2 * i + k]) * u32::from(y[2 * i + k]))
        })
    }))
}
/// `vmsumshm`
#[inline]
pub fn vmsumshm(a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (halves(a), halves(b), words(c));
    from_words(lanes(|i| {
        (0..2).fold(z[i], |acc, k| {
            acc.wrapping_add(
                (i32::from(x[2 * i + k] as i16) * i32::from(y[2 * i + k] as i16)) as u32,
            )
        })
    }))
}
/// `vmsumuhs`: as vmsumuhm, saturated to u32.
#[inline]
pub fn vmsumuhs(vscr: &mut u32, a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (halves(a), halves(b), words(c));
    let mut s = false;
    let r = from_words(lanes(|i| {
        let t = (0..2).fold(i64::from(z[i]), |acc, k| {
            acc + i64::from(x[2 * i + k]) * i64::from(y[2 * i + k])
        });
        clamp(t, 0, 0xFFFF_FFFF, &mut s) as u32
    }));
    sat(vscr, s);
    r
}
/// `vmsumshs`: as vmsumshm, saturated to i32.
#[inline]
pub fn vmsumshs(vscr: &mut u32, a: V128, b: V128, c: V128) -> V128 {
    let (x, y, z) = (halves(a), halves(b), words(c));
    let mut s = false;
    let r = from_words(lanes(|i| {
        let t = (0..2).fold(i64::from(z[i] as i32), |acc, k| {
            acc + i64::from(x[2 * i + k] as i16) * i64::from(y[2 * i + k] as i16)
        });
        clamp(t, i32::MIN.into(), i32::MAX.into(), &mut s) as u32
    }));
    sat(vscr, s);
    r
}
/// `vsumsws`: the sum of a's words plus b's last word, saturated, in word 3.
#[inline]
pub fn vsumsws(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (x, y) = (words(a), words(b));
    let t = x
        .iter()
        .fold(i64::from(y[3] as i32), |acc, &w| acc + i64::from(w as i32));
    let mut s = false;
    let r = clamp(t, i32::MIN.into(), i32::MAX.into(), &mut s) as u32;
    sat(vscr, s);
    from_words([0, 0, 0, r])
}
/// `vsum2sws`: pairs of a's words plus b's odd words, saturated, in words 1 and 3.
#[inline]
pub fn vsum2sws(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (x, y) = (words(a), words(b));
    let mut s = false;
    let mut r = [0u32; 4];
    for j in 0..2 {
        let t = i64::from(x[2 * j] as i32)
            + i64::from(x[2 * j + 1] as i32)
            + i64::from(y[2 * j + 1] as i32);
        r[2 * j + 1] = clamp(t, i32::MIN.into(), i32::MAX.into(), &mut s) as u32;
    }
    sat(vscr, s);
    from_words(r)
}
/// `vsum4ubs`: per word, a's four unsigned bytes plus b's word, saturated.
#[inline]
pub fn vsum4ubs(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (x, y) = (bytes(a), words(b));
    let mut s = false;
    let r = from_words(lanes(|i| {
        let t = (0..4).fold(i64::from(y[i]), |acc, k| acc + i64::from(x[4 * i + k]));
        clamp(t, 0, 0xFFFF_FFFF, &mut s) as u32
    }));
    sat(vscr, s);
    r
}
/// `vsum4sbs`: per word, a's four signed bytes plus b's word, saturated.
#[inline]
pub fn vsum4sbs(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (x, y) = (bytes(a), words(b));
    let mut s = false;
    let r = from_words(lanes(|i| {
        let t = (0..4).fold(i64::from(y[i] as i32), |acc, k| {
            acc + i64::from(x[4 * i + k] as i8)
        });
        clamp(t, i32::MIN.into(), i32::MAX.into(), &mut s) as u32
    }));
    sat(vscr, s);
    r
}
/// `vsum4shs`: per word, a's two signed halfwords plus b's word, saturated.
#[inline]
pub fn vsum4shs(vscr: &mut u32, a: V128, b: V128) -> V128 {
    let (x, y) = (halves(a), words(b));
    let mut s = false;
    let r = from_words(lanes(|i| {
        let t = (0..2).fold(i64::from(y[i] as i32), |acc, k| {
            acc + i64::from(x[2 * i + k] as i16)
        });
        clamp(t, i32::MIN.into(), i32::MAX.into(), &mut s) as u32
    }));
    sat(vscr, s);
    r
}

// ------------------------------------------------------------- integer compares

macro_rules! compares {
    ($($(#[$m:meta])* $name:ident = $map:ident, $conv:ty, $ones:expr, $op:tt;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(a: V128, b: V128) -> V128 {
            $map(a, b, |x, y| if (x as $conv) $op (y as $conv) { $ones } else { 0 })
        }
    )*};
}
compares! {
    /// `vcmpequb`
    vcmpequb = map_b, u8, 0xFF, ==;
    /// `vcmpequh`
    vcmpequh = map_h, u16, 0xFFFF, ==;
    /// `vcmpequw`
    vcmpequw = map_w, u32, 0xFFFF_FFFF, ==;
    /// `vcmpgtub`
    vcmpgtub = map_b, u8, 0xFF, >;
    /// `vcmpgtuh`
    vcmpgtuh = map_h, u16, 0xFFFF, >;
    /// `vcmpgtuw`
    vcmpgtuw = map_w, u32, 0xFFFF_FFFF, >;
    /// `vcmpgtsb`
    vcmpgtsb = map_b, i8, 0xFF, >;
    /// `vcmpgtsh`
    vcmpgtsh = map_h, i16, 0xFFFF, >;
    /// `vcmpgtsw`
    vcmpgtsw = map_w, i32, 0xFFFF_FFFF, >;
}

// ------------------------------------------------------------- loads

/// `lvsl`: the permute control for a left shift by `ea & 15`.
#[inline(always)]
pub fn lvsl(ea: u32) -> V128 {
    let s = (ea & 15) as u8;
    from_bytes(lanes(|i| s + i as u8))
}
/// `lvsr`: the permute control for a right shift by `ea & 15`.
#[inline(always)]
pub fn lvsr(ea: u32) -> V128 {
    let s = 16 - (ea & 15) as u8;
    from_bytes(lanes(|i| s + i as u8))
}
/// `lvlx`: from the aligned quadword `q` at `ea & !15`, the bytes from `ea`
/// to its end, moved to the left, zeros after.
#[inline(always)]
pub fn load_left(q: V128, ea: u32) -> V128 {
    let s = ea & 15;
    V128(if s == 0 { q.0 } else { q.0 << (8 * s) })
}
/// `lvrx`: from the aligned quadword `q`, the bytes before `ea`, moved to the
/// right, zeros before (all zeros when `ea` is aligned).
#[inline(always)]
pub fn load_right(q: V128, ea: u32) -> V128 {
    let s = ea & 15;
    V128(if s == 0 { 0 } else { q.0 >> (8 * (16 - s)) })
}

// ------------------------------------------------------------- float

/// Flushes a denormal to zero (sign kept) when NJ is set.
#[inline(always)]
fn nj_flush(vscr: u32, x: u32) -> u32 {
    if vscr & VSCR_NJ != 0 && x & 0x7F80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

#[inline(always)]
fn f32_is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > 0x7F80_0000
}

/// The VMX NaN result: the first NaN operand, quieted.
#[inline(always)]
fn nan_of(ops: &[u32]) -> Option<u32> {
    ops.iter()
        .copied()
        .find(|&x| f32_is_nan(x))
        .map(|x| x | 0x0040_0000)
}

/// Default NaN of an invalid VMX float operation.
pub const VMX_DEFAULT_NAN: u32 = 0x7FC0_0000;

#[inline(always)]
fn fmap2(vscr: u32, a: V128, b: V128, f: impl Fn(f32, f32) -> f32) -> V128 {
    map_w(a, b, |x, y| {
        let (x, y) = (nj_flush(vscr, x), nj_flush(vscr, y));
        if let Some(n) = nan_of(&[x, y]) {
            return n;
        }
        let r = f(f32::from_bits(x), f32::from_bits(y)).to_bits();
        let r = if f32_is_nan(r) { VMX_DEFAULT_NAN } else { r };
        nj_flush(vscr, r)
    })
}

/// `vaddfp` (scalar reference).
#[inline]
pub fn vaddfp_ref(vscr: u32, a: V128, b: V128) -> V128 {
    fmap2(vscr, a, b, |x, y| x + y)
}
/// `vsubfp` (scalar reference).
#[inline]
pub fn vsubfp_ref(vscr: u32, a: V128, b: V128) -> V128 {
    fmap2(vscr, a, b, |x, y| x - y)
}
/// `vmaxfp`: NaN operands propagate; +0 is greater than -0.
#[inline]
pub fn vmaxfp(vscr: u32, a: V128, b: V128) -> V128 {
    fmap2(vscr, a, b, |x, y| {
        if x == y {
            f32::from_bits(x.to_bits() & y.to_bits())
        } else if x > y {
            x
        } else {
            y
        }
    })
}
/// `vminfp`: NaN operands propagate; -0 is less than +0.
#[inline]
pub fn vminfp(vscr: u32, a: V128, b: V128) -> V128 {
    fmap2(vscr, a, b, |x, y| {
        if x == y {
            f32::from_bits(x.to_bits() | y.to_bits())
        } else if x < y {
            x
        } else {
            y
        }
    })
}

fn fmap3(vscr: u32, a: V128, c: V128, b: V128, negate: bool) -> V128 {
    let (x, y, z) = (words(a), words(c), words(b));
    from_words(lanes(|i| {
        let (p, q, r) = (
            nj_flush(vscr, x[i]),
            nj_flush(vscr, y[i]),
            nj_flush(vscr, z[i]),
        );
        if let Some(n) = nan_of(&[p, r, q]) {
            return n;
        }
        let (p, q, r) = (f32::from_bits(p), f32::from_bits(q), f32::from_bits(r));
        let v = if negate {
            -(p.mul_add(q, -r))
        } else {
            p.mul_add(q, r)
        };
        let v = v.to_bits();
        let v = if f32_is_nan(v) { VMX_DEFAULT_NAN } else { v };
        nj_flush(vscr, v)
    }))
}
/// `vmaddfp` (scalar reference).
#[inline]
pub fn vmaddfp_ref(vscr: u32, a: V128, c: V128, b: V128) -> V128 {
    fmap3(vscr, a, c, b, false)
}
/// `vnmsubfp` (scalar reference).
#[inline]
pub fn vnmsubfp_ref(vscr: u32, a: V128, c: V128, b: V128) -> V128 {
    fmap3(vscr, a, c, b, true)
}

#[inline(always)]
fn fmap1(vscr: u32, b: V128, f: impl Fn(f32) -> f32) -> V128 {
    from_words(words(b).map(|x| {
        let x = nj_flush(vscr, x);
        if f32_is_nan(x) {
            return x | 0x0040_0000;
        }
        let r = f(f32::from_bits(x)).to_bits();
        let r = if f32_is_nan(r) { VMX_DEFAULT_NAN } else { r };
        nj_flush(vscr, r)
    }))
}
/// `vrefp`: reciprocal estimate (computed exactly, as qemu does).
#[inline]
pub fn vrefp(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, |x| 1.0 / x)
}
/// `vrsqrtefp`: reciprocal square root estimate (1/sqrt, as qemu does).
#[inline]
pub fn vrsqrtefp(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, |x| 1.0 / x.sqrt())
}
/// `vexptefp`: 2^x estimate (the hardware's is accurate to 1/16 ulp-ish;
/// this is the correctly rounded value as far as the host's exp2 goes).
#[inline]
pub fn vexptefp(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, |x| f64::from(x).exp2() as f32)
}
/// `vlogefp`: log2 estimate.
#[inline]
pub fn vlogefp(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, |x| f64::from(x).log2() as f32)
}
/// `vrfin`: round to integral, nearest even.
#[inline]
pub fn vrfin(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, f32::round_ties_even)
}
/// `vrfiz`: round to integral toward zero.
#[inline]
pub fn vrfiz(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, f32::trunc)
}
/// `vrfip`: round to integral toward +infinity.
#[inline]
pub fn vrfip(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, f32::ceil)
}
/// `vrfim`: round to integral toward -infinity.
#[inline]
pub fn vrfim(vscr: u32, b: V128) -> V128 {
    fmap1(vscr, b, f32::floor)
}

macro_rules! fcompares {
    ($($(#[$m:meta])* $name:ident, |$x:ident, $y:ident| $e:expr;)*) => {$(
        $(#[$m])*
        #[inline]
        pub fn $name(vscr: u32, a: V128, b: V128) -> V128 {
            map_w(a, b, |x, y| {
                let ($x, $y) = (f32::from_bits(nj_flush(vscr, x)), f32::from_bits(nj_flush(vscr, y)));
                if $e { 0xFFFF_FFFF } else { 0 }
            })
        }
    )*};
}
fcompares! {
    /// `vcmpeqfp` (scalar reference).
    vcmpeqfp_ref, |x, y| x == y;
    /// `vcmpgefp` (scalar reference).
    vcmpgefp_ref, |x, y| x >= y;
    /// `vcmpgtfp` (scalar reference).
    vcmpgtfp_ref, |x, y| x > y;
}

/// `vcmpbfp`: bounds: bit 0 set when a > b (or NaN), bit 1 when a < -b (or NaN).
#[inline]
pub fn vcmpbfp(vscr: u32, a: V128, b: V128) -> V128 {
    map_w(a, b, |x, y| {
        let (x, y) = (
            f32::from_bits(nj_flush(vscr, x)),
            f32::from_bits(nj_flush(vscr, y)),
        );
        if x.is_nan() || y.is_nan() {
            0xC000_0000
        } else {
            (u32::from(x > y) << 31) | (u32::from(x < -y) << 30)
        }
    })
}

/// `vcfux`: unsigned words to float, divided by 2^uimm.
#[inline]
pub fn vcfux(b: V128, uimm: u32) -> V128 {
    from_words(words(b).map(|x| (x as f32 * scale(-(uimm as i32))).to_bits()))
}
/// `vcfsx`: signed words to float, divided by 2^uimm.
#[inline]
pub fn vcfsx(b: V128, uimm: u32) -> V128 {
    from_words(words(b).map(|x| (x as i32 as f32 * scale(-(uimm as i32))).to_bits()))
}

/// 2^e as an f32 (e in -31..=31), built from its bits.
#[inline(always)]
fn scale(e: i32) -> f32 {
    f32::from_bits(((127 + e) as u32) << 23)
}

/// `vctsxs`: float × 2^uimm to signed words, toward zero, saturated (NaN → 0).
#[inline]
pub fn vctsxs(vscr: &mut u32, b: V128, uimm: u32) -> V128 {
    let mut s = false;
    let r = from_words(words(b).map(|x| {
        if f32_is_nan(x) {
            return 0;
        }
        let v = f64::from(f32::from_bits(x)) * f64::from(scale(uimm as i32));
        let t = v.trunc();
        if t < f64::from(i32::MIN) {
            s = true;
            i32::MIN as u32
        } else if t > f64::from(i32::MAX) {
            s = true;
            i32::MAX as u32
        } else {
            t as i32 as u32
        }
    }));
    sat(vscr, s);
    r
}
/// `vctuxs`: float × 2^uimm to unsigned words, toward zero, saturated (NaN → 0).
#[inline]
pub fn vctuxs(vscr: &mut u32, b: V128, uimm: u32) -> V128 {
    let mut s = false;
    let r = from_words(words(b).map(|x| {
        if f32_is_nan(x) {
            return 0;
        }
        let v = f64::from(f32::from_bits(x)) * f64::from(scale(uimm as i32));
        let t = v.trunc();
        if t < 0.0 {
            s = true;
            0
        } else if t > f64::from(u32::MAX) {
            s = true;
            u32::MAX
        } else {
            t as u32
        }
    }));
    sat(vscr, s);
    r
}

// ------------------------------------------------------------- fast paths

/// Which implementation the VMX ops with a SIMD form use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Impl {
    /// SIMD where the host has it (x86-64: SSE2, and SSSE3 for `vperm`),
    /// the scalar reference elsewhere. The default.
    Fast = 1,
    /// Always the scalar reference.
    Reference = 2,
    /// Both; a difference is logged as an error and the reference result
    /// is used.
    Both = 3,
}

static IMPL: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Selects the implementation (overrides `CELLPORT_VMX`).
#[inline]
pub fn set_impl(i: Impl) {
    IMPL.store(i as u8, std::sync::atomic::Ordering::Relaxed);
}

/// The implementation in use: `CELLPORT_VMX` = `fast` (default),
/// `reference` or `both`, unless [`set_impl`] chose.
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
    let i = match std::env::var("CELLPORT_VMX").as_deref() {
        Ok("reference") | Ok("0") => Impl::Reference,
        Ok("both") | Ok("2") => Impl::Both,
        Ok("fast") | Ok("1") | Err(_) => Impl::Fast,
        Ok(other) => {
            log::warn!("CELLPORT_VMX={other:?} is not fast, reference or both; using fast");
            Impl::Fast
        }
    };
    set_impl(i);
    i
}

#[inline(always)]
fn pick(name: &str, fast: impl FnOnce() -> Option<V128>, reference: impl FnOnce() -> V128) -> V128 {
    match current_impl() {
        Impl::Fast => match fast() {
            Some(v) => v,
            None => reference(),
        },
        Impl::Reference => reference(),
        Impl::Both => {
            let r = reference();
            if let Some(f) = fast()
                && f != r
            {
                log::error!("vmx fast path differs in {name}: fast {f:?}, reference {r:?}");
            }
            r
        }
    }
}

macro_rules! fast_or_ref {
    ($(#[$m:meta])* fn $name:ident($($arg:ident: $ty:ty),*) = $fast:path, $reference:ident;) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name($($arg: $ty),*) -> V128 {
            pick(stringify!($name), || $fast($($arg),*), || $reference($($arg),*))
        }
    };
}

fast_or_ref! {
    /// `vperm`: byte i of the result is byte (c[i] & 31) of a ‖ b.
    fn vperm(a: V128, b: V128, c: V128) = simd::vperm, vperm_ref;
}
fast_or_ref! {
    /// `vaddfp`
    fn vaddfp(vscr: u32, a: V128, b: V128) = simd::vaddfp, vaddfp_ref;
}
fast_or_ref! {
    /// `vsubfp`
    fn vsubfp(vscr: u32, a: V128, b: V128) = simd::vsubfp, vsubfp_ref;
}
fast_or_ref! {
    /// `vmaddfp`: a × c + b, fused (one rounding).
    fn vmaddfp(vscr: u32, a: V128, c: V128, b: V128) = simd::vmaddfp, vmaddfp_ref;
}
fast_or_ref! {
    /// `vnmsubfp`: -(a × c - b), fused.
    fn vnmsubfp(vscr: u32, a: V128, c: V128, b: V128) = simd::vnmsubfp, vnmsubfp_ref;
}
fast_or_ref! {
    /// `vcmpeqfp`
    fn vcmpeqfp(vscr: u32, a: V128, b: V128) = simd::vcmpeqfp, vcmpeqfp_ref;
}
fast_or_ref! {
    /// `vcmpgefp`
    fn vcmpgefp(vscr: u32, a: V128, b: V128) = simd::vcmpgefp, vcmpgefp_ref;
}
fast_or_ref! {
    /// `vcmpgtfp`
    fn vcmpgtfp(vscr: u32, a: V128, b: V128) = simd::vcmpgtfp, vcmpgtfp_ref;
}

/// The scalar references of the ops that have a SIMD form (what the
/// fast paths are checked against).
pub mod reference {
    pub use super::{
        vaddfp_ref as vaddfp, vcmpeqfp_ref as vcmpeqfp, vcmpgefp_ref as vcmpgefp,
        vcmpgtfp_ref as vcmpgtfp, vmaddfp_ref as vmaddfp, vnmsubfp_ref as vnmsubfp,
        vperm_ref as vperm, vsubfp_ref as vsubfp,
    };
}

/// The SIMD forms. Each returns None where it has no answer (another host,
/// no SSSE3 for `vperm`, a double-rounding hazard in `vmaddfp`), and the
/// caller falls back to the reference.
pub mod simd {
    use super::V128;

    #[cfg(target_arch = "x86_64")]
    pub use x86::*;

    #[cfg(not(target_arch = "x86_64"))]
    mod none {
        use super::V128;
        /// No SIMD form on this host.
        #[inline]
        pub fn vperm(_: V128, _: V128, _: V128) -> Option<V128> {
            None
        }
        /// No SIMD form on this host.
        #[inline]
        pub fn vaddfp(_: u32, _: V128, _: V128) -> Option<V128> {
            None
        }
        /// No SIMD form on this host.
        #[inline]
        pub fn vsubfp(_: u32, _: V128, _: V128) -> Option<V128> {
            None
        }
        /// No SIMD form on this host.
        #[inline]
        pub fn vmaddfp(_: u32, _: V128, _: V128, _: V128) -> Option<V128> {
            None
        }
        /// No SIMD form on this host.
        #[inline]
        pub fn vnmsubfp(_: u32, _: V128, _: V128, _: V128) -> Option<V128> {
            None
        }
        /// No SIMD form on this host.
        #[inline]
        pub fn vcmpeqfp(_: u32, _: V128, _: V128) -> Option<V128> {
            None
        }
        /// No SIMD form on this host.
        #[inline]
        pub fn vcmpgefp(_: u32, _: V128, _: V128) -> Option<V128> {
            None
        }
        /// No SIMD form on this host.
        #[inline]
        pub fn vcmpgtfp(_: u32, _: V128, _: V128) -> Option<V128> {
            None
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    pub use none::*;

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        //! SSE2 is part of the x86-64 baseline, so its intrinsics are always
        //! available; each `unsafe` block below only calls them (and
        //! reinterprets 16 plain bytes).

        use std::arch::x86_64::*;

        use super::V128;
        use crate::context::VSCR_NJ;

        #[inline(always)]
        fn to(v: V128) -> __m128i {
            // SAFETY: u128 and __m128i are both 16 plain bytes.
            unsafe { std::mem::transmute::<u128, __m128i>(v.0) }
        }
        #[inline(always)]
        fn from(v: __m128i) -> V128 {
            // SAFETY: as above.
            V128(unsafe { std::mem::transmute::<__m128i, u128>(v) })
        }

        /// NJ: denormals to zero, sign kept.
        #[inline(always)]
        fn flush(x: __m128i) -> __m128i {
            // SAFETY: SSE2 (x86-64 baseline).
            unsafe {
                let exp = _mm_and_si128(x, _mm_set1_epi32(0x7F80_0000));
                let den = _mm_cmpeq_epi32(exp, _mm_setzero_si128());
                _mm_andnot_si128(_mm_and_si128(den, _mm_set1_epi32(0x7FFF_FFFF)), x)
            }
        }

        #[inline(always)]
        fn is_nan(x: __m128i) -> __m128i {
            // SAFETY: SSE2 (x86-64 baseline).
            unsafe {
                _mm_cmpgt_epi32(
                    _mm_and_si128(x, _mm_set1_epi32(0x7FFF_FFFF)),
                    _mm_set1_epi32(0x7F80_0000),
                )
            }
        }

        #[inline(always)]
        fn select(mask: __m128i, yes: __m128i, no: __m128i) -> __m128i {
            // SAFETY: SSE2 (x86-64 baseline).
            unsafe { _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no)) }
        }

        /// The VMX NaN rules on a result `r` of operands (in priority order)
        /// `x`, `y`, `z`: the first NaN operand quieted, else the default
        /// NaN where the operation made one.
        #[inline(always)]
        fn nans(r: __m128i, x: __m128i, y: __m128i, z: __m128i) -> __m128i {
            // SAFETY: SSE2 (x86-64 baseline).
            let (q, dnan) = unsafe { (_mm_set1_epi32(0x0040_0000), _mm_set1_epi32(0x7FC0_0000)) };
            let or = |a, b| {
                // SAFETY: SSE2 (x86-64 baseline).
                unsafe { _mm_or_si128(a, b) }
            };
            let r = select(is_nan(r), dnan, r);
            let r = select(is_nan(z), or(z, q), r);
            let r = select(is_nan(y), or(y, q), r);
            select(is_nan(x), or(x, q), r)
        }

        #[inline(always)]
        fn inputs(vscr: u32, a: V128, b: V128) -> (__m128i, __m128i) {
            let (a, b) = (to(a), to(b));
            if vscr & VSCR_NJ != 0 {
                (flush(a), flush(b))
            } else {
                (a, b)
            }
        }

        #[inline(always)]
        fn output(vscr: u32, r: __m128i) -> V128 {
            from(if vscr & VSCR_NJ != 0 { flush(r) } else { r })
        }

        /// `vaddfp`.
        #[inline(always)]
        pub fn vaddfp(vscr: u32, a: V128, b: V128) -> Option<V128> {
            let (a, b) = inputs(vscr, a, b);
            // SAFETY: SSE2 (x86-64 baseline).
            let r =
                unsafe { _mm_castps_si128(_mm_add_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b))) };
            Some(output(vscr, nans(r, a, b, b)))
        }

        /// `vsubfp`.
        #[inline(always)]
        pub fn vsubfp(vscr: u32, a: V128, b: V128) -> Option<V128> {
            let (a, b) = inputs(vscr, a, b);
            // SAFETY: SSE2 (x86-64 baseline).
            let r =
                unsafe { _mm_castps_si128(_mm_sub_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b))) };
            Some(output(vscr, nans(r, a, b, b)))
        }

        macro_rules! cmp {
            ($($(#[$m:meta])* $name:ident = $op:ident;)*) => {$(
                $(#[$m])*
                #[inline(always)]
                pub fn $name(vscr: u32, a: V128, b: V128) -> Option<V128> {
                    let (a, b) = inputs(vscr, a, b);
                    // SAFETY: SSE2 (x86-64 baseline).
                    Some(from(unsafe { _mm_castps_si128($op(_mm_castsi128_ps(a), _mm_castsi128_ps(b))) }))
                }
            )*};
        }
        cmp! {
            /// `vcmpeqfp`.
            vcmpeqfp = _mm_cmpeq_ps;
            /// `vcmpgefp`.
            vcmpgefp = _mm_cmpge_ps;
            /// `vcmpgtfp`.
            vcmpgtfp = _mm_cmpgt_ps;
        }

        /// a × c ± b in double precision (the product is exact), rounded to
        /// single; None when a lane's double sum sits exactly halfway
        /// between two singles or is tiny as a single, where rounding twice
        /// could differ from fusing.
        #[inline(always)]
        fn fused(a: __m128i, c: __m128i, b: __m128i, sub: bool) -> Option<__m128i> {
            // SAFETY: SSE2 (x86-64 baseline); the transmute reinterprets 16
            // plain bytes.
            unsafe {
                let (a, c, b) = (
                    _mm_castsi128_ps(a),
                    _mm_castsi128_ps(c),
                    _mm_castsi128_ps(b),
                );
                let (ah, ch, bh) = (
                    _mm_movehl_ps(a, a),
                    _mm_movehl_ps(c, c),
                    _mm_movehl_ps(b, b),
                );
                let mut halves = [_mm_setzero_ps(); 2];
                for (k, (a, c, b)) in [(a, c, b), (ah, ch, bh)].into_iter().enumerate() {
                    let p = _mm_mul_pd(_mm_cvtps_pd(a), _mm_cvtps_pd(c));
                    let b = _mm_cvtps_pd(b);
                    let s = if sub {
                        _mm_sub_pd(p, b)
                    } else {
                        _mm_add_pd(p, b)
                    };
                    let lanes = std::mem::transmute::<__m128d, [u64; 2]>(s);
                    for x in lanes {
                        let mag = x & 0x7FFF_FFFF_FFFF_FFFF;
                        // Midpoint: the 29 bits a single drops are 1000...0.
                        // Tiny: below 2^-126 but not zero (NaNs and
                        // infinities are fine: the NaN rules or an exact
                        // infinity follow).
                        if x & 0x1FFF_FFFF == 0x1000_0000
                            || (mag != 0 && mag < 0x3810_0000_0000_0000)
                        {
                            return None;
                        }
                    }
                    halves[k] = _mm_cvtpd_ps(s);
                }
                Some(_mm_castps_si128(_mm_movelh_ps(halves[0], halves[1])))
            }
        }

        #[inline(always)]
        fn fused_inputs(vscr: u32, a: V128, c: V128, b: V128) -> (__m128i, __m128i, __m128i) {
            let (a, c) = inputs(vscr, a, c);
            let b = if vscr & VSCR_NJ != 0 {
                flush(to(b))
            } else {
                to(b)
            };
            (a, c, b)
        }

        /// `vmaddfp`.
        #[inline(always)]
        pub fn vmaddfp(vscr: u32, a: V128, c: V128, b: V128) -> Option<V128> {
            let (a, c, b) = fused_inputs(vscr, a, c, b);
            let r = fused(a, c, b, false)?;
            Some(output(vscr, nans(r, a, b, c)))
        }

        /// `vnmsubfp`.
        #[inline(always)]
        pub fn vnmsubfp(vscr: u32, a: V128, c: V128, b: V128) -> Option<V128> {
            let (a, c, b) = fused_inputs(vscr, a, c, b);
            let r = fused(a, c, b, true)?;
            // SAFETY: SSE2 (x86-64 baseline).
            let r = unsafe { _mm_xor_si128(r, _mm_set1_epi32(i32::MIN)) };
            Some(output(vscr, nans(r, a, b, c)))
        }

        /// `vperm` with SSSE3's byte shuffle: two shuffles and a blend.
        #[inline(always)]
        pub fn vperm(a: V128, b: V128, c: V128) -> Option<V128> {
            #[cfg(target_feature = "ssse3")]
            {
                // SAFETY: SSSE3 is enabled for this build.
                Some(unsafe { vperm_ssse3(a, b, c) })
            }
            #[cfg(not(target_feature = "ssse3"))]
            {
                if has_ssse3() {
                    // SAFETY: the CPU has SSSE3 (checked at run time).
                    Some(unsafe { vperm_ssse3(a, b, c) })
                } else {
                    None
                }
            }
        }

        #[cfg(not(target_feature = "ssse3"))]
        #[inline(always)]
        fn has_ssse3() -> bool {
            use std::sync::atomic::{AtomicU8, Ordering};
            static HAS: AtomicU8 = AtomicU8::new(0);
            match HAS.load(Ordering::Relaxed) {
                1 => true,
                2 => false,
                _ => {
                    let h = std::is_x86_feature_detected!("ssse3");
                    HAS.store(if h { 1 } else { 2 }, Ordering::Relaxed);
                    h
                }
            }
        }

        /// Host byte j of a register is guest byte 15 - j, so the guest
        /// index k selects host byte (k ^ 15) & 15 of a (k < 16) or b.
        #[target_feature(enable = "ssse3")]
        #[inline]
        fn vperm_ssse3(a: V128, b: V128, c: V128) -> V128 {
            let (a, b, c) = (to(a), to(b), to(c));
            let idx = _mm_and_si128(_mm_xor_si128(c, _mm_set1_epi8(0x0F)), _mm_set1_epi8(0x0F));
            let pa = _mm_shuffle_epi8(a, idx);
            let pb = _mm_shuffle_epi8(b, idx);
            let from_b = _mm_cmpeq_epi8(_mm_and_si128(c, _mm_set1_epi8(0x10)), _mm_set1_epi8(0x10));
            from(select(from_b, pb, pa))
        }
    }
}
