//! Checks of the built PS5 payload: what the public loader accepts, what the
//! start-up code can link, and that its imports match the committed list.
//!
//! `./x test` builds the payload (ps5/build.sh) before it runs `cargo test`;
//! these tests read `<target dir>/ps5/cellport-ps5.elf` (or the file named
//! by `CELLPORT_PS5_PAYLOAD`) and fail, saying how to build it, when it is
//! not there.

use ps5::elf::{self, Dynamic, ET_DYN, LoadedFile, PF_W, PF_X, SHT_RELA};
use ps5::imports;
use ps5::link::{self, Handle, LinkEvent, SUPPORTED_RELOCATIONS, SymbolSource};
use ps5::modules::{self, ModuleSpec};
use ps5::nid::Nid;
use ps5::sysmap::SymbolMap;
use std::ffi::CStr;
use std::path::PathBuf;

fn payload_path() -> PathBuf {
    if let Some(p) = std::env::var_os("CELLPORT_PS5_PAYLOAD") {
        return PathBuf::from(p);
    }
    // This test runs from <target dir>/<profile>/deps/.
    let exe = std::env::current_exe().expect("the test's own path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the target directory")
        .to_path_buf();
    target.join("ps5/cellport-ps5.elf")
}

fn payload() -> Vec<u8> {
    let path = payload_path();
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the PS5 payload {}: {e}\n\
             Build it first: `./x ps5` (`./x test` builds it before the tests), or point\n\
             CELLPORT_PS5_PAYLOAD at a payload.",
            path.display()
        )
    })
}

fn sysmap() -> SymbolMap {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/sysmap.txt");
    SymbolMap::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn loader_accepts_it() {
    let file = payload();
    let layout = elf::Layout::parse(&file).unwrap();
    assert_eq!(
        layout.kind, ET_DYN,
        "the loader maps ET_DYN at a base it chooses"
    );
    assert!(
        !layout.has_interp,
        "no PT_INTERP: nothing but our start-up code links it"
    );
    let sections = elf::sections(&file, &layout).unwrap();
    let start = elf::static_symbol(&file, &sections, "_start").expect("a _start symbol");
    assert_eq!(layout.entry, start, "the entry point is _start");
    // Segments: on 16 KiB pages, W^X, text R+X, rodata R, data RW.
    let flags: Vec<u32> = layout.loads().iter().map(|s| s.flags).collect();
    assert_eq!(flags, [4, 5, 6], "rodata R, text R+X, data RW");
    for s in layout.loads() {
        assert_eq!(
            s.vaddr % 0x4000,
            0,
            "segment at {:#x} not on a 0x4000 page",
            s.vaddr
        );
        assert_eq!(s.vaddr % 0x4000, s.offset % 0x4000);
        assert!(
            s.flags & PF_X == 0 || s.flags & PF_W == 0,
            "a writable and executable segment"
        );
    }
    // The loader applies R_X86_64_RELATIVE through the section headers: every
    // dynamic relocation must be in an SHT_RELA section.
    let dynseg = layout.dynamic.expect("PT_DYNAMIC");
    let mut loaded = LoadedFile::new(&file).unwrap();
    let img = loaded.image();
    let d = Dynamic::parse(&img, dynseg.vaddr, dynseg.memsz).unwrap();
    let rela_sections: Vec<_> = sections.iter().filter(|s| s.kind == SHT_RELA).collect();
    let in_sections: u64 = rela_sections.iter().map(|s| s.size / 24).sum();
    assert_eq!(
        in_sections,
        d.relocation_count(),
        "SHT_RELA sections hold every relocation"
    );
    assert!(!d.textrel, "DT_TEXTREL");
    // Bounds the start-up code uses.
    let bss = sections.iter().find(|s| s.name == ".bss").expect(".bss");
    assert_eq!(
        elf::static_symbol(&file, &sections, "__bss_start"),
        Some(bss.addr)
    );
    assert_eq!(
        elf::static_symbol(&file, &sections, "__bss_end"),
        Some(bss.addr + bss.size)
    );
    for name in [
        "__init_array_start",
        "__init_array_end",
        "__fini_array_start",
        "__fini_array_end",
    ] {
        assert!(
            elf::static_symbol(&file, &sections, name).is_some(),
            "no {name}"
        );
    }
}

#[test]
fn only_supported_relocations_and_no_tls() {
    let file = payload();
    let mut loaded = LoadedFile::new(&file).unwrap();
    let layout = loaded.layout;
    assert!(!layout.has_tls, "PT_TLS: the loader sets up no TLS block");
    let sections = elf::sections(&file, &layout).unwrap();
    for s in &sections {
        assert!(
            !s.name.starts_with(".tdata") && !s.name.starts_with(".tbss"),
            "TLS section {}",
            s.name
        );
    }
    let dynseg = layout.dynamic.unwrap();
    let img = loaded.image();
    let d = Dynamic::parse(&img, dynseg.vaddr, dynseg.memsz).unwrap();
    for i in 0..d.relocation_count() {
        let r = d.relocation(&img, i).unwrap();
        assert!(
            SUPPORTED_RELOCATIONS.contains(&r.kind),
            "relocation {} at {:#x}",
            link::relocation_name(r.kind),
            r.offset
        );
        assert!(
            layout.is_writable(r.offset, 8),
            "relocation at {:#x} outside the RW segment",
            r.offset
        );
        if r.sym != 0 {
            let sym = d.symbol(&img, r.sym).unwrap();
            assert_ne!(sym.kind(), elf::STT_TLS, "a TLS symbol");
            let name = d.symbol_name(&img, &sym).unwrap().to_bytes();
            assert!(
                !name.starts_with(b"__tls_get_addr") && !name.starts_with(b"__emutls"),
                "TLS helper {}",
                String::from_utf8_lossy(name)
            );
        }
    }
}

#[test]
fn needs_only_modules_the_start_up_code_loads() {
    let file = payload();
    let mut loaded = LoadedFile::new(&file).unwrap();
    let dynseg = loaded.layout.dynamic.unwrap();
    let img = loaded.image();
    let d = Dynamic::parse(&img, dynseg.vaddr, dynseg.memsz).unwrap();
    let mut i = 0;
    while let Some(n) = d.needed(&img, i).unwrap() {
        assert!(
            modules::spec(n.to_bytes()).is_some(),
            "DT_NEEDED {n:?} is not in ps5::modules::MODULES"
        );
        i += 1;
    }
    assert!(i >= 2, "libkernel and libSceLibcInternal at least");
}

/// A console made of the symbol map: every module exports what the map
/// lists, at an address made from the module and the name's NID.
struct MapConsole {
    map: SymbolMap,
    events: Vec<String>,
}

fn handle_of(soname: &str) -> Handle {
    0x100
        + modules::MODULES
            .iter()
            .position(|m| m.soname == soname)
            .unwrap() as Handle
}

fn address_of(soname: &str, name: &[u8]) -> u64 {
    let nid = Nid::of(name);
    let h = nid
        .as_str()
        .bytes()
        .fold(0u64, |a, b| a.wrapping_mul(31).wrapping_add(u64::from(b)));
    ((handle_of(soname) as u64) << 32) | (h & 0xFFFF_FFF0)
}

impl SymbolSource for MapConsole {
    fn open(&mut self, m: &ModuleSpec) -> Result<Handle, i32> {
        Ok(handle_of(m.soname))
    }
    fn lookup(&mut self, handle: Handle, name: &CStr) -> Option<u64> {
        let soname = modules::MODULES[(handle - 0x100) as usize].soname;
        let module = self.map.module(soname)?;
        module
            .symbols
            .iter()
            .any(|s| s.name.as_bytes() == name.to_bytes())
            .then(|| address_of(soname, name.to_bytes()))
    }
    fn event(&mut self, e: LinkEvent<'_>) {
        self.events.push(format!("{e:?}"));
    }
}

/// Runs the start-up code's linker on the real payload against the symbol
/// map and checks every slot it writes.
#[test]
fn start_up_code_links_it() {
    let file = payload();
    let mut loaded = LoadedFile::new(&file).unwrap();
    let layout = loaded.layout;
    let dynseg = layout.dynamic.unwrap();
    let mut console = MapConsole {
        map: sysmap(),
        events: Vec::new(),
    };
    let (base, expected) = {
        let img = loaded.image();
        let d = Dynamic::parse(&img, dynseg.vaddr, dynseg.memsz).unwrap();
        let base = img.base();
        // What each relocation must write.
        let mut expected = Vec::new();
        for i in 0..d.relocation_count() {
            let r = d.relocation(&img, i).unwrap();
            let value = if r.kind == link::R_X86_64_RELATIVE {
                base.wrapping_add(r.addend as u64)
            } else {
                let sym = d.symbol(&img, r.sym).unwrap();
                let a = if r.kind == link::R_X86_64_64 {
                    r.addend as u64
                } else {
                    0
                };
                if sym.is_defined() {
                    base + sym.value + a
                } else {
                    let name = d.symbol_name(&img, &sym).unwrap().to_bytes().to_vec();
                    match d.needed_version(&img, r.sym).unwrap() {
                        Some(v) => address_of(v.file.to_str().unwrap(), &name) + a,
                        None => {
                            assert!(
                                sym.is_weak(),
                                "unversioned strong import {:?}",
                                String::from_utf8_lossy(&name)
                            );
                            0
                        }
                    }
                }
            };
            expected.push((r.offset, value));
        }
        let stats = link::link(&img, &layout, &d, &mut console)
            .unwrap_or_else(|e| panic!("the start-up code cannot link the payload: {e}"));
        assert!(stats.imported > 0 && stats.relative > 0, "{stats:?}");
        assert_eq!(stats.modules as usize, {
            let mut n = 0;
            while d.needed(&img, n).unwrap().is_some() {
                n += 1;
            }
            n
        });
        (base, expected)
    };
    assert!(base != 0);
    for (offset, value) in expected {
        assert_eq!(loaded.u64_at(offset), Some(value), "slot {offset:#x}");
    }
    assert!(
        console
            .events
            .iter()
            .all(|e| !e.contains("ElsewhereThanDeclared")),
        "{:?}",
        console.events
    );
}

/// The committed list is what the payload imports.
#[test]
fn imports_match_the_committed_list() {
    let actual = imports::format_list(&imports::imports_of(&payload()).unwrap());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/imports.txt");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let diff = imports::diff_lists(&committed, &actual);
    assert!(
        diff.is_empty(),
        "the payload's imports differ from ps5/imports.txt (+ only in the payload, - only in the list):\n  {}\n\
         If the change is intended, run `./x ps5 imports --update` and commit ps5/imports.txt.",
        diff.join("\n  ")
    );
}

/// Every import comes from a module of the symbol map, under a name the map
/// lists for it (or is the weak Vulkan entry point).
#[test]
fn every_import_is_in_the_symbol_map() {
    let map = sysmap();
    for i in imports::imports_of(&payload()).unwrap() {
        if i.kind == imports::ImportKind::Startup {
            continue;
        }
        if i.kind == imports::ImportKind::Weak {
            assert_eq!(i.name, "vkGetInstanceProcAddr", "unexpected weak import");
            continue;
        }
        let m = map
            .module(&i.module)
            .unwrap_or_else(|| panic!("{} from unknown module {}", i.name, i.module));
        assert!(
            m.symbols
                .iter()
                .any(|s| s.name == i.name && s.version == i.version),
            "{} not in the map's {}",
            i.name,
            i.module
        );
    }
}

/// The start-up code runs before any import is linked, and the compiler may
/// turn its loops into calls to the memory functions: those must be the
/// payload's own (compiler-builtins), never imports.
#[test]
fn memory_functions_are_not_imports() {
    for i in imports::imports_of(&payload()).unwrap() {
        assert!(
            !["memcpy", "memmove", "memset", "memcmp", "bcmp", "strlen"].contains(&i.name.as_str()),
            "{} is imported from {}",
            i.name,
            i.module
        );
    }
}

#[test]
fn it_carries_the_recompiled_demo() {
    let file = payload();
    let find = |needle: &[u8]| file.windows(needle.len()).any(|w| w == needle);
    // The PS3 executable (its segments are loaded from it at run time).
    let elf = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../runtime/demo/guest/demo.elf"
    ))
    .unwrap();
    assert!(
        find(&elf),
        "the payload does not embed runtime/demo/guest/demo.elf"
    );
    // Every lifted function (named p_<guest address> by ppu-lift) is linked in.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../runtime/demo/lifted");
    let mut names = Vec::new();
    for krate in std::fs::read_dir(dir).unwrap().flatten() {
        let lib = krate.path().join("src/lib.rs");
        let Ok(text) = std::fs::read_to_string(&lib) else {
            continue;
        };
        for part in text.split("::p_").skip(1) {
            names.push(format!("p_{}\0", &part[..8]));
        }
    }
    assert!(names.len() > 20, "{} lifted functions found", names.len());
    for n in &names {
        assert!(
            find(n.as_bytes()),
            "lifted function {} is not in the payload",
            n.trim_end_matches('\0')
        );
    }
}
