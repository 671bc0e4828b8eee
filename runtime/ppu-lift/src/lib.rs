//! The PPU static recompiler (host only).
//!
//! [`analysis::analyse`] finds the functions of a PPU executable, their
//! blocks, jump tables and import stubs; [`emit::emit_function`] turns one
//! function into Rust; [`project::generate`] splits the whole program into
//! a cargo workspace of several crates (built by the `recomp` CLI) and
//! [`project::write_tree`] writes only what changed. The output is
//! deterministic byte for byte.

pub mod analysis;
pub mod emit;
pub mod project;

pub use analysis::{Analysis, Func, Issue, analyse};
pub use emit::EmitOptions;
pub use project::{Layout, Project, generate, package_name, write_tree};
