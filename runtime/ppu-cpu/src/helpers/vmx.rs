//! VMX (AltiVec) semantics on [`V128`], element 0 first as the guest sees
//! it: what the interpreter and lifted code call. The scalar reference of
//! every operation is [`super::vmx_scalar`] (re-exported here); where the
//! build targets x86-64 with SSE4.1 (lifted code for `x86-64-v3`, the PS5),
//! the integer operations below run their SIMD forms from
//! [`super::vmx_x86`] instead, unless `CELLPORT_VMX` asks for the reference
//! (`reference`) or for both compared (`both`: a difference in the result or
//! in VSCR is logged as an error, the reference's result is used).

pub use super::vmx_scalar::*;

use crate::context::V128;

/// The scalar reference of every operation, under its own name (what the
/// SIMD forms are checked against).
pub mod reference {
    pub use super::super::vmx_scalar::reference::*;
    pub use super::super::vmx_scalar::{
        vaddsbs, vaddshs, vaddsws, vaddubm, vaddubs, vadduhm, vadduhs, vadduwm, vadduws, vand,
        vandc, vavgsb, vavgsh, vavgub, vavguh, vcmpequb, vcmpequh, vcmpequw, vcmpgtsb, vcmpgtsh,
        vcmpgtsw, vcmpgtub, vcmpgtuh, vcmpgtuw, vmaxsb, vmaxsh, vmaxsw, vmaxub, vmaxuh, vmaxuw,
        vmhaddshs, vmhraddshs, vminsb, vminsh, vminsw, vminub, vminuh, vminuw, vmladduhm, vmrghb,
        vmrghh, vmrghw, vmrglb, vmrglh, vmrglw, vmsummbm, vmsumshm, vmsumshs, vmsumubm, vmsumuhm,
        vnor, vor, vpkshss, vpkshus, vpkswss, vpkswus, vpkuhum, vpkuhus, vpkuwum, vpkuwus, vsel,
        vslh, vslw, vspltb, vsplth, vspltisb, vspltish, vspltisw, vspltw, vsrah, vsraw, vsrh, vsrw,
        vsubsbs, vsubshs, vsubsws, vsububm, vsububs, vsubuhm, vsubuhs, vsubuwm, vsubuws, vupkhsb,
        vupkhsh, vupklsb, vupklsh, vxor,
    };
}

/// Operations with a SIMD form and a VSCR\[SAT\] to set: `fn name(a, ...)`
/// becomes `pub fn name(vscr: &mut u32, a, ...) -> V128`.
macro_rules! with_sat {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (sets VSCR\\[SAT\\] on saturation).")]
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        #[inline(always)]
        pub fn $name(vscr: &mut u32, $($arg: $ty),*) -> V128 {
            if current_impl() == Impl::Fast {
                return super::vmx_x86::$name(vscr, $($arg),*);
            }
            #[cold]
            #[inline(never)]
            fn slow(vscr: &mut u32, $($arg: $ty),*) -> V128 {
                let mut v = *vscr;
                let r = super::vmx_scalar::$name(vscr, $($arg),*);
                if current_impl() == Impl::Both {
                    let f = super::vmx_x86::$name(&mut v, $($arg),*);
                    if (f, v) != (r, *vscr) {
                        log::error!(
                            "vmx SIMD form differs in {}: {f:?} VSCR {v:#x}, reference {r:?} VSCR {:#x}",
                            stringify!($name),
                            *vscr
                        );
                    }
                }
                r
            }
            slow(vscr, $($arg),*)
        }

        #[doc = concat!("`", stringify!($name), "` (sets VSCR\\[SAT\\] on saturation).")]
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
        #[inline(always)]
        pub fn $name(vscr: &mut u32, $($arg: $ty),*) -> V128 {
            super::vmx_scalar::$name(vscr, $($arg),*)
        }
    )*};
}

/// Operations with a SIMD form and no VSCR.
macro_rules! plain {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("`", stringify!($name), "`.")]
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        #[inline(always)]
        pub fn $name($($arg: $ty),*) -> V128 {
            if current_impl() == Impl::Fast {
                return super::vmx_x86::$name($($arg),*);
            }
            #[cold]
            #[inline(never)]
            fn slow($($arg: $ty),*) -> V128 {
                let r = super::vmx_scalar::$name($($arg),*);
                if current_impl() == Impl::Both {
                    let f = super::vmx_x86::$name($($arg),*);
                    if f != r {
                        log::error!(
                            "vmx SIMD form differs in {}: {f:?}, reference {r:?}",
                            stringify!($name)
                        );
                    }
                }
                r
            }
            slow($($arg),*)
        }

        #[doc = concat!("`", stringify!($name), "`.")]
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
        #[inline(always)]
        pub fn $name($($arg: $ty),*) -> V128 {
            super::vmx_scalar::$name($($arg),*)
        }
    )*};
}

with_sat! {
    vaddsbs(a: V128, b: V128);
    vaddshs(a: V128, b: V128);
    vaddsws(a: V128, b: V128);
    vaddubs(a: V128, b: V128);
    vadduhs(a: V128, b: V128);
    vadduws(a: V128, b: V128);
    vmhaddshs(a: V128, b: V128, c: V128);
    vmhraddshs(a: V128, b: V128, c: V128);
    vmsumshs(a: V128, b: V128, c: V128);
    vpkshss(a: V128, b: V128);
    vpkshus(a: V128, b: V128);
    vpkswss(a: V128, b: V128);
    vpkswus(a: V128, b: V128);
    vpkuhus(a: V128, b: V128);
    vpkuwus(a: V128, b: V128);
    vsubsbs(a: V128, b: V128);
    vsubshs(a: V128, b: V128);
    vsubsws(a: V128, b: V128);
    vsububs(a: V128, b: V128);
    vsubuhs(a: V128, b: V128);
    vsubuws(a: V128, b: V128);
}

plain! {
    vaddubm(a: V128, b: V128);
    vadduhm(a: V128, b: V128);
    vadduwm(a: V128, b: V128);
    vavgsb(a: V128, b: V128);
    vavgsh(a: V128, b: V128);
    vavgub(a: V128, b: V128);
    vavguh(a: V128, b: V128);
    vcmpequb(a: V128, b: V128);
    vcmpequh(a: V128, b: V128);
    vcmpequw(a: V128, b: V128);
    vcmpgtsb(a: V128, b: V128);
    vcmpgtsh(a: V128, b: V128);
    vcmpgtsw(a: V128, b: V128);
    vcmpgtub(a: V128, b: V128);
    vcmpgtuh(a: V128, b: V128);
    vcmpgtuw(a: V128, b: V128);
    vmaxsb(a: V128, b: V128);
    vmaxsh(a: V128, b: V128);
    vmaxsw(a: V128, b: V128);
    vmaxub(a: V128, b: V128);
    vmaxuh(a: V128, b: V128);
    vmaxuw(a: V128, b: V128);
    vminsb(a: V128, b: V128);
    vminsh(a: V128, b: V128);
    vminsw(a: V128, b: V128);
    vminub(a: V128, b: V128);
    vminuh(a: V128, b: V128);
    vminuw(a: V128, b: V128);
    vmladduhm(a: V128, b: V128, c: V128);
    vmrghb(a: V128, b: V128);
    vmrghh(a: V128, b: V128);
    vmrghw(a: V128, b: V128);
    vmrglb(a: V128, b: V128);
    vmrglh(a: V128, b: V128);
    vmrglw(a: V128, b: V128);
    vmsummbm(a: V128, b: V128, c: V128);
    vmsumshm(a: V128, b: V128, c: V128);
    vmsumubm(a: V128, b: V128, c: V128);
    vmsumuhm(a: V128, b: V128, c: V128);
    vpkuhum(a: V128, b: V128);
    vpkuwum(a: V128, b: V128);
    vsel(a: V128, b: V128, c: V128);
    vslh(a: V128, b: V128);
    vslw(a: V128, b: V128);
    vspltb(b: V128, uimm: u32);
    vsplth(b: V128, uimm: u32);
    vspltw(b: V128, uimm: u32);
    vsrah(a: V128, b: V128);
    vsraw(a: V128, b: V128);
    vsrh(a: V128, b: V128);
    vsrw(a: V128, b: V128);
    vsububm(a: V128, b: V128);
    vsubuhm(a: V128, b: V128);
    vsubuwm(a: V128, b: V128);
    vupkhsb(b: V128);
    vupkhsh(b: V128);
    vupklsb(b: V128);
    vupklsh(b: V128);
}
