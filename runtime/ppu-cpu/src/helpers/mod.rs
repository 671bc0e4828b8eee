//! Instruction semantics shared by the interpreter and lifted code: pure,
//! `#[inline(always)]` where they are small, so both compute the same way.
//!
//! - [`int`]: rotate masks, carries, overflow, CR0, shifts, multiply/divide,
//!   trap and branch conditions.
//! - [`fpu`]: floating-point arithmetic with FPSCR flags and rounding modes.
//! - [`softfloat`]: the exact integer arithmetic under [`fpu`].
//! - [`vmx`]: every VMX operation, with VSCR[SAT] and VSCR[NJ]: the scalar
//!   reference [`vmx_scalar`], SIMD forms of the integer ones in `vmx_x86`
//!   (x86-64 with SSE4.1).

pub mod fpu;
pub mod int;
pub mod softfloat;
pub mod vmx;
pub mod vmx_scalar;
#[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
pub mod vmx_x86;
