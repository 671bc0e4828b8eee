//! [`Image`]: a parsed and validated PPU executable.

use crate::error::{ElfError, Result};
use crate::reader::Reader;

/// ELF identification: `\x7fELF`.
pub const ELF_MAGIC: [u8; 4] = [0x7F, b'E', b'L', b'F'];
/// `e_machine` of 64-bit PowerPC.
pub const EM_PPC64: u16 = 21;
/// `e_type` of an executable.
pub const ET_EXEC: u16 = 2;
/// `e_type` of a PS3 relocatable PRX (refused: executables only).
pub const ET_SCE_PPURELEXEC: u16 = 0xFFA4;
/// OS/ABI byte of CELL LV2 (PS3) executables.
pub const ELFOSABI_CELL_LV2: u8 = 0x66;
/// OS/ABI byte `ELFOSABI_NONE` (System V), what GNU ld writes for ppc64 Linux.
pub const ELFOSABI_SYSV: u8 = 0;
/// OS/ABI byte `ELFOSABI_GNU` (Linux).
pub const ELFOSABI_GNU: u8 = 3;

/// Program header type: loadable segment.
pub const PT_LOAD: u32 = 1;
/// Program header type: thread-local storage template.
pub const PT_TLS: u32 = 7;
/// Program header type (PS3): `sys_process_param_t`.
pub const PT_PROC_PARAM: u32 = 0x6000_0001;
/// Program header type (PS3): `sys_process_prx_param_t` (import/export tables).
pub const PT_PROC_PRX: u32 = 0x6000_0002;

/// Section type: no file data (`.bss`).
pub const SHT_NOBITS: u32 = 8;
/// Section type: symbol table.
pub const SHT_SYMTAB: u32 = 2;

/// Segment flag: executable.
pub const PF_X: u32 = 1;
/// Segment flag: writable.
pub const PF_W: u32 = 2;
/// Segment flag: readable.
pub const PF_R: u32 = 4;

const EHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;
/// Upper bound on header counts, so a corrupt count cannot make us allocate
/// or loop without end (real executables have a few dozen).
const MAX_HEADERS: u64 = 4096;
/// Upper bound on symbols.
const MAX_SYMBOLS: u64 = 1 << 22;

/// Which system the executable is for; decides descriptor size and the
/// system-call personality it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Abi {
    /// A PS3 executable (OS/ABI 0x66): 8-byte descriptors, LV2 system calls,
    /// imports through `.lib.stub`.
    Lv2,
    /// A Linux ppc64 ELFv1 static executable: 24-byte descriptors, Linux
    /// system calls (for testing the recompiler on ordinary programs).
    Linux,
}

impl Abi {
    /// Bytes in one function descriptor (`.opd` entry).
    pub fn descriptor_size(self) -> u32 {
        match self {
            Abi::Lv2 => 8,
            Abi::Linux => 24,
        }
    }
}

/// A program header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// `p_type` (`PT_LOAD`, `PT_TLS`, ...).
    pub kind: u32,
    /// `p_flags` (`PF_R | PF_W | PF_X`).
    pub flags: u32,
    /// File offset of its bytes.
    pub offset: u64,
    /// Guest address (32-bit: the PPU runs with 32-bit effective addresses).
    pub vaddr: u32,
    /// Bytes in the file.
    pub filesz: u32,
    /// Bytes in memory (the rest is zero).
    pub memsz: u32,
    /// File offset of this program header (for error messages).
    pub header_offset: u64,
}

impl Segment {
    /// Whether `addr..addr+len` lies inside the segment's memory image.
    pub fn contains(&self, addr: u32, len: u32) -> bool {
        let (a, l) = (u64::from(addr), u64::from(len));
        a >= u64::from(self.vaddr) && a + l <= u64::from(self.vaddr) + u64::from(self.memsz)
    }

    /// Whether the segment is executable.
    pub fn is_exec(&self) -> bool {
        self.flags & PF_X != 0
    }
}

/// A section header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Its name (`.text`, `.opd`, `.lib.stub`, ...).
    pub name: String,
    /// `sh_type`.
    pub kind: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// Guest address (0 for sections that are not loaded).
    pub addr: u32,
    /// File offset.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_entsize`.
    pub entsize: u64,
}

/// A symbol-table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// Its value (an address for functions and objects).
    pub value: u64,
    /// Its size.
    pub size: u64,
    /// `STT_*` (low nibble of `st_info`): 1 object, 2 function, 6 TLS.
    pub kind: u8,
    /// `STB_*` (high nibble of `st_info`): 0 local, 1 global, 2 weak.
    pub bind: u8,
    /// `st_shndx`.
    pub section: u16,
}

/// `STT_FUNC`.
pub const STT_FUNC: u8 = 2;

/// A function descriptor: where a function's code is and the TOC it runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Descriptor {
    /// Address of the descriptor itself.
    pub addr: u32,
    /// The function's first instruction.
    pub code: u32,
    /// Its TOC (r2) value.
    pub toc: u32,
}

/// A parsed, validated executable. Holds the file's bytes.
#[derive(Debug, Clone)]
pub struct Image {
    /// The whole file.
    pub data: Vec<u8>,
    /// Which system it is for.
    pub abi: Abi,
    /// `e_entry`: the address of the entry function's descriptor.
    pub entry: u32,
    /// Program headers, in file order.
    pub segments: Vec<Segment>,
    /// Section headers, in file order (may be empty: sections are optional).
    pub sections: Vec<Section>,
    /// Symbols from `.symtab` (empty when stripped).
    pub symbols: Vec<Symbol>,
    /// `e_phoff`: file offset of the program headers (`AT_PHDR` needs their address).
    pub phoff: u64,
    /// Number of program headers.
    pub phnum: u16,
}

impl Image {
    /// Parses and validates `data`. Every refusal names the file offset of
    /// the field at fault.
    pub fn parse(data: Vec<u8>) -> Result<Image> {
        let r = Reader { data: &data };
        let ident = r.bytes(0, 16, "ELF identification")?;
        if ident[..4] != ELF_MAGIC {
            return Err(ElfError::new(0, "not an ELF file (no \\x7fELF magic)"));
        }
        if ident[4] != 2 {
            return Err(ElfError::new(
                4,
                format!("EI_CLASS is {}, expected 2 (64-bit)", ident[4]),
            ));
        }
        if ident[5] != 2 {
            return Err(ElfError::new(
                5,
                format!("EI_DATA is {}, expected 2 (big-endian)", ident[5]),
            ));
        }
        if ident[6] != 1 {
            return Err(ElfError::new(
                6,
                format!("EI_VERSION is {}, expected 1", ident[6]),
            ));
        }
        let abi = match ident[7] {
            ELFOSABI_CELL_LV2 => Abi::Lv2,
            ELFOSABI_SYSV | ELFOSABI_GNU => Abi::Linux,
            o => {
                return Err(ElfError::new(
                    7,
                    format!("OS/ABI is {o:#x}: expected 0x66 (CELL LV2) or 0/3 (Linux)"),
                ));
            }
        };
        r.bytes(0, EHDR_SIZE, "ELF header")?;
        let e_type = r.u16(16, "e_type")?;
        match e_type {
            ET_EXEC => {}
            ET_SCE_PPURELEXEC => {
                return Err(ElfError::new(
                    16,
                    "e_type 0xffa4 is a PRX (relocatable module), not an executable",
                ));
            }
            t => {
                return Err(ElfError::new(
                    16,
                    format!("e_type is {t:#x}, expected 2 (ET_EXEC)"),
                ));
            }
        }
        let machine = r.u16(18, "e_machine")?;
        if machine != EM_PPC64 {
            return Err(ElfError::new(
                18,
                format!("e_machine is {machine}, expected 21 (PowerPC64)"),
            ));
        }
        let entry64 = r.u64(24, "e_entry")?;
        let phoff = r.u64(32, "e_phoff")?;
        let shoff = r.u64(40, "e_shoff")?;
        let phentsize = u64::from(r.u16(54, "e_phentsize")?);
        let phnum = r.u16(56, "e_phnum")?;
        let shentsize = u64::from(r.u16(58, "e_shentsize")?);
        let shnum = u64::from(r.u16(60, "e_shnum")?);
        let shstrndx = u64::from(r.u16(62, "e_shstrndx")?);
        let entry = addr32(entry64, 24, "e_entry")?;

        // Program headers.
        if phnum == 0 {
            return Err(ElfError::new(56, "no program headers (e_phnum is 0)"));
        }
        if phentsize != PHDR_SIZE {
            return Err(ElfError::new(
                54,
                format!("e_phentsize is {phentsize}, expected 56"),
            ));
        }
        if u64::from(phnum) > MAX_HEADERS {
            return Err(ElfError::new(56, format!("e_phnum {phnum} is implausible")));
        }
        r.bytes(phoff, u64::from(phnum) * PHDR_SIZE, "program header table")?;
        let mut segments = Vec::with_capacity(usize::from(phnum));
        for i in 0..u64::from(phnum) {
            let h = phoff + i * PHDR_SIZE;
            let kind = r.u32(h, "p_type")?;
            let flags = r.u32(h + 4, "p_flags")?;
            let offset = r.u64(h + 8, "p_offset")?;
            let vaddr64 = r.u64(h + 16, "p_vaddr")?;
            let filesz64 = r.u64(h + 32, "p_filesz")?;
            let memsz64 = r.u64(h + 40, "p_memsz")?;
            if !matches!(kind, PT_LOAD | PT_TLS | PT_PROC_PARAM | PT_PROC_PRX) {
                // Notes, GNU_STACK, RELRO, SCE comments: nothing to load or check.
                segments.push(Segment {
                    kind,
                    flags,
                    offset,
                    vaddr: 0,
                    filesz: 0,
                    memsz: 0,
                    header_offset: h,
                });
                continue;
            }
            if filesz64 > memsz64 {
                return Err(ElfError::new(
                    h + 32,
                    format!(
                        "segment {i}: p_filesz {filesz64:#x} is larger than p_memsz {memsz64:#x}"
                    ),
                ));
            }
            let vaddr = addr32(vaddr64, h + 16, "p_vaddr")?;
            if vaddr64 + memsz64 > 1 << 32 {
                return Err(ElfError::new(
                    h + 40,
                    format!(
                        "segment {i} ({vaddr64:#x}+{memsz64:#x}) ends past the 4 GiB guest address space"
                    ),
                ));
            }
            r.bytes(
                offset,
                filesz64,
                &format!(
                    "segment {i}'s file data (p_offset/p_filesz at {:#x})",
                    h + 8
                ),
            )?;
            segments.push(Segment {
                kind,
                flags,
                offset,
                vaddr,
                filesz: filesz64 as u32,
                memsz: memsz64 as u32,
                header_offset: h,
            });
        }
        let loads: Vec<&Segment> = segments
            .iter()
            .filter(|s| s.kind == PT_LOAD && s.memsz > 0)
            .collect();
        if loads.is_empty() {
            return Err(ElfError::new(phoff, "no loadable (PT_LOAD) segment"));
        }
        for (a, sa) in loads.iter().enumerate() {
            if sa.vaddr == 0 || sa.vaddr < guest_mem::PAGE_SIZE {
                return Err(ElfError::new(
                    sa.header_offset + 16,
                    format!(
                        "segment at {:#x} lies in guest page 0, which stays unmapped",
                        sa.vaddr
                    ),
                ));
            }
            for sb in &loads[a + 1..] {
                let (a0, a1) = (
                    u64::from(sa.vaddr),
                    u64::from(sa.vaddr) + u64::from(sa.memsz),
                );
                let (b0, b1) = (
                    u64::from(sb.vaddr),
                    u64::from(sb.vaddr) + u64::from(sb.memsz),
                );
                if a0 < b1 && b0 < a1 {
                    return Err(ElfError::new(
                        sb.header_offset + 16,
                        format!("segment {b0:#x}..{b1:#x} overlaps segment {a0:#x}..{a1:#x}"),
                    ));
                }
            }
        }

        // Section headers (optional).
        let mut sections = Vec::new();
        if shnum > 0 {
            if shentsize != SHDR_SIZE {
                return Err(ElfError::new(
                    58,
                    format!("e_shentsize is {shentsize}, expected 64"),
                ));
            }
            if shnum > MAX_HEADERS {
                return Err(ElfError::new(60, format!("e_shnum {shnum} is implausible")));
            }
            r.bytes(shoff, shnum * SHDR_SIZE, "section header table")?;
            if shstrndx >= shnum {
                return Err(ElfError::new(
                    62,
                    format!("e_shstrndx {shstrndx} is not below e_shnum {shnum}"),
                ));
            }
            let strh = shoff + shstrndx * SHDR_SIZE;
            let str_off = r.u64(strh + 24, "section name table's sh_offset")?;
            let str_size = r.u64(strh + 32, "section name table's sh_size")?;
            r.bytes(str_off, str_size, "section name table")?;
            for i in 0..shnum {
                let h = shoff + i * SHDR_SIZE;
                let name_idx = u64::from(r.u32(h, "sh_name")?);
                let kind = r.u32(h + 4, "sh_type")?;
                let flags = r.u64(h + 8, "sh_flags")?;
                let addr64 = r.u64(h + 16, "sh_addr")?;
                let offset = r.u64(h + 24, "sh_offset")?;
                let size = r.u64(h + 32, "sh_size")?;
                let link = r.u32(h + 40, "sh_link")?;
                let entsize = r.u64(h + 56, "sh_entsize")?;
                let name = if i == 0 {
                    String::new()
                } else {
                    if name_idx >= str_size {
                        return Err(ElfError::new(
                            h,
                            format!("section {i}: sh_name {name_idx:#x} is outside the name table"),
                        ));
                    }
                    r.cstr(str_off + name_idx, str_size - name_idx, "section name")?
                        .to_string()
                };
                let addr = addr32(addr64, h + 16, "sh_addr")?;
                if kind != SHT_NOBITS && kind != 0 {
                    r.bytes(
                        offset,
                        size,
                        &format!("section {name:?} (header at {h:#x})"),
                    )?;
                }
                sections.push(Section {
                    name,
                    kind,
                    flags,
                    addr,
                    offset,
                    size,
                    link,
                    entsize,
                });
            }
        }

        let mut image = Image {
            data: Vec::new(),
            abi,
            entry,
            segments,
            sections,
            symbols: Vec::new(),
            phoff,
            phnum,
        };
        image.symbols = image.read_symbols(&r, shoff)?;
        image.data = data;

        // The entry point must be a descriptor whose code is executable.
        let d = image
            .descriptor(entry)
            .map_err(|e| ElfError::new(24, format!("e_entry {entry:#x}: {}", e.reason)))?;
        if !image.is_code(d.code) {
            return Err(ElfError::new(
                24,
                format!(
                    "e_entry's descriptor at {entry:#x} points at {:#x}, which is not in an executable segment",
                    d.code
                ),
            ));
        }
        Ok(image)
    }

    fn read_symbols(&self, r: &Reader<'_>, shoff: u64) -> Result<Vec<Symbol>> {
        let Some((idx, symtab)) = self
            .sections
            .iter()
            .enumerate()
            .find(|(_, s)| s.kind == SHT_SYMTAB)
        else {
            return Ok(Vec::new());
        };
        let h = shoff + idx as u64 * SHDR_SIZE;
        if symtab.entsize != SYM_SIZE {
            return Err(ElfError::new(
                h + 56,
                format!(".symtab sh_entsize is {}, expected 24", symtab.entsize),
            ));
        }
        let count = symtab.size / SYM_SIZE;
        if count > MAX_SYMBOLS {
            return Err(ElfError::new(
                h + 32,
                format!(".symtab holds {count} symbols: implausible"),
            ));
        }
        let strtab = self.sections.get(symtab.link as usize).ok_or_else(|| {
            ElfError::new(
                h + 40,
                format!(".symtab sh_link {} names no section", symtab.link),
            )
        })?;
        let mut out = Vec::with_capacity(count as usize);
        for k in 1..count {
            let e = symtab.offset + k * SYM_SIZE;
            let name_idx = u64::from(r.u32(e, "st_name")?);
            let info = r.u8(e + 4, "st_info")?;
            let section = r.u16(e + 6, "st_shndx")?;
            let value = r.u64(e + 8, "st_value")?;
            let size = r.u64(e + 16, "st_size")?;
            if name_idx >= strtab.size {
                return Err(ElfError::new(
                    e,
                    format!("symbol {k}: st_name {name_idx:#x} is outside the string table"),
                ));
            }
            let name = r
                .cstr(
                    strtab.offset + name_idx,
                    strtab.size - name_idx,
                    "symbol name",
                )?
                .to_string();
            out.push(Symbol {
                name,
                value,
                size,
                kind: info & 0xF,
                bind: info >> 4,
                section,
            });
        }
        Ok(out)
    }

    /// The loadable segments.
    pub fn loads(&self) -> impl Iterator<Item = &Segment> {
        self.segments
            .iter()
            .filter(|s| s.kind == PT_LOAD && s.memsz > 0)
    }

    /// The first segment of type `kind`.
    pub fn segment(&self, kind: u32) -> Option<&Segment> {
        self.segments.iter().find(|s| s.kind == kind)
    }

    /// The section named `name`.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// Whether `addr` is inside an executable loadable segment.
    pub fn is_code(&self, addr: u32) -> bool {
        self.loads().any(|s| s.is_exec() && s.contains(addr, 4))
    }

    /// The code address ranges `(start, end)`, sorted: the executable
    /// sections (`SHF_ALLOC | SHF_EXECINSTR`) inside executable segments
    /// when the file has section headers (so read-only data that shares
    /// the code segment is left out), else the executable segments.
    pub fn code_ranges(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self
            .sections
            .iter()
            .filter(|s| s.flags & 0x6 == 0x6 && s.kind != SHT_NOBITS && s.size > 0)
            .filter(|s| {
                self.loads()
                    .any(|g| g.is_exec() && g.contains(s.addr, s.size as u32))
            })
            .map(|s| (s.addr, s.addr + s.size as u32))
            .collect();
        if v.is_empty() {
            v = self
                .loads()
                .filter(|s| s.is_exec())
                .map(|s| (s.vaddr, s.vaddr + s.memsz))
                .collect();
        }
        v.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for (a, b) in v {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        merged
    }

    /// The file offset of guest address `addr`, if it is backed by file data
    /// for `len` bytes.
    pub fn file_offset(&self, addr: u32, len: u32) -> Option<u64> {
        self.loads().find_map(|s| {
            let a = u64::from(addr);
            let start = u64::from(s.vaddr);
            (a >= start && a + u64::from(len) <= start + u64::from(s.filesz))
                .then(|| s.offset + (a - start))
        })
    }

    /// The initial bytes at `addr..addr+len` of the memory image: file data,
    /// or zeros in a segment's zero-filled tail. `None` when not all of the
    /// range is in one loadable segment.
    pub fn read(&self, addr: u32, len: u32) -> Option<Vec<u8>> {
        let s = self.loads().find(|s| s.contains(addr, len))?;
        let rel = u64::from(addr - s.vaddr);
        let mut out = vec![0u8; len as usize];
        let file_end = u64::from(s.filesz);
        if rel < file_end {
            let n = (file_end - rel).min(u64::from(len)) as usize;
            let off = (s.offset + rel) as usize;
            out[..n].copy_from_slice(&self.data[off..off + n]);
        }
        Some(out)
    }

    /// The big-endian word at `addr` in the initial memory image.
    pub fn read_u32(&self, addr: u32) -> Option<u32> {
        self.read(addr, 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The big-endian doubleword at `addr` in the initial memory image.
    pub fn read_u64(&self, addr: u32) -> Option<u64> {
        self.read(addr, 8).map(|b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b);
            u64::from_be_bytes(a)
        })
    }

    /// A NUL-terminated string at `addr` in the initial memory image.
    pub fn read_cstr(&self, addr: u32, max: u32) -> Option<String> {
        let s = self.loads().find(|s| s.contains(addr, 1))?;
        let avail = (s.vaddr + s.memsz - addr).min(max);
        let b = self.read(addr, avail)?;
        let n = b.iter().position(|&c| c == 0)?;
        String::from_utf8(b[..n].to_vec()).ok()
    }

    /// The descriptor at `addr` (8 bytes on the PS3: 32-bit code address and
    /// TOC; 24 bytes on Linux: 64-bit code address, TOC, environment).
    pub fn descriptor(&self, addr: u32) -> Result<Descriptor> {
        let here = |why: &str| {
            ElfError::new(
                self.file_offset(addr, 1).unwrap_or(0),
                format!("descriptor at {addr:#x}: {why}"),
            )
        };
        match self.abi {
            Abi::Lv2 => {
                let code = self
                    .read_u32(addr)
                    .ok_or_else(|| here("not in a loaded segment"))?;
                let toc = self
                    .read_u32(addr + 4)
                    .ok_or_else(|| here("not in a loaded segment"))?;
                Ok(Descriptor { addr, code, toc })
            }
            Abi::Linux => {
                let code = self
                    .read_u64(addr)
                    .ok_or_else(|| here("not in a loaded segment"))?;
                let toc = self
                    .read_u64(addr + 8)
                    .ok_or_else(|| here("not in a loaded segment"))?;
                if code >> 32 != 0 || toc >> 32 != 0 {
                    return Err(here(&format!(
                        "code {code:#x} / TOC {toc:#x} lie above 4 GiB"
                    )));
                }
                Ok(Descriptor {
                    addr,
                    code: code as u32,
                    toc: toc as u32,
                })
            }
        }
    }

    /// The entry function's descriptor.
    pub fn entry_descriptor(&self) -> Descriptor {
        self.descriptor(self.entry).expect("validated by parse")
    }

    /// Every descriptor in `.opd` whose code address is executable (entries
    /// that are not, such as zeroed ones, are skipped). Empty without
    /// section headers.
    pub fn opd(&self) -> Vec<Descriptor> {
        let Some(opd) = self.section(".opd") else {
            return Vec::new();
        };
        let step = self.abi.descriptor_size();
        let mut out = Vec::new();
        let mut a = opd.addr;
        let end = u64::from(opd.addr) + opd.size;
        while u64::from(a) + u64::from(step) <= end {
            if let Ok(d) = self.descriptor(a)
                && self.is_code(d.code)
            {
                out.push(d);
            }
            a += step;
        }
        out
    }

    /// Function symbols whose value is a code address (PS3 and local
    /// symbols) or a descriptor (ELFv1 global functions), resolved to code
    /// addresses: `(code address, name)`, sorted by address.
    pub fn function_symbols(&self) -> Vec<(u32, String)> {
        let mut out: Vec<(u32, String)> = self
            .symbols
            .iter()
            .filter(|s| s.kind == STT_FUNC && s.value != 0 && s.value >> 32 == 0)
            .filter_map(|s| {
                let v = s.value as u32;
                if self.is_code(v) {
                    Some((v, s.name.clone()))
                } else {
                    self.descriptor(v)
                        .ok()
                        .filter(|d| self.is_code(d.code))
                        .map(|d| (d.code, s.name.clone()))
                }
            })
            .collect();
        out.sort();
        out.dedup_by_key(|e| e.0);
        out
    }

    /// The guest address of the program headers, if a loadable segment holds
    /// them (what `AT_PHDR` reports).
    pub fn phdr_addr(&self) -> Option<u32> {
        self.loads().find_map(|s| {
            let end = s.offset + u64::from(s.filesz);
            (self.phoff >= s.offset && self.phoff < end)
                .then(|| s.vaddr + (self.phoff - s.offset) as u32)
        })
    }
}

/// Checks that a 64-bit address field fits the 32-bit guest address space.
fn addr32(v: u64, off: u64, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| {
        ElfError::new(
            off,
            format!("{what} {v:#x} lies above the 4 GiB guest address space"),
        )
    })
}
