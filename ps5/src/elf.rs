//! Reading an ELF64 x86-64 image: its headers, its dynamic section, its
//! symbols, relocations and symbol versions.
//!
//! The same code reads the payload in two places: the start-up code reads
//! the image the loader mapped (at the base it chose, before any library
//! function is available: nothing here allocates or calls out), and the
//! host tools and tests read the payload file after laying it out in memory
//! the same way ([`LoadedFile`]). Every access is bounds-checked against the
//! image, so a malformed file gives an [`ElfError`] naming the offset and
//! never a wild read or write.

use core::ffi::CStr;
use core::fmt;

/// `e_type` of a position-independent executable or shared object.
pub const ET_DYN: u16 = 3;
/// `e_machine` of x86-64.
pub const EM_X86_64: u16 = 62;

/// Program header: loadable segment.
pub const PT_LOAD: u32 = 1;
/// Program header: the dynamic section.
pub const PT_DYNAMIC: u32 = 2;
/// Program header: an interpreter path (must not be present).
pub const PT_INTERP: u32 = 3;
/// Program header: the thread-local storage template.
pub const PT_TLS: u32 = 7;
/// Segment flag: executable.
pub const PF_X: u32 = 1;
/// Segment flag: writable.
pub const PF_W: u32 = 2;
/// Segment flag: readable.
pub const PF_R: u32 = 4;

/// Dynamic tag: end of the dynamic section.
pub const DT_NULL: i64 = 0;
/// Dynamic tag: a needed library (string table offset of its name).
pub const DT_NEEDED: i64 = 1;
/// Dynamic tag: size of the PLT relocation table.
pub const DT_PLTRELSZ: i64 = 2;
/// Dynamic tag: the symbol hash table.
pub const DT_HASH: i64 = 4;
/// Dynamic tag: the dynamic string table.
pub const DT_STRTAB: i64 = 5;
/// Dynamic tag: the dynamic symbol table.
pub const DT_SYMTAB: i64 = 6;
/// Dynamic tag: the RELA relocation table.
pub const DT_RELA: i64 = 7;
/// Dynamic tag: size of the RELA table.
pub const DT_RELASZ: i64 = 8;
/// Dynamic tag: size of one RELA entry.
pub const DT_RELAENT: i64 = 9;
/// Dynamic tag: size of the string table.
pub const DT_STRSZ: i64 = 10;
/// Dynamic tag: size of one symbol.
pub const DT_SYMENT: i64 = 11;
/// Dynamic tag: kind of the PLT relocations (must be RELA).
pub const DT_PLTREL: i64 = 20;
/// Dynamic tag: relocations may write to a non-writable segment.
pub const DT_TEXTREL: i64 = 22;
/// Dynamic tag: the PLT relocation table.
pub const DT_JMPREL: i64 = 23;
/// Dynamic tag: the init function array.
pub const DT_INIT_ARRAY: i64 = 25;
/// Dynamic tag: the fini function array.
pub const DT_FINI_ARRAY: i64 = 26;
/// Dynamic tag: size of the init array.
pub const DT_INIT_ARRAYSZ: i64 = 27;
/// Dynamic tag: size of the fini array.
pub const DT_FINI_ARRAYSZ: i64 = 28;
/// Dynamic tag: the GNU symbol version table (one u16 per symbol).
pub const DT_VERSYM: i64 = 0x6fff_fff0;
/// Dynamic tag: the GNU version-needed table.
pub const DT_VERNEED: i64 = 0x6fff_fffe;
/// Dynamic tag: number of version-needed entries.
pub const DT_VERNEEDNUM: i64 = 0x6fff_ffff;

/// `st_shndx` of an undefined symbol.
pub const SHN_UNDEF: u16 = 0;
/// Symbol binding: global.
pub const STB_GLOBAL: u8 = 1;
/// Symbol binding: weak.
pub const STB_WEAK: u8 = 2;
/// Symbol type: data object.
pub const STT_OBJECT: u8 = 1;
/// Symbol type: function.
pub const STT_FUNC: u8 = 2;
/// Symbol type: thread-local.
pub const STT_TLS: u8 = 6;

/// Section type: relocations with addends.
pub const SHT_RELA: u32 = 4;

/// Size of the ELF64 header.
pub const EHDR_SIZE: usize = 64;
/// Size of one ELF64 program header.
pub const PHDR_SIZE: usize = 56;
/// Size of one dynamic entry.
pub const DYN_SIZE: u64 = 16;
/// Size of one ELF64 symbol.
pub const SYM_SIZE: u64 = 24;
/// Size of one RELA relocation.
pub const RELA_SIZE: u64 = 24;

/// The most loadable segments an image may have (the payload has three).
pub const MAX_SEGMENTS: usize = 8;

/// What is wrong with an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElfError {
    /// A read of `len` bytes at image offset `offset` falls outside the image.
    OutOfBounds {
        /// Offset (virtual address relative to the base) of the read.
        offset: u64,
        /// Length of the read.
        len: u64,
    },
    /// Not an ELF64 little-endian x86-64 file.
    NotElf64X86,
    /// The header field `field` has the value `value`, which is not supported.
    BadHeader {
        /// The field's name.
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// A string at `offset` has no terminating NUL inside the image.
    UnterminatedString {
        /// Offset of the string.
        offset: u64,
    },
    /// More than [`MAX_SEGMENTS`] loadable segments.
    TooManySegments,
    /// The image has no `PT_DYNAMIC`.
    NoDynamic,
    /// The dynamic section lacks a table it needs (`DT_*` name).
    MissingTag(&'static str),
    /// A symbol index beyond the symbol table.
    BadSymbolIndex(u32),
}

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ElfError::OutOfBounds { offset, len } => {
                write!(
                    f,
                    "read of {len} bytes at offset {offset:#x} is outside the image"
                )
            }
            ElfError::NotElf64X86 => f.write_str("not an ELF64 little-endian x86-64 file"),
            ElfError::BadHeader { field, value } => {
                write!(f, "unsupported ELF header field {field} = {value:#x}")
            }
            ElfError::UnterminatedString { offset } => {
                write!(f, "string at offset {offset:#x} has no terminating NUL")
            }
            ElfError::TooManySegments => {
                write!(f, "more than {MAX_SEGMENTS} loadable segments")
            }
            ElfError::NoDynamic => f.write_str("no PT_DYNAMIC program header"),
            ElfError::MissingTag(t) => write!(f, "the dynamic section has no {t}"),
            ElfError::BadSymbolIndex(i) => {
                write!(f, "symbol index {i} is outside the symbol table")
            }
        }
    }
}

impl core::error::Error for ElfError {}

/// Little-endian scalars an image can be read as.
pub trait Scalar: Copy {
    /// Size in bytes.
    const SIZE: usize;
    /// Decodes from exactly `SIZE` little-endian bytes.
    fn from_le_slice(b: &[u8]) -> Self;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            fn from_le_slice(b: &[u8]) -> Self {
                let mut a = [0u8; core::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..core::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
scalar!(u8, u16, u32, u64, i64);

/// A mapped image: `len` bytes at `base`. Offsets are virtual addresses
/// relative to the base (the payload is linked at address 0).
pub struct Image {
    base: *mut u8,
    len: usize,
}

impl Image {
    /// An image of `len` bytes at `base`.
    ///
    /// # Safety
    /// `base..base+len` must be mapped, readable memory for as long as the
    /// image is used, and writable wherever [`Image::write_u64`] is called.
    pub unsafe fn new(base: *mut u8, len: usize) -> Image {
        Image { base, len }
    }

    /// The base address.
    pub fn base(&self) -> u64 {
        self.base as u64
    }

    /// The image's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the image is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes at `offset..offset+len`.
    pub fn bytes(&self, offset: u64, len: u64) -> Result<&[u8], ElfError> {
        let end = offset
            .checked_add(len)
            .ok_or(ElfError::OutOfBounds { offset, len })?;
        if end > self.len as u64 {
            return Err(ElfError::OutOfBounds { offset, len });
        }
        // SAFETY: the range lies inside the image, which `new`'s caller
        // guarantees is mapped and readable.
        Ok(unsafe { core::slice::from_raw_parts(self.base.add(offset as usize), len as usize) })
    }

    /// Reads a little-endian scalar at `offset`.
    pub fn read<T: Scalar>(&self, offset: u64) -> Result<T, ElfError> {
        Ok(T::from_le_slice(self.bytes(offset, T::SIZE as u64)?))
    }

    /// The NUL-terminated string at `offset`.
    pub fn cstr(&self, offset: u64) -> Result<&CStr, ElfError> {
        if offset >= self.len as u64 {
            return Err(ElfError::OutOfBounds { offset, len: 1 });
        }
        let rest = self.bytes(offset, self.len as u64 - offset)?;
        CStr::from_bytes_until_nul(rest).map_err(|_| ElfError::UnterminatedString { offset })
    }

    /// Writes a little-endian u64 at `offset`.
    pub fn write_u64(&self, offset: u64, value: u64) -> Result<(), ElfError> {
        self.bytes(offset, 8)?;
        // SAFETY: the 8 bytes lie inside the image (checked just above); the
        // caller of `new` guarantees they are writable where the linker
        // writes, and `link` only writes inside writable segments.
        unsafe { core::ptr::write_unaligned(self.base.add(offset as usize) as *mut u64, value) };
        Ok(())
    }
}

/// One program header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Segment {
    /// `p_type`.
    pub kind: u32,
    /// `p_flags` (`PF_R | PF_W | PF_X`).
    pub flags: u32,
    /// `p_offset` in the file.
    pub offset: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// `p_align`.
    pub align: u64,
}

/// The ELF header fields and program headers that matter for loading.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// `e_type`.
    pub kind: u16,
    /// `e_entry`.
    pub entry: u64,
    /// Loadable segments.
    loads: [Segment; MAX_SEGMENTS],
    load_count: usize,
    /// `PT_DYNAMIC`, if any.
    pub dynamic: Option<Segment>,
    /// Whether there is a `PT_TLS` segment.
    pub has_tls: bool,
    /// Whether there is a `PT_INTERP` segment.
    pub has_interp: bool,
    /// `e_phnum`.
    pub phnum: u16,
    /// `e_phoff`.
    pub phoff: u64,
    /// `e_shoff`.
    pub shoff: u64,
    /// `e_shnum`.
    pub shnum: u16,
    /// `e_shentsize`.
    pub shentsize: u16,
    /// `e_shstrndx`.
    pub shstrndx: u16,
}

impl Layout {
    /// Parses the ELF header and program headers from `header`, the first
    /// bytes of the file (or of the image, where the headers are loaded).
    pub fn parse(header: &[u8]) -> Result<Layout, ElfError> {
        let get = |off: usize, len: usize| -> Result<&[u8], ElfError> {
            header.get(off..off + len).ok_or(ElfError::OutOfBounds {
                offset: off as u64,
                len: len as u64,
            })
        };
        let ident = get(0, 16)?;
        if ident[..4] != *b"\x7fELF" || ident[4] != 2 || ident[5] != 1 {
            return Err(ElfError::NotElf64X86);
        }
        let machine = u16::from_le_slice(get(18, 2)?);
        if machine != EM_X86_64 {
            return Err(ElfError::NotElf64X86);
        }
        let kind = u16::from_le_slice(get(16, 2)?);
        let entry = u64::from_le_slice(get(24, 8)?);
        let phoff = u64::from_le_slice(get(32, 8)?);
        let shoff = u64::from_le_slice(get(40, 8)?);
        let phentsize = u16::from_le_slice(get(54, 2)?);
        let phnum = u16::from_le_slice(get(56, 2)?);
        let shentsize = u16::from_le_slice(get(58, 2)?);
        let shnum = u16::from_le_slice(get(60, 2)?);
        let shstrndx = u16::from_le_slice(get(62, 2)?);
        if phentsize as usize != PHDR_SIZE {
            return Err(ElfError::BadHeader {
                field: "e_phentsize",
                value: phentsize.into(),
            });
        }
        let mut layout = Layout {
            kind,
            entry,
            loads: [Segment::default(); MAX_SEGMENTS],
            load_count: 0,
            dynamic: None,
            has_tls: false,
            has_interp: false,
            phnum,
            phoff,
            shoff,
            shnum,
            shentsize,
            shstrndx,
        };
        for i in 0..phnum as usize {
            let at = usize::try_from(phoff)
                .ok()
                .and_then(|p| p.checked_add(i * PHDR_SIZE))
                .ok_or(ElfError::BadHeader {
                    field: "e_phoff",
                    value: phoff,
                })?;
            let ph = get(at, PHDR_SIZE)?;
            let seg = Segment {
                kind: u32::from_le_slice(&ph[0..4]),
                flags: u32::from_le_slice(&ph[4..8]),
                offset: u64::from_le_slice(&ph[8..16]),
                vaddr: u64::from_le_slice(&ph[16..24]),
                filesz: u64::from_le_slice(&ph[32..40]),
                memsz: u64::from_le_slice(&ph[40..48]),
                align: u64::from_le_slice(&ph[48..56]),
            };
            match seg.kind {
                PT_LOAD => {
                    if layout.load_count == MAX_SEGMENTS {
                        return Err(ElfError::TooManySegments);
                    }
                    if seg.filesz > seg.memsz {
                        return Err(ElfError::BadHeader {
                            field: "p_filesz",
                            value: seg.filesz,
                        });
                    }
                    layout.loads[layout.load_count] = seg;
                    layout.load_count += 1;
                }
                PT_DYNAMIC => layout.dynamic = Some(seg),
                PT_TLS => layout.has_tls = true,
                PT_INTERP => layout.has_interp = true,
                _ => {}
            }
        }
        Ok(layout)
    }

    /// The loadable segments.
    pub fn loads(&self) -> &[Segment] {
        &self.loads[..self.load_count]
    }

    /// The size of the mapped image: the end of the highest segment.
    pub fn extent(&self) -> u64 {
        self.loads()
            .iter()
            .map(|s| s.vaddr.saturating_add(s.memsz))
            .max()
            .unwrap_or(0)
    }

    /// Whether `len` bytes at `offset` lie inside one writable segment.
    pub fn is_writable(&self, offset: u64, len: u64) -> bool {
        self.loads().iter().any(|s| {
            s.flags & PF_W != 0
                && offset >= s.vaddr
                && offset
                    .checked_add(len)
                    .is_some_and(|end| end <= s.vaddr + s.memsz)
        })
    }
}

/// The tables the dynamic section points to (all offsets relative to the base).
#[derive(Debug, Clone, Copy, Default)]
pub struct Dynamic {
    /// Where the dynamic section starts, and its entry count.
    pub at: u64,
    /// Number of entries up to and including `DT_NULL`.
    pub count: u64,
    /// `DT_STRTAB`.
    pub strtab: u64,
    /// `DT_STRSZ`.
    pub strsz: u64,
    /// `DT_SYMTAB`.
    pub symtab: u64,
    /// Symbol count from `DT_HASH`, when present.
    pub nsyms: Option<u64>,
    /// `DT_RELA`, `DT_RELASZ`.
    pub rela: (u64, u64),
    /// `DT_JMPREL`, `DT_PLTRELSZ`.
    pub jmprel: (u64, u64),
    /// `DT_VERSYM`.
    pub versym: Option<u64>,
    /// `DT_VERNEED`, `DT_VERNEEDNUM`.
    pub verneed: Option<(u64, u64)>,
    /// `DT_INIT_ARRAY`, `DT_INIT_ARRAYSZ`.
    pub init_array: (u64, u64),
    /// `DT_FINI_ARRAY`, `DT_FINI_ARRAYSZ`.
    pub fini_array: (u64, u64),
    /// Whether `DT_TEXTREL` is present.
    pub textrel: bool,
}

/// One dynamic symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    /// Its index in the dynamic symbol table.
    pub index: u32,
    /// `st_name`.
    pub name: u32,
    /// `st_info`.
    pub info: u8,
    /// `st_shndx`.
    pub shndx: u16,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
}

impl Symbol {
    /// The binding (`STB_*`).
    pub fn binding(&self) -> u8 {
        self.info >> 4
    }
    /// The type (`STT_*`).
    pub fn kind(&self) -> u8 {
        self.info & 0xF
    }
    /// Whether the symbol is defined in this image.
    pub fn is_defined(&self) -> bool {
        self.shndx != SHN_UNDEF
    }
    /// Whether the symbol is weak.
    pub fn is_weak(&self) -> bool {
        self.binding() == STB_WEAK
    }
}

/// One relocation with addend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rela {
    /// Where it applies.
    pub offset: u64,
    /// The relocation type (`R_X86_64_*`).
    pub kind: u32,
    /// The symbol index (0: none).
    pub sym: u32,
    /// The addend.
    pub addend: i64,
}

/// The version a symbol is needed at, from the GNU version tables: which
/// library file provides it and the version's name.
#[derive(Debug, Clone, Copy)]
pub struct NeededVersion<'a> {
    /// The library (`vn_file`, its soname).
    pub file: &'a CStr,
    /// The version name (`vna_name`).
    pub name: &'a CStr,
}

impl Dynamic {
    /// Reads the dynamic section of `count_max` entries at most at `at`.
    pub fn parse(img: &Image, at: u64, size: u64) -> Result<Dynamic, ElfError> {
        let mut d = Dynamic {
            at,
            ..Dynamic::default()
        };
        let (mut have_strtab, mut have_symtab) = (false, false);
        let mut relaent = RELA_SIZE;
        let mut hash = None;
        let max = size / DYN_SIZE;
        let mut i = 0;
        loop {
            if i >= max {
                return Err(ElfError::MissingTag("DT_NULL"));
            }
            let tag = img.read::<i64>(at + i * DYN_SIZE)?;
            let val = img.read::<u64>(at + i * DYN_SIZE + 8)?;
            i += 1;
            match tag {
                DT_NULL => break,
                DT_STRTAB => (d.strtab, have_strtab) = (val, true),
                DT_STRSZ => d.strsz = val,
                DT_SYMTAB => (d.symtab, have_symtab) = (val, true),
                DT_SYMENT if val != SYM_SIZE => {
                    return Err(ElfError::BadHeader {
                        field: "DT_SYMENT",
                        value: val,
                    });
                }
                DT_HASH => hash = Some(val),
                DT_RELA => d.rela.0 = val,
                DT_RELASZ => d.rela.1 = val,
                DT_RELAENT => relaent = val,
                DT_JMPREL => d.jmprel.0 = val,
                DT_PLTRELSZ => d.jmprel.1 = val,
                DT_PLTREL if val != DT_RELA as u64 => {
                    return Err(ElfError::BadHeader {
                        field: "DT_PLTREL",
                        value: val,
                    });
                }
                DT_VERSYM => d.versym = Some(val),
                DT_VERNEED => d.verneed = Some((val, d.verneed.map_or(0, |v| v.1))),
                DT_VERNEEDNUM => d.verneed = Some((d.verneed.map_or(0, |v| v.0), val)),
                DT_INIT_ARRAY => d.init_array.0 = val,
                DT_INIT_ARRAYSZ => d.init_array.1 = val,
                DT_FINI_ARRAY => d.fini_array.0 = val,
                DT_FINI_ARRAYSZ => d.fini_array.1 = val,
                DT_TEXTREL => d.textrel = true,
                _ => {}
            }
        }
        d.count = i;
        if relaent != RELA_SIZE {
            return Err(ElfError::BadHeader {
                field: "DT_RELAENT",
                value: relaent,
            });
        }
        if !have_strtab {
            return Err(ElfError::MissingTag("DT_STRTAB"));
        }
        if !have_symtab {
            return Err(ElfError::MissingTag("DT_SYMTAB"));
        }
        if let Some(h) = hash {
            d.nsyms = Some(u64::from(img.read::<u32>(h + 4)?));
        }
        if !d.rela.1.is_multiple_of(RELA_SIZE) {
            return Err(ElfError::BadHeader {
                field: "DT_RELASZ",
                value: d.rela.1,
            });
        }
        if !d.jmprel.1.is_multiple_of(RELA_SIZE) {
            return Err(ElfError::BadHeader {
                field: "DT_PLTRELSZ",
                value: d.jmprel.1,
            });
        }
        Ok(d)
    }

    /// The `index`-th needed library's name (`DT_NEEDED` in order), or
    /// `None` after the last.
    pub fn needed<'a>(&self, img: &'a Image, index: usize) -> Result<Option<&'a CStr>, ElfError> {
        let mut seen = 0;
        for i in 0..self.count {
            let tag = img.read::<i64>(self.at + i * DYN_SIZE)?;
            if tag == DT_NEEDED {
                if seen == index {
                    let val = img.read::<u64>(self.at + i * DYN_SIZE + 8)?;
                    return self.string(img, val).map(Some);
                }
                seen += 1;
            }
        }
        Ok(None)
    }

    /// The string at `offset` in the dynamic string table.
    pub fn string<'a>(&self, img: &'a Image, offset: u64) -> Result<&'a CStr, ElfError> {
        if self.strsz != 0 && offset >= self.strsz {
            return Err(ElfError::OutOfBounds {
                offset: self.strtab + offset,
                len: 1,
            });
        }
        img.cstr(self.strtab + offset)
    }

    /// The number of relocations (RELA table and PLT table together).
    pub fn relocation_count(&self) -> u64 {
        self.rela.1 / RELA_SIZE + self.jmprel.1 / RELA_SIZE
    }

    /// The `index`-th relocation: first the RELA table, then the PLT table.
    pub fn relocation(&self, img: &Image, index: u64) -> Result<Rela, ElfError> {
        let in_rela = self.rela.1 / RELA_SIZE;
        let at = if index < in_rela {
            self.rela.0 + index * RELA_SIZE
        } else {
            self.jmprel.0 + (index - in_rela) * RELA_SIZE
        };
        let info = img.read::<u64>(at + 8)?;
        Ok(Rela {
            offset: img.read::<u64>(at)?,
            kind: info as u32,
            sym: (info >> 32) as u32,
            addend: img.read::<i64>(at + 16)?,
        })
    }

    /// The dynamic symbol at `index`.
    pub fn symbol(&self, img: &Image, index: u32) -> Result<Symbol, ElfError> {
        if self.nsyms.is_some_and(|n| u64::from(index) >= n) {
            return Err(ElfError::BadSymbolIndex(index));
        }
        let at = self.symtab + u64::from(index) * SYM_SIZE;
        Ok(Symbol {
            index,
            name: img.read::<u32>(at)?,
            info: img.read::<u8>(at + 4)?,
            shndx: img.read::<u16>(at + 6)?,
            value: img.read::<u64>(at + 8)?,
            size: img.read::<u64>(at + 16)?,
        })
    }

    /// The name of `sym`.
    pub fn symbol_name<'a>(&self, img: &'a Image, sym: &Symbol) -> Result<&'a CStr, ElfError> {
        self.string(img, u64::from(sym.name))
    }

    /// The library and version the undefined symbol `index` is needed from,
    /// when the image has version tables and the symbol is versioned.
    pub fn needed_version<'a>(
        &self,
        img: &'a Image,
        index: u32,
    ) -> Result<Option<NeededVersion<'a>>, ElfError> {
        let (Some(versym), Some((verneed, count))) = (self.versym, self.verneed) else {
            return Ok(None);
        };
        let ver = img.read::<u16>(versym + 2 * u64::from(index))? & 0x7FFF;
        if ver < 2 {
            return Ok(None);
        }
        let mut vn = verneed;
        for _ in 0..count {
            let cnt = img.read::<u16>(vn + 2)?;
            let file = img.read::<u32>(vn + 4)?;
            let aux = img.read::<u32>(vn + 8)?;
            let next = img.read::<u32>(vn + 12)?;
            let mut va = vn + u64::from(aux);
            for _ in 0..cnt {
                let other = img.read::<u16>(va + 6)?;
                let name = img.read::<u32>(va + 8)?;
                let vnext = img.read::<u32>(va + 12)?;
                if other & 0x7FFF == ver {
                    return Ok(Some(NeededVersion {
                        file: self.string(img, u64::from(file))?,
                        name: self.string(img, u64::from(name))?,
                    }));
                }
                if vnext == 0 {
                    break;
                }
                va += u64::from(vnext);
            }
            if next == 0 {
                break;
            }
            vn += u64::from(next);
        }
        Ok(None)
    }
}

/// A payload file laid out in memory as the loader lays it out: each
/// loadable segment's file bytes copied to its virtual address, the rest
/// zero. Host side only (tools and tests).
pub struct LoadedFile {
    buf: Vec<u64>,
    /// The headers and segments.
    pub layout: Layout,
}

impl LoadedFile {
    /// Lays out `file`.
    pub fn new(file: &[u8]) -> Result<LoadedFile, ElfError> {
        let layout = Layout::parse(file)?;
        let extent = layout.extent();
        if extent > 1 << 32 {
            return Err(ElfError::BadHeader {
                field: "p_vaddr + p_memsz",
                value: extent,
            });
        }
        let mut buf = vec![0u64; (extent as usize).div_ceil(8)];
        {
            // SAFETY: viewing an initialised `u64` buffer as bytes; the
            // length covers exactly the buffer.
            let bytes = unsafe {
                core::slice::from_raw_parts_mut(buf.as_mut_ptr() as *mut u8, buf.len() * 8)
            };
            for s in layout.loads() {
                let src = file
                    .get(s.offset as usize..(s.offset + s.filesz) as usize)
                    .ok_or(ElfError::OutOfBounds {
                        offset: s.offset,
                        len: s.filesz,
                    })?;
                bytes[s.vaddr as usize..(s.vaddr + s.filesz) as usize].copy_from_slice(src);
            }
        }
        Ok(LoadedFile { buf, layout })
    }

    /// The laid-out image. Writes through it (the linker's) change this
    /// buffer only.
    pub fn image(&mut self) -> Image {
        // SAFETY: the buffer is owned by `self`, readable and writable, and
        // the returned image must not outlive `self` (the caller holds the
        // mutable borrow while it links).
        unsafe { Image::new(self.buf.as_mut_ptr() as *mut u8, self.buf.len() * 8) }
    }

    /// Reads a u64 at `offset` of the laid-out image.
    pub fn u64_at(&self, offset: u64) -> Option<u64> {
        if offset.is_multiple_of(8) {
            self.buf.get((offset / 8) as usize).copied()
        } else {
            None
        }
    }
}

/// One section header (host-side checks of the payload file).
#[derive(Debug, Clone)]
pub struct Section {
    /// Its name.
    pub name: String,
    /// `sh_type`.
    pub kind: u32,
    /// `sh_addr`.
    pub addr: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size`.
    pub size: u64,
}

/// The section headers of `file` (the loader finds relocations through them).
pub fn sections(file: &[u8], layout: &Layout) -> Result<Vec<Section>, ElfError> {
    let shent = usize::from(layout.shentsize);
    if layout.shnum == 0 {
        return Ok(Vec::new());
    }
    if shent != 64 {
        return Err(ElfError::BadHeader {
            field: "e_shentsize",
            value: shent as u64,
        });
    }
    let sh = |i: usize| -> Result<&[u8], ElfError> {
        let at = layout.shoff as usize + i * shent;
        file.get(at..at + shent).ok_or(ElfError::OutOfBounds {
            offset: at as u64,
            len: 64,
        })
    };
    let strtab = sh(usize::from(layout.shstrndx))?;
    let str_off = u64::from_le_slice(&strtab[24..32]) as usize;
    let mut out = Vec::new();
    for i in 0..usize::from(layout.shnum) {
        let h = sh(i)?;
        let name_off = str_off + u32::from_le_slice(&h[0..4]) as usize;
        let name = file
            .get(name_off..)
            .and_then(|s| CStr::from_bytes_until_nul(s).ok())
            .ok_or(ElfError::UnterminatedString {
                offset: name_off as u64,
            })?;
        out.push(Section {
            name: name.to_string_lossy().into_owned(),
            kind: u32::from_le_slice(&h[4..8]),
            addr: u64::from_le_slice(&h[16..24]),
            offset: u64::from_le_slice(&h[24..32]),
            size: u64::from_le_slice(&h[32..40]),
        });
    }
    Ok(out)
}

/// The value of the static symbol `name` (from `.symtab`), if the file has
/// a symbol table and the symbol (host-side checks of the payload file).
pub fn static_symbol(file: &[u8], sections: &[Section], name: &str) -> Option<u64> {
    let symtab = sections.iter().find(|s| s.name == ".symtab")?;
    let strtab = sections.iter().find(|s| s.name == ".strtab")?;
    let syms = file.get(symtab.offset as usize..(symtab.offset + symtab.size) as usize)?;
    let strs = file.get(strtab.offset as usize..(strtab.offset + strtab.size) as usize)?;
    syms.chunks_exact(SYM_SIZE as usize).find_map(|e| {
        let off = u32::from_le_slice(&e[0..4]) as usize;
        let n = CStr::from_bytes_until_nul(strs.get(off..)?).ok()?;
        (n.to_bytes() == name.as_bytes()).then(|| u64::from_le_slice(&e[8..16]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_elf_and_short_input() {
        assert_eq!(
            Layout::parse(b"not an elf file at all").unwrap_err(),
            ElfError::NotElf64X86
        );
        assert!(matches!(
            Layout::parse(b"\x7fELF"),
            Err(ElfError::OutOfBounds { .. })
        ));
    }

    #[test]
    fn image_bounds() {
        let mut buf = [0u8; 16];
        buf[8..16].copy_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
        buf[0] = b'h';
        buf[1] = b'i';
        // SAFETY: `buf` outlives the image and is writable.
        let img = unsafe { Image::new(buf.as_mut_ptr(), buf.len()) };
        assert_eq!(img.read::<u64>(8).unwrap(), 0x1122_3344_5566_7788);
        assert_eq!(
            img.read::<u64>(9),
            Err(ElfError::OutOfBounds { offset: 9, len: 8 })
        );
        assert_eq!(
            img.read::<u64>(u64::MAX - 2),
            Err(ElfError::OutOfBounds {
                offset: u64::MAX - 2,
                len: 8
            })
        );
        assert_eq!(img.cstr(0).unwrap().to_bytes(), b"hi");
        img.write_u64(0, 0x4141_4141_4141_4141).unwrap();
        assert_eq!(img.cstr(0), Err(ElfError::UnterminatedString { offset: 0 }));
        assert!(img.write_u64(12, 1).is_err());
    }
}
