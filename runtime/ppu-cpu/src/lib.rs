//! The Cell PPU: the thread context ([`PpuContext`]), the instruction
//! semantics shared with lifted code ([`helpers`]), and the reference
//! interpreter ([`Interpreter`]). See README.md for how the lifter and LV2
//! use them.

pub mod context;
pub mod helpers;
pub mod interp;
pub mod timebase;

pub use context::{PpuContext, V128, VSCR_NJ, VSCR_SAT};
pub use interp::{BranchKind, Exit, Flow, Hooks, Interpreter, NoHooks, Stop};
pub use timebase::{PS3_TIMEBASE_HZ, TimeBase};
pub mod conformance;
