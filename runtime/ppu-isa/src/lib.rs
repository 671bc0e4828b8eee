//! The Cell PPU instruction set: decoder and disassembler.
//!
//! [`decode`] turns an instruction word into an [`Instr`] (an [`Op`] plus
//! the word, with accessors for every field); [`decode_at`] does the same and
//! names the address in its error. [`disasm::disassemble`] prints one the way
//! GNU objdump's raw mode does. The set is the Cell PPU's user-mode ISA:
//! 64-bit integer, branches, CR logic, every load/store form, reservations,
//! the FPU, VMX/AltiVec with the Cell's `lvlx`/`lvrx` family, the SPRs user
//! code reaches (XER, LR, CTR, VRSAVE, the time base), cache ops and fences.
//! See README.md.

mod decode;
pub mod disasm;
mod instr;
mod op;

pub use decode::{DecodeError, Invalid, decode, decode_at};
pub use disasm::disassemble;
pub use instr::Instr;
pub use op::{Flags, Fmt, Op};

/// SPR numbers user code may name.
pub mod spr {
    /// Fixed-point exception register.
    pub const XER: u32 = 1;
    /// Link register.
    pub const LR: u32 = 8;
    /// Count register.
    pub const CTR: u32 = 9;
    /// VMX register-save mask.
    pub const VRSAVE: u32 = 256;
    /// Time base, lower (read; the whole 64 bits in 64-bit mode).
    pub const TBL: u32 = 268;
    /// Time base, upper 32 bits.
    pub const TBU: u32 = 269;
}
