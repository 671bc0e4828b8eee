//! Instruction semantics shared by the interpreter and lifted code: pure,
//! `#[inline(always)]` where they are small, so both compute the same way.
//!
//! - [`int`]: rotate masks, carries, overflow, CR0, shifts, multiply/divide,
//!   trap and branch conditions.
//! - [`fpu`]: floating-point arithmetic with FPSCR flags and rounding modes.
//! - [`softfloat`]: the exact integer arithmetic under [`fpu`].
//! - [`vmx`]: every VMX operation, with VSCR[SAT] and VSCR[NJ].

pub mod fpu;
pub mod int;
pub mod softfloat;
pub mod vmx;
