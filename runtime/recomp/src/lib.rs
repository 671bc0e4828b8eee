//! The recompiler's driver: lifting and building a program ([`build`]),
//! the whole-program corpus ([`corpus`]) and the benchmark ([`bench`]).

pub mod bench;
pub mod build;
pub mod corpus;
