//! The payload's own dynamic linker: applies every relocation of the image
//! and resolves every import in the module it comes from.
//!
//! The public loader applies `R_X86_64_RELATIVE` only (FACTS.md); this does
//! all four kinds the payload may contain:
//!
//! | type | value written |
//! |---|---|
//! | `R_X86_64_RELATIVE` (8) | base + addend (again: the loader's write is idempotent) |
//! | `R_X86_64_GLOB_DAT` (6), `R_X86_64_JUMP_SLOT` (7) | the symbol's address |
//! | `R_X86_64_64` (1) | the symbol's address + addend |
//!
//! An imported symbol's module is the library its GNU version entry names
//! (every stub library of `ps5/sysmap.txt` versions its symbols, so every
//! import records its module); an unversioned import is looked up in every
//! needed module in order. A symbol missing from its module is looked up
//! in the two system modules (libkernel, libSceLibcInternal) before it
//! counts as unresolved: the symbol map's module is then wrong, which is
//! reported. A weak import that resolves nowhere is written as 0.
//!
//! Nothing here allocates or calls a library function: it runs before the
//! allocator and libc are linked. The [`SymbolSource`] does the console
//! calls; the host tests supply a fake one and link the real payload.

use crate::elf::{Dynamic, ElfError, Image, Layout, Rela};
use crate::modules;
use core::ffi::CStr;
use core::fmt;

/// `R_X86_64_NONE`.
pub const R_X86_64_NONE: u32 = 0;
/// `R_X86_64_64`: S + A.
pub const R_X86_64_64: u32 = 1;
/// `R_X86_64_COPY`: never produced by the target (code is PIC).
pub const R_X86_64_COPY: u32 = 5;
/// `R_X86_64_GLOB_DAT`: S.
pub const R_X86_64_GLOB_DAT: u32 = 6;
/// `R_X86_64_JUMP_SLOT`: S.
pub const R_X86_64_JUMP_SLOT: u32 = 7;
/// `R_X86_64_RELATIVE`: B + A.
pub const R_X86_64_RELATIVE: u32 = 8;

/// The relocation types the payload may contain.
pub const SUPPORTED_RELOCATIONS: [u32; 4] = [
    R_X86_64_RELATIVE,
    R_X86_64_JUMP_SLOT,
    R_X86_64_GLOB_DAT,
    R_X86_64_64,
];

/// The name of a relocation type, for messages.
pub fn relocation_name(kind: u32) -> &'static str {
    match kind {
        R_X86_64_NONE => "R_X86_64_NONE",
        R_X86_64_64 => "R_X86_64_64",
        2 => "R_X86_64_PC32",
        R_X86_64_COPY => "R_X86_64_COPY",
        R_X86_64_GLOB_DAT => "R_X86_64_GLOB_DAT",
        R_X86_64_JUMP_SLOT => "R_X86_64_JUMP_SLOT",
        R_X86_64_RELATIVE => "R_X86_64_RELATIVE",
        16 => "R_X86_64_DTPMOD64",
        17 => "R_X86_64_DTPOFF64",
        18 => "R_X86_64_TPOFF64",
        37 => "R_X86_64_IRELATIVE",
        _ => "an unknown relocation type",
    }
}

/// The most `DT_NEEDED` modules an image may have.
pub const MAX_MODULES: usize = 32;

/// A module handle, as `sys_dynlib_dlsym` takes it.
pub type Handle = i32;

/// Where the linker gets module handles and symbol addresses. On the console
/// this is the loader's `sys_dynlib_dlsym` and the module functions; in the
/// host tests a table.
pub trait SymbolSource {
    /// Returns a handle to `soname` (one of [`modules::MODULES`]), loading it
    /// first if needed, or the console's error code.
    fn open(&mut self, module: &modules::ModuleSpec) -> Result<Handle, i32>;
    /// The address of `name` in the module `handle`, if it exports it.
    fn lookup(&mut self, handle: Handle, name: &CStr) -> Option<u64>;
    /// Told of what the linker does (for the log); defaults to nothing.
    fn event(&mut self, _event: LinkEvent<'_>) {}
}

/// What happened while linking (see [`SymbolSource::event`]).
#[derive(Debug, Clone, Copy)]
pub enum LinkEvent<'a> {
    /// A needed module was opened.
    Opened {
        /// Its name.
        module: &'a CStr,
        /// Its handle.
        handle: Handle,
    },
    /// A symbol was not in the module the payload names, but in `found_in`.
    ElsewhereThanDeclared {
        /// The symbol.
        name: &'a CStr,
        /// The module the payload says.
        declared: &'a CStr,
        /// Where it was found.
        found_in: &'a CStr,
    },
    /// A symbol resolved nowhere.
    Unresolved {
        /// The symbol.
        name: &'a CStr,
        /// The module the payload says, if the import is versioned.
        declared: Option<&'a CStr>,
        /// Whether it is weak (then it is written as 0 and linking goes on).
        weak: bool,
    },
}

/// Why linking failed.
#[derive(Debug, Clone, Copy)]
pub enum LinkError<'a> {
    /// The image is malformed.
    Elf(ElfError),
    /// `DT_NEEDED` names a module the payload may not import from.
    UnknownModule(&'a CStr),
    /// A module could not be opened (the console's error code).
    ModuleNotOpened {
        /// The module.
        module: &'a CStr,
        /// The error code.
        code: i32,
    },
    /// Too many `DT_NEEDED` entries.
    TooManyModules,
    /// A relocation of a type the target never produces.
    Unsupported {
        /// Its type.
        kind: u32,
        /// Where it applies.
        offset: u64,
    },
    /// A relocation that writes outside the writable segments.
    NotWritable {
        /// Where it applies.
        offset: u64,
    },
    /// A symbolic relocation without a symbol.
    NoSymbol {
        /// Where it applies.
        offset: u64,
    },
    /// Non-weak imports did not resolve: `count` of them, the first `first`.
    Unresolved {
        /// The first unresolved symbol.
        first: &'a CStr,
        /// How many did not resolve.
        count: u32,
    },
}

impl From<ElfError> for LinkError<'_> {
    fn from(e: ElfError) -> Self {
        LinkError::Elf(e)
    }
}

impl fmt::Display for LinkError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LinkError::Elf(e) => write!(f, "malformed payload: {e}"),
            LinkError::UnknownModule(m) => write!(
                f,
                "the payload needs {m:?}, which is not in ps5::modules::MODULES (add how to load it)"
            ),
            LinkError::ModuleNotOpened { module, code } => {
                write!(f, "could not open module {module:?}: error {code:#010x}")
            }
            LinkError::TooManyModules => write!(f, "more than {MAX_MODULES} DT_NEEDED modules"),
            LinkError::Unsupported { kind, offset } => write!(
                f,
                "relocation type {kind} ({}) at offset {offset:#x} is not supported",
                relocation_name(kind)
            ),
            LinkError::NotWritable { offset } => {
                write!(
                    f,
                    "relocation at offset {offset:#x} is outside the writable segment"
                )
            }
            LinkError::NoSymbol { offset } => {
                write!(f, "symbolic relocation at offset {offset:#x} has no symbol")
            }
            LinkError::Unresolved { first, count } => {
                write!(f, "{count} import(s) did not resolve, the first {first:?}")
            }
        }
    }
}

/// What linking did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// `R_X86_64_RELATIVE` relocations applied.
    pub relative: u32,
    /// Relocations against symbols defined in the image.
    pub local: u32,
    /// Relocations against imported symbols.
    pub imported: u32,
    /// Weak imports that resolved nowhere (written as 0).
    pub weak_unresolved: u32,
    /// Modules opened.
    pub modules: u32,
}

struct Opened<'a> {
    soname: &'a CStr,
    handle: Handle,
}

/// Links `img` (laid out by `layout`, its dynamic section `dynamic`).
pub fn link<'a>(
    img: &'a Image,
    layout: &Layout,
    dynamic: &Dynamic,
    source: &mut impl SymbolSource,
) -> Result<LinkStats, LinkError<'a>> {
    let mut stats = LinkStats::default();
    let mut opened: [Option<Opened<'a>>; MAX_MODULES] = [const { None }; MAX_MODULES];

    // Open every needed module first, so a missing one fails before any write.
    let mut count = 0;
    while let Some(soname) = dynamic.needed(img, count)? {
        if count == MAX_MODULES {
            return Err(LinkError::TooManyModules);
        }
        let spec = modules::spec(soname.to_bytes()).ok_or(LinkError::UnknownModule(soname))?;
        let handle = source
            .open(spec)
            .map_err(|code| LinkError::ModuleNotOpened {
                module: soname,
                code,
            })?;
        source.event(LinkEvent::Opened {
            module: soname,
            handle,
        });
        opened[count] = Some(Opened { soname, handle });
        count += 1;
    }
    stats.modules = count as u32;
    let opened = &opened[..count];

    let mut unresolved: Option<&'a CStr> = None;
    let mut unresolved_count = 0u32;
    for i in 0..dynamic.relocation_count() {
        let r = dynamic.relocation(img, i)?;
        let value = match r.kind {
            R_X86_64_NONE => continue,
            R_X86_64_RELATIVE => {
                stats.relative += 1;
                img.base().wrapping_add(r.addend as u64)
            }
            R_X86_64_64 | R_X86_64_GLOB_DAT | R_X86_64_JUMP_SLOT => {
                let addend = if r.kind == R_X86_64_64 {
                    r.addend as u64
                } else {
                    0
                };
                match symbol_address(img, dynamic, &r, opened, source)? {
                    SymbolValue::Local(a) => {
                        stats.local += 1;
                        a.wrapping_add(addend)
                    }
                    SymbolValue::Imported(a) => {
                        stats.imported += 1;
                        a.wrapping_add(addend)
                    }
                    SymbolValue::WeakMissing => {
                        stats.weak_unresolved += 1;
                        0
                    }
                    SymbolValue::Missing(name) => {
                        unresolved.get_or_insert(name);
                        unresolved_count += 1;
                        continue;
                    }
                }
            }
            kind => {
                return Err(LinkError::Unsupported {
                    kind,
                    offset: r.offset,
                });
            }
        };
        if !layout.is_writable(r.offset, 8) {
            return Err(LinkError::NotWritable { offset: r.offset });
        }
        img.write_u64(r.offset, value)?;
    }
    match unresolved {
        Some(first) => Err(LinkError::Unresolved {
            first,
            count: unresolved_count,
        }),
        None => Ok(stats),
    }
}

enum SymbolValue<'a> {
    Local(u64),
    Imported(u64),
    WeakMissing,
    Missing(&'a CStr),
}

fn symbol_address<'a>(
    img: &'a Image,
    dynamic: &Dynamic,
    r: &Rela,
    opened: &[Option<Opened<'a>>],
    source: &mut impl SymbolSource,
) -> Result<SymbolValue<'a>, LinkError<'a>> {
    if r.sym == 0 {
        return Err(LinkError::NoSymbol { offset: r.offset });
    }
    let sym = dynamic.symbol(img, r.sym)?;
    if sym.is_defined() {
        return Ok(SymbolValue::Local(img.base().wrapping_add(sym.value)));
    }
    let name = dynamic.symbol_name(img, &sym)?;
    let declared = dynamic.needed_version(img, r.sym)?.map(|v| v.file);
    let modules = opened.iter().flatten();
    // 1. The declared module (or every module, for an unversioned import).
    for m in modules.clone() {
        if declared.is_none_or(|d| d == m.soname)
            && let Some(a) = source.lookup(m.handle, name)
        {
            return Ok(SymbolValue::Imported(a));
        }
    }
    // 2. The system modules, when the declared module did not have it.
    if let Some(declared) = declared {
        for m in modules {
            if m.soname != declared
                && modules::is_system(m.soname.to_bytes())
                && let Some(a) = source.lookup(m.handle, name)
            {
                source.event(LinkEvent::ElsewhereThanDeclared {
                    name,
                    declared,
                    found_in: m.soname,
                });
                return Ok(SymbolValue::Imported(a));
            }
        }
    }
    source.event(LinkEvent::Unresolved {
        name,
        declared,
        weak: sym.is_weak(),
    });
    Ok(if sym.is_weak() {
        SymbolValue::WeakMissing
    } else {
        SymbolValue::Missing(name)
    })
}

/// The init functions of the image, in the order to run them (`DT_INIT_ARRAY`).
/// Entries that are 0 or -1 (unused markers) are skipped.
pub fn init_functions<'a>(
    img: &'a Image,
    dynamic: &Dynamic,
) -> impl Iterator<Item = Result<u64, ElfError>> + 'a {
    array_entries(img, dynamic.init_array, false)
}

/// The fini functions of the image, in the order to run them (reverse of
/// `DT_FINI_ARRAY`).
pub fn fini_functions<'a>(
    img: &'a Image,
    dynamic: &Dynamic,
) -> impl Iterator<Item = Result<u64, ElfError>> + 'a {
    array_entries(img, dynamic.fini_array, true)
}

fn array_entries(
    img: &Image,
    (at, size): (u64, u64),
    reverse: bool,
) -> impl Iterator<Item = Result<u64, ElfError>> + '_ {
    let n = size / 8;
    (0..n)
        .map(move |i| if reverse { n - 1 - i } else { i })
        .map(move |i| img.read::<u64>(at + i * 8))
        .filter(|v| !matches!(v, Ok(0) | Ok(u64::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::{
        DT_HASH, DT_JMPREL, DT_PLTRELSZ, DT_RELAENT, DT_STRSZ, DT_SYMENT, DT_VERNEED, DT_VERNEEDNUM,
    };
    use crate::elf::{DT_NEEDED, DT_NULL, DT_RELA, DT_RELASZ, DT_STRTAB, DT_SYMTAB, DT_VERSYM};
    use crate::elf::{PF_R, PF_W, PT_DYNAMIC, PT_LOAD, STB_GLOBAL, STB_WEAK, STT_FUNC};

    /// A hand-made image: R segment 0..0x1000 (headers, tables), RW segment
    /// 0x1000..0x2000 (dynamic section at 0x1000, slots at 0x1100).
    struct Synth {
        buf: Vec<u64>,
    }

    const STR: &[u8] = b"\0libkernel.sprx\0libSceVideoOut.sprx\0write\0sceVideoOutOpen\0weakthing\0local\0libkernel\0libSceVideoOut\0";

    fn str_off(s: &str) -> u64 {
        let needle: Vec<u8> = [b"\0", s.as_bytes(), b"\0"].concat();
        (STR.windows(needle.len()).position(|w| w == needle).unwrap() + 1) as u64
    }

    impl Synth {
        fn bytes(&mut self) -> &mut [u8] {
            // SAFETY: viewing the owned u64 buffer as bytes.
            unsafe {
                core::slice::from_raw_parts_mut(
                    self.buf.as_mut_ptr() as *mut u8,
                    self.buf.len() * 8,
                )
            }
        }
        fn put(&mut self, at: u64, data: &[u8]) {
            self.bytes()[at as usize..at as usize + data.len()].copy_from_slice(data);
        }
        fn put64(&mut self, at: u64, v: u64) {
            self.put(at, &v.to_le_bytes());
        }
        fn new(relas: &[(u64, u32, u32, i64)], needed: &[&str]) -> Synth {
            let mut s = Synth {
                buf: vec![0; 0x2000 / 8],
            };
            // ELF header.
            let mut eh = [0u8; 64];
            eh[..4].copy_from_slice(b"\x7fELF");
            eh[4] = 2;
            eh[5] = 1;
            eh[16..18].copy_from_slice(&3u16.to_le_bytes());
            eh[18..20].copy_from_slice(&62u16.to_le_bytes());
            eh[32..40].copy_from_slice(&64u64.to_le_bytes());
            eh[54..56].copy_from_slice(&56u16.to_le_bytes());
            eh[56..58].copy_from_slice(&3u16.to_le_bytes());
            s.put(0, &eh);
            let ph = |kind: u32, flags: u32, vaddr: u64, size: u64| {
                let mut p = [0u8; 56];
                p[0..4].copy_from_slice(&kind.to_le_bytes());
                p[4..8].copy_from_slice(&flags.to_le_bytes());
                p[8..16].copy_from_slice(&vaddr.to_le_bytes());
                p[16..24].copy_from_slice(&vaddr.to_le_bytes());
                p[32..40].copy_from_slice(&size.to_le_bytes());
                p[40..48].copy_from_slice(&size.to_le_bytes());
                p
            };
            s.put(64, &ph(PT_LOAD, PF_R, 0, 0x1000));
            s.put(120, &ph(PT_LOAD, PF_R | PF_W, 0x1000, 0x1000));
            s.put(176, &ph(PT_DYNAMIC, PF_R | PF_W, 0x1000, 0x100));
            s.put(0x200, STR);
            // Symbols: 1 write, 2 sceVideoOutOpen, 3 weakthing (weak), 4 local (defined).
            let sym = |name: &str, bind: u8, shndx: u16, value: u64| {
                let mut e = [0u8; 24];
                e[0..4].copy_from_slice(&(str_off(name) as u32).to_le_bytes());
                e[4] = (bind << 4) | STT_FUNC;
                e[6..8].copy_from_slice(&shndx.to_le_bytes());
                e[8..16].copy_from_slice(&value.to_le_bytes());
                e
            };
            s.put(0x300 + 24, &sym("write", STB_GLOBAL, 0, 0));
            s.put(0x300 + 48, &sym("sceVideoOutOpen", STB_GLOBAL, 0, 0));
            s.put(0x300 + 72, &sym("weakthing", STB_WEAK, 0, 0));
            s.put(0x300 + 96, &sym("local", STB_GLOBAL, 5, 0x1800));
            for (i, &(off, kind, sym, addend)) in relas.iter().enumerate() {
                let at = 0x400 + 24 * i as u64;
                s.put64(at, off);
                s.put64(at + 8, (u64::from(sym) << 32) | u64::from(kind));
                s.put64(at + 16, addend as u64);
            }
            // Versions: write@libkernel (2), sceVideoOutOpen@libSceVideoOut (3).
            for (i, v) in [0u16, 2, 3, 1, 1].iter().enumerate() {
                s.put(0x600 + 2 * i as u64, &v.to_le_bytes());
            }
            let verneed =
                |s: &mut Synth, at: u64, file: &str, other: u16, name: &str, next: u32| {
                    s.put(at, &1u16.to_le_bytes());
                    s.put(at + 2, &1u16.to_le_bytes());
                    s.put(at + 4, &(str_off(file) as u32).to_le_bytes());
                    s.put(at + 8, &16u32.to_le_bytes());
                    s.put(at + 12, &next.to_le_bytes());
                    s.put(at + 16 + 6, &other.to_le_bytes());
                    s.put(at + 16 + 8, &(str_off(name) as u32).to_le_bytes());
                };
            verneed(&mut s, 0x680, "libkernel.sprx", 2, "libkernel", 32);
            verneed(&mut s, 0x6a0, "libSceVideoOut.sprx", 3, "libSceVideoOut", 0);
            s.put(0x700, &1u32.to_le_bytes());
            s.put(0x704, &5u32.to_le_bytes());
            let mut dynamic: Vec<(i64, u64)> =
                needed.iter().map(|n| (DT_NEEDED, str_off(n))).collect();
            dynamic.extend([
                (DT_STRTAB, 0x200),
                (DT_STRSZ, STR.len() as u64),
                (DT_SYMTAB, 0x300),
                (DT_SYMENT, 24),
                (DT_HASH, 0x700),
                (DT_RELA, 0x400),
                (DT_RELASZ, 24 * relas.len() as u64),
                (DT_RELAENT, 24),
                (DT_JMPREL, 0x400),
                (DT_PLTRELSZ, 0),
                (DT_VERSYM, 0x600),
                (DT_VERNEED, 0x680),
                (DT_VERNEEDNUM, 2),
                (DT_NULL, 0),
            ]);
            for (i, (tag, val)) in dynamic.iter().enumerate() {
                s.put64(0x1000 + 16 * i as u64, *tag as u64);
                s.put64(0x1008 + 16 * i as u64, *val);
            }
            s
        }
        fn parts(&mut self) -> (Image, Layout, Dynamic) {
            let layout = Layout::parse(&self.bytes()[..0x200]).unwrap();
            // SAFETY: the buffer outlives the image in every test.
            let img = unsafe { Image::new(self.buf.as_mut_ptr() as *mut u8, 0x2000) };
            let d = Dynamic::parse(&img, 0x1000, 0x100).unwrap();
            (img, layout, d)
        }
        fn slot(&self, at: u64) -> u64 {
            self.buf[at as usize / 8]
        }
    }

    /// Handles: libkernel 1, libSceVideoOut 0x40; exports per handle.
    #[derive(Default)]
    struct Fake {
        exports: Vec<(Handle, &'static str, u64)>,
        events: Vec<String>,
        refuse: Option<&'static str>,
    }

    impl SymbolSource for Fake {
        fn open(&mut self, m: &modules::ModuleSpec) -> Result<Handle, i32> {
            if self.refuse == Some(m.soname) {
                return Err(-5);
            }
            Ok(if m.soname == "libkernel.sprx" {
                1
            } else {
                0x40
            })
        }
        fn lookup(&mut self, handle: Handle, name: &CStr) -> Option<u64> {
            self.exports
                .iter()
                .find(|(h, n, _)| *h == handle && n.as_bytes() == name.to_bytes())
                .map(|e| e.2)
        }
        fn event(&mut self, e: LinkEvent<'_>) {
            self.events.push(format!("{e:?}"));
        }
    }

    const NEEDED: [&str; 2] = ["libkernel.sprx", "libSceVideoOut.sprx"];

    fn full_exports() -> Fake {
        Fake {
            exports: vec![
                (1, "write", 0xAAAA_0000),
                (0x40, "sceVideoOutOpen", 0xBBBB_0000),
            ],
            ..Fake::default()
        }
    }

    #[test]
    fn applies_every_kind() {
        let mut s = Synth::new(
            &[
                (0x1100, R_X86_64_RELATIVE, 0, 0x1234),
                (0x1108, R_X86_64_GLOB_DAT, 1, 0x55),
                (0x1110, R_X86_64_JUMP_SLOT, 2, 0x66),
                (0x1118, R_X86_64_64, 4, 8),
                (0x1120, R_X86_64_64, 1, 16),
                (0x1128, R_X86_64_GLOB_DAT, 3, 0),
                (0x1130, R_X86_64_NONE, 0, 0),
            ],
            &NEEDED,
        );
        let mut fake = full_exports();
        let (img, layout, d) = s.parts();
        let base = img.base();
        let stats = link(&img, &layout, &d, &mut fake).unwrap();
        assert_eq!(
            stats,
            LinkStats {
                relative: 1,
                local: 1,
                imported: 3,
                weak_unresolved: 1,
                modules: 2
            }
        );
        assert_eq!(s.slot(0x1100), base + 0x1234);
        assert_eq!(s.slot(0x1108), 0xAAAA_0000, "GLOB_DAT ignores the addend");
        assert_eq!(s.slot(0x1110), 0xBBBB_0000);
        assert_eq!(
            s.slot(0x1118),
            base + 0x1800 + 8,
            "R_X86_64_64 against a local symbol"
        );
        assert_eq!(
            s.slot(0x1120),
            0xAAAA_0000 + 16,
            "R_X86_64_64 adds the addend"
        );
        assert_eq!(s.slot(0x1128), 0, "an unresolved weak import is 0");
        assert!(
            fake.events
                .iter()
                .any(|e| e.contains("weakthing") && e.contains("weak: true"))
        );
    }

    #[test]
    fn looks_in_the_declared_module_only_then_the_system_ones() {
        // `sceVideoOutOpen` exported by libkernel only: found there (libkernel is
        // a system module) with an event; `write` exported by libSceVideoOut
        // only: not found (libSceVideoOut is not a fallback).
        let mut s = Synth::new(
            &[
                (0x1108, R_X86_64_GLOB_DAT, 1, 0),
                (0x1110, R_X86_64_JUMP_SLOT, 2, 0),
            ],
            &NEEDED,
        );
        let mut fake = Fake {
            exports: vec![
                (0x40, "write", 0xAAAA_0000),
                (1, "sceVideoOutOpen", 0xBBBB_0000),
            ],
            ..Fake::default()
        };
        let (img, layout, d) = s.parts();
        match link(&img, &layout, &d, &mut fake) {
            Err(LinkError::Unresolved { first, count }) => {
                assert_eq!(first.to_bytes(), b"write");
                assert_eq!(count, 1);
            }
            other => panic!("expected Unresolved, got {other:?}"),
        }
        assert!(
            fake.events
                .iter()
                .any(|e| e.contains("ElsewhereThanDeclared") && e.contains("sceVideoOutOpen"))
        );
    }

    #[test]
    fn counts_every_unresolved_import() {
        let mut s = Synth::new(
            &[
                (0x1108, R_X86_64_GLOB_DAT, 1, 0),
                (0x1110, R_X86_64_JUMP_SLOT, 2, 0),
            ],
            &NEEDED,
        );
        let mut fake = Fake::default();
        let (img, layout, d) = s.parts();
        let e = link(&img, &layout, &d, &mut fake).unwrap_err();
        assert!(matches!(e, LinkError::Unresolved { count: 2, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "2 import(s) did not resolve, the first \"write\""
        );
    }

    #[test]
    fn rejects_what_the_target_never_produces() {
        for (rela, want) in [
            ((0x1100, 18, 1, 0), "R_X86_64_TPOFF64"),
            ((0x1100, R_X86_64_COPY, 1, 0), "R_X86_64_COPY"),
            ((0x1100, 37, 0, 0), "R_X86_64_IRELATIVE"),
        ] {
            let mut s = Synth::new(&[rela], &NEEDED);
            let (img, layout, d) = s.parts();
            let e = link(&img, &layout, &d, &mut full_exports()).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
            assert!(e.to_string().contains("0x1100"), "{e}");
        }
        // A write into the read-only segment.
        let mut s = Synth::new(&[(0x0800, R_X86_64_RELATIVE, 0, 1)], &NEEDED);
        let (img, layout, d) = s.parts();
        let e = link(&img, &layout, &d, &mut full_exports()).unwrap_err();
        assert!(
            matches!(e, LinkError::NotWritable { offset: 0x800 }),
            "{e:?}"
        );
        // A symbolic relocation without a symbol.
        let mut s = Synth::new(&[(0x1100, R_X86_64_GLOB_DAT, 0, 0)], &NEEDED);
        let (img, layout, d) = s.parts();
        assert!(matches!(
            link(&img, &layout, &d, &mut full_exports()),
            Err(LinkError::NoSymbol { .. })
        ));
        // A symbol index beyond the table (DT_HASH says 5 symbols).
        let mut s = Synth::new(&[(0x1100, R_X86_64_GLOB_DAT, 9, 0)], &NEEDED);
        let (img, layout, d) = s.parts();
        assert!(matches!(
            link(&img, &layout, &d, &mut full_exports()),
            Err(LinkError::Elf(ElfError::BadSymbolIndex(9)))
        ));
    }

    #[test]
    fn module_errors() {
        let mut s = Synth::new(&[], &["libkernel.sprx", "write"]);
        let (img, layout, d) = s.parts();
        let e = link(&img, &layout, &d, &mut full_exports()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the payload needs \"write\", which is not in ps5::modules::MODULES (add how to load it)"
        );
        let mut s = Synth::new(&[], &NEEDED);
        let (img, layout, d) = s.parts();
        let mut fake = Fake {
            refuse: Some("libSceVideoOut.sprx"),
            ..full_exports()
        };
        let e = link(&img, &layout, &d, &mut fake).unwrap_err();
        assert_eq!(
            e.to_string(),
            "could not open module \"libSceVideoOut.sprx\": error 0xfffffffb"
        );
    }

    #[test]
    fn versions_name_the_module() {
        let mut s = Synth::new(&[], &NEEDED);
        let (img, _, d) = s.parts();
        let v = d.needed_version(&img, 2).unwrap().unwrap();
        assert_eq!(v.file.to_bytes(), b"libSceVideoOut.sprx");
        assert_eq!(v.name.to_bytes(), b"libSceVideoOut");
        assert!(d.needed_version(&img, 3).unwrap().is_none(), "unversioned");
    }
}
