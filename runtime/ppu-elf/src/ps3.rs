//! The PS3-specific tables: `sys_process_param_t`, the PRX parameter block
//! and the import (`.lib.stub`) and export (`.lib.ent`) libraries.

use sha1::{Digest, Sha1};

use crate::error::{ElfError, Result};
use crate::image::{Abi, Image, PT_PROC_PARAM, PT_PROC_PRX};

/// Magic of `sys_process_param_t`.
pub const PROC_PARAM_MAGIC: u32 = 0x13BC_C5F6;
/// Magic of `sys_process_prx_param_t`.
pub const PRX_PARAM_MAGIC: u32 = 0x1B43_4CEC;
/// Size of one `.lib.stub` / `.lib.ent` record.
pub const LIB_RECORD_SIZE: u32 = 44;
/// Upper bound on functions per imported library (the real maximum is a few hundred).
const MAX_PER_LIBRARY: u16 = 4096;

/// The FNID of a function name: the first four bytes of SHA-1(name ‖ suffix),
/// read little-endian.
pub fn fnid(name: &str) -> u32 {
    const SUFFIX: [u8; 16] = [
        0x67, 0x59, 0x65, 0x99, 0x04, 0x25, 0x04, 0x90, 0x56, 0x64, 0x27, 0x49, 0x94, 0x89, 0x74,
        0x1A,
    ];
    let mut h = Sha1::new();
    h.update(name.as_bytes());
    h.update(SUFFIX);
    let d = h.finalize();
    u32::from_le_bytes([d[0], d[1], d[2], d[3]])
}

/// `sys_process_param_t` (segment `PT_PROC_PARAM`, section `.sys_proc_param`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcParam {
    /// Size of the structure as written.
    pub size: u32,
    /// Structure version.
    pub version: u32,
    /// SDK version the game was built with.
    pub sdk_version: u32,
    /// Priority of the primary PPU thread.
    pub primary_prio: i32,
    /// Stack size of the primary PPU thread.
    pub primary_stacksize: u32,
    /// Page size `malloc` uses (0x100000 or 0x10000).
    pub malloc_pagesize: u32,
    /// PPC segment flag.
    pub ppc_seg: u32,
}

/// `sys_process_prx_param_t` (segment `PT_PROC_PRX`, section `.sys_proc_prx_param`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrxParam {
    /// Start of the export records (`.lib.ent`).
    pub libent_start: u32,
    /// End of the export records.
    pub libent_end: u32,
    /// Start of the import records (`.lib.stub`).
    pub libstub_start: u32,
    /// End of the import records.
    pub libstub_end: u32,
    /// Format version.
    pub ver: u16,
}

/// One imported function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedFunction {
    /// Its FNID.
    pub fnid: u32,
    /// The slot in the stub table the loader fills with the address of the
    /// function's descriptor (the import stub loads it from there).
    pub slot: u32,
    /// What the slot holds in the file (usually the address of the stub).
    pub initial: u32,
}

/// One imported variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedVariable {
    /// Its VNID.
    pub vnid: u32,
    /// Address of its reference table.
    pub refs: u32,
}

/// One `.lib.stub` record: a library the executable imports from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportLibrary {
    /// Address of the record.
    pub record: u32,
    /// The library's name (`sysPrxForUser`, `cellGcmSys`, ...).
    pub name: String,
    /// Record version.
    pub version: u16,
    /// Record attributes.
    pub attributes: u16,
    /// Its functions.
    pub functions: Vec<ImportedFunction>,
    /// Its variables.
    pub variables: Vec<ImportedVariable>,
}

/// One `.lib.ent` record: a library the executable exports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportLibrary {
    /// Address of the record.
    pub record: u32,
    /// The library's name (empty for the special nameless library of
    /// `module_start` and friends).
    pub name: String,
    /// `(NID, address)` of each function, then each variable.
    pub functions: Vec<(u32, u32)>,
    /// `(NID, address)` of each variable.
    pub variables: Vec<(u32, u32)>,
}

impl Image {
    fn need_lv2(&self, what: &str) -> Result<()> {
        if self.abi != Abi::Lv2 {
            return Err(ElfError::new(
                7,
                format!("{what} exists only in PS3 (OS/ABI 0x66) executables"),
            ));
        }
        Ok(())
    }

    fn word(&self, addr: u32, what: &str) -> Result<u32> {
        self.read_u32(addr).ok_or_else(|| {
            ElfError::new(
                self.file_offset(addr, 1).unwrap_or(0),
                format!("{what} at {addr:#x} is not in a loaded segment"),
            )
        })
    }

    fn half(&self, addr: u32, what: &str) -> Result<u16> {
        self.read(addr, 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| {
                ElfError::new(
                    self.file_offset(addr, 1).unwrap_or(0),
                    format!("{what} at {addr:#x} is not in a loaded segment"),
                )
            })
    }

    /// The process parameters, if the executable has them.
    pub fn proc_param(&self) -> Result<Option<ProcParam>> {
        self.need_lv2("sys_process_param")?;
        let Some(seg) = self.segment(PT_PROC_PARAM).filter(|s| s.filesz > 0) else {
            return Ok(None);
        };
        let a = seg.vaddr;
        let at = |k: u64| seg.offset + k;
        let size = self.word(a, "sys_process_param.size")?;
        let magic = self.word(a + 4, "sys_process_param.magic")?;
        if magic != PROC_PARAM_MAGIC {
            return Err(ElfError::new(
                at(4),
                format!("sys_process_param magic is {magic:#x}, expected {PROC_PARAM_MAGIC:#x}"),
            ));
        }
        if size < 32 {
            return Err(ElfError::new(
                at(0),
                format!("sys_process_param size {size} is below 32"),
            ));
        }
        Ok(Some(ProcParam {
            size,
            version: self.word(a + 8, "sys_process_param.version")?,
            sdk_version: self.word(a + 12, "sys_process_param.sdk_version")?,
            primary_prio: self.word(a + 16, "sys_process_param.primary_prio")? as i32,
            primary_stacksize: self.word(a + 20, "sys_process_param.primary_stacksize")?,
            malloc_pagesize: self.word(a + 24, "sys_process_param.malloc_pagesize")?,
            ppc_seg: self.word(a + 28, "sys_process_param.ppc_seg")?,
        }))
    }

    /// The PRX parameters (where the import and export tables are).
    pub fn prx_param(&self) -> Result<Option<PrxParam>> {
        self.need_lv2("sys_process_prx_param")?;
        let Some(seg) = self.segment(PT_PROC_PRX).filter(|s| s.filesz > 0) else {
            return Ok(None);
        };
        let a = seg.vaddr;
        let magic = self.word(a + 4, "sys_process_prx_param.magic")?;
        if magic != PRX_PARAM_MAGIC {
            return Err(ElfError::new(
                seg.offset + 4,
                format!("sys_process_prx_param magic is {magic:#x}, expected {PRX_PARAM_MAGIC:#x}"),
            ));
        }
        let p = PrxParam {
            libent_start: self.word(a + 16, "libent_start")?,
            libent_end: self.word(a + 20, "libent_end")?,
            libstub_start: self.word(a + 24, "libstub_start")?,
            libstub_end: self.word(a + 28, "libstub_end")?,
            ver: self.half(a + 32, "ver")?,
        };
        for (start, end, off, what) in [
            (p.libent_start, p.libent_end, 16, "libent"),
            (p.libstub_start, p.libstub_end, 24, "libstub"),
        ] {
            if end < start || (end - start) % LIB_RECORD_SIZE != 0 {
                return Err(ElfError::new(
                    seg.offset + off,
                    format!(
                        "{what} range {start:#x}..{end:#x} is not a whole number of 44-byte records"
                    ),
                ));
            }
        }
        Ok(Some(p))
    }

    /// The imported libraries, from the range the PRX parameters give (or
    /// the `.lib.stub` section when there are none).
    pub fn imports(&self) -> Result<Vec<ImportLibrary>> {
        self.need_lv2("an import table")?;
        let (start, end) = match self.prx_param()? {
            Some(p) => (p.libstub_start, p.libstub_end),
            None => match self.section(".lib.stub") {
                Some(s) => (s.addr, s.addr + s.size as u32),
                None => return Ok(Vec::new()),
            },
        };
        let mut out = Vec::new();
        let mut a = start;
        while a < end {
            out.push(self.import_record(a)?);
            a += LIB_RECORD_SIZE;
        }
        Ok(out)
    }

    fn import_record(&self, a: u32) -> Result<ImportLibrary> {
        let off = self.file_offset(a, LIB_RECORD_SIZE).ok_or_else(|| {
            ElfError::new(
                0,
                format!("import record at {a:#x} is not backed by file data"),
            )
        })?;
        let rec = self.read(a, LIB_RECORD_SIZE).expect("checked above");
        let be16 = |k: usize| u16::from_be_bytes([rec[k], rec[k + 1]]);
        let be32 = |k: usize| u32::from_be_bytes([rec[k], rec[k + 1], rec[k + 2], rec[k + 3]]);
        if rec[0] != 0 && u32::from(rec[0]) != LIB_RECORD_SIZE {
            return Err(ElfError::new(
                off,
                format!("import record size byte is {:#x}, expected 0x2c", rec[0]),
            ));
        }
        let (num_func, num_var) = (be16(6), be16(8));
        if num_func > MAX_PER_LIBRARY || num_var > MAX_PER_LIBRARY {
            return Err(ElfError::new(
                off + 6,
                format!("import record counts {num_func}/{num_var} are implausible"),
            ));
        }
        let name_ptr = be32(16);
        let name = self.read_cstr(name_ptr, 256).ok_or_else(|| {
            ElfError::new(
                off + 16,
                format!("import library name pointer {name_ptr:#x} is not a string in the image"),
            )
        })?;
        let (fnids, stubs, vnids, vstubs) = (be32(20), be32(24), be32(28), be32(32));
        let mut functions = Vec::with_capacity(usize::from(num_func));
        for i in 0..u32::from(num_func) {
            let fnid = self.read_u32(fnids + 4 * i).ok_or_else(|| {
                ElfError::new(
                    off + 20,
                    format!("{name}: FNID table {fnids:#x} (entry {i}) is outside the image"),
                )
            })?;
            let slot = stubs + 4 * i;
            let initial = self.read_u32(slot).ok_or_else(|| {
                ElfError::new(
                    off + 24,
                    format!("{name}: stub table {stubs:#x} (entry {i}) is outside the image"),
                )
            })?;
            functions.push(ImportedFunction {
                fnid,
                slot,
                initial,
            });
        }
        let mut variables = Vec::with_capacity(usize::from(num_var));
        for i in 0..u32::from(num_var) {
            let vnid = self.read_u32(vnids + 4 * i).ok_or_else(|| {
                ElfError::new(
                    off + 28,
                    format!("{name}: VNID table {vnids:#x} (entry {i}) is outside the image"),
                )
            })?;
            let refs = self.read_u32(vstubs + 4 * i).ok_or_else(|| {
                ElfError::new(
                    off + 32,
                    format!(
                        "{name}: variable stub table {vstubs:#x} (entry {i}) is outside the image"
                    ),
                )
            })?;
            variables.push(ImportedVariable { vnid, refs });
        }
        Ok(ImportLibrary {
            record: a,
            name,
            version: be16(2),
            attributes: be16(4),
            functions,
            variables,
        })
    }

    /// The exported libraries (`.lib.ent`).
    pub fn exports(&self) -> Result<Vec<ExportLibrary>> {
        self.need_lv2("an export table")?;
        let Some(p) = self.prx_param()? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let mut a = p.libent_start;
        while a < p.libent_end {
            let off = self.file_offset(a, LIB_RECORD_SIZE).ok_or_else(|| {
                ElfError::new(
                    0,
                    format!("export record at {a:#x} is not backed by file data"),
                )
            })?;
            let rec = self.read(a, LIB_RECORD_SIZE).expect("checked above");
            let be16 = |k: usize| u16::from_be_bytes([rec[k], rec[k + 1]]);
            let be32 = |k: usize| u32::from_be_bytes([rec[k], rec[k + 1], rec[k + 2], rec[k + 3]]);
            let (num_func, num_var) = (be16(6), be16(8));
            if num_func > MAX_PER_LIBRARY || num_var > MAX_PER_LIBRARY {
                return Err(ElfError::new(
                    off + 6,
                    format!("export record counts {num_func}/{num_var} are implausible"),
                ));
            }
            let name_ptr = be32(16);
            let name = if name_ptr == 0 {
                String::new()
            } else {
                self.read_cstr(name_ptr, 256).ok_or_else(|| {
                    ElfError::new(
                        off + 16,
                        format!("export library name pointer {name_ptr:#x} is not a string"),
                    )
                })?
            };
            let (nids, addrs) = (be32(20), be32(24));
            let mut all = Vec::new();
            for i in 0..u32::from(num_func) + u32::from(num_var) {
                let nid = self.read_u32(nids + 4 * i);
                let addr = self.read_u32(addrs + 4 * i);
                match (nid, addr) {
                    (Some(n), Some(x)) => all.push((n, x)),
                    _ => {
                        return Err(ElfError::new(
                            off + 20,
                            format!("export {name:?}: entry {i} is outside the image"),
                        ));
                    }
                }
            }
            let variables = all.split_off(usize::from(num_func));
            out.push(ExportLibrary {
                record: a,
                name,
                functions: all,
                variables,
            });
            a += LIB_RECORD_SIZE;
        }
        Ok(out)
    }
}
