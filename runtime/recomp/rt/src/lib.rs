//! The runtime of recompiled PPU programs.
//!
//! Code the lifter (`ppu-lift`) emits calls into this crate: [`Rt`] moves
//! control between lifted functions and the interpreter, runs system calls
//! through the program's [`Personality`], and ends the guest; [`runner`]
//! is the generated program's `main`; [`verify`] checks lifted code against
//! the interpreter (`--verify`). Generated crates depend on this crate only,
//! and reach guest memory and the CPU helpers through its re-exports.

pub mod ops;
pub mod personality;
pub mod rt;
pub mod runner;
pub mod verify;

pub use guest_mem;
pub use personality::{Outcome, Personality, Process};
pub use ppu_cpu;
pub use ppu_elf;
pub use rt::{GuestEnd, LiftedFn, Mode, Rt};
pub use runner::{Options, Program};
