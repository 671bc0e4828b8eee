//! Loader for PPU executables.
//!
//! Two kinds are understood:
//!
//! * **PS3 executables**: ELF64 big-endian, `e_machine` PowerPC64, OS/ABI
//!   byte 0x66 (CELL LV2), `ET_EXEC`. Function descriptors in `.opd` are 8
//!   bytes (32-bit code address, 32-bit TOC). `PT_PROC_PARAM` holds
//!   `sys_process_param_t` ([`ProcParam`]), `PT_PROC_PRX` the PRX parameters
//!   ([`PrxParam`]) that locate the import records (`.lib.stub`, 44 bytes
//!   each: [`ImportLibrary`]) and export records (`.lib.ent`).
//! * **Linux ppc64 ELFv1 static executables** (for testing the recompiler
//!   on ordinary programs): 24-byte descriptors.
//!
//! [`Image::parse`] validates everything it later relies on and refuses a
//! malformed file with an [`ElfError`] naming the file offset and the
//! reason; [`Image::load`] maps the segments into guest memory.

mod error;
mod image;
mod load;
mod ps3;
mod reader;

pub use error::{ElfError, Result};
pub use image::{
    Abi, Descriptor, ELF_MAGIC, ELFOSABI_CELL_LV2, ELFOSABI_GNU, ELFOSABI_SYSV, EM_PPC64, ET_EXEC,
    ET_SCE_PPURELEXEC, Image, PF_R, PF_W, PF_X, PT_LOAD, PT_PROC_PARAM, PT_PROC_PRX, PT_TLS,
    SHT_NOBITS, SHT_SYMTAB, STT_FUNC, Section, Segment, Symbol,
};
pub use load::{LoadError, Loaded};
pub use ps3::{
    ExportLibrary, ImportLibrary, ImportedFunction, ImportedVariable, LIB_RECORD_SIZE,
    PROC_PARAM_MAGIC, PRX_PARAM_MAGIC, ProcParam, PrxParam, fnid,
};

/// Reads and parses the file at `path`; the error names the path.
pub fn open(path: &std::path::Path) -> std::result::Result<Image, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Image::parse(data).map_err(|e| format!("{}: {e}", path.display()))
}
