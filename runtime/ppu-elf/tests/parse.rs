//! The loader against a PS3-format fixture, a real Linux ppc64 executable
//! built by the cross compiler, and malformed files (each refused with the
//! right offset), plus random mutations that must never panic.

mod common;

use std::process::Command;

use guest_mem::{CheckMode, GuestMemory, Prot};
use ppu_elf::{Abi, Descriptor, ElfError, Image, fnid};
use proptest::prelude::*;

fn err(data: Vec<u8>) -> ElfError {
    Image::parse(data).expect_err("must be refused")
}

fn set_u16(d: &mut [u8], off: usize, v: u16) {
    d[off..off + 2].copy_from_slice(&v.to_be_bytes());
}
fn set_u32(d: &mut [u8], off: usize, v: u32) {
    d[off..off + 4].copy_from_slice(&v.to_be_bytes());
}
fn set_u64(d: &mut [u8], off: usize, v: u64) {
    d[off..off + 8].copy_from_slice(&v.to_be_bytes());
}

#[test]
fn fnid_test_vectors() {
    assert_eq!(fnid("sys_process_exit"), 0xE6F2_C1E7);
    assert_eq!(fnid("_sys_printf"), 0x9F04_F7AF);
    assert_eq!(fnid("cellSysutilCheckCallback"), 0x189A_74DA);
}

#[test]
fn ps3_fixture_parses() {
    use common::ps3::*;
    let img = Image::parse(common::ps3_fixture()).unwrap();
    assert_eq!(img.abi, Abi::Lv2);
    assert_eq!(img.entry, OPD);
    assert_eq!(
        img.entry_descriptor(),
        Descriptor {
            addr: OPD,
            code: TEXT,
            toc: TOC
        }
    );
    assert_eq!(
        img.opd(),
        vec![
            Descriptor {
                addr: OPD,
                code: TEXT,
                toc: TOC
            },
            Descriptor {
                addr: OPD + 8,
                code: TEXT + 8,
                toc: TOC
            }
        ]
    );
    let pp = img.proc_param().unwrap().unwrap();
    assert_eq!(
        (pp.sdk_version, pp.primary_prio, pp.primary_stacksize),
        (0x0036_0001, 1001, 0x10_0000)
    );
    let prx = img.prx_param().unwrap().unwrap();
    assert_eq!(
        (prx.libstub_start, prx.libstub_end),
        (LIB_STUB, LIB_STUB + 44)
    );
    let imports = img.imports().unwrap();
    assert_eq!(imports.len(), 1);
    assert_eq!(imports[0].name, "sysPrxForUser");
    assert_eq!(imports[0].functions.len(), 1);
    let f = &imports[0].functions[0];
    assert_eq!(
        (f.fnid, f.slot, f.initial),
        (fnid("sys_process_exit"), FSTUBS, STUB)
    );
    assert!(img.exports().unwrap().is_empty());
    assert!(img.is_code(STUB) && !img.is_code(DATA));
    assert_eq!(img.code_ranges(), vec![(TEXT, TEXT + 0x120)]);
}

#[test]
fn ps3_fixture_loads() {
    use common::ps3::*;
    let img = Image::parse(common::ps3_fixture()).unwrap();
    let mem = GuestMemory::with_mode(CheckMode::Checked).unwrap();
    let loaded = img.load(&mem).unwrap();
    assert_eq!(loaded.mapped, vec![(0x1_0000, 0x3_0000)]);
    assert_eq!(mem.try_read_u32(TEXT).unwrap(), 0x3860_0000);
    assert_eq!(mem.try_read_u32(FSTUBS).unwrap(), STUB);
    assert_eq!(
        mem.try_read_u32(BSS + 0x40).unwrap(),
        0,
        "bss reads as zero"
    );
    assert_eq!(mem.prot_at(TEXT), Prot::RX);
    assert_eq!(mem.prot_at(DATA), Prot::RW);
    assert!(mem.try_write_u32(TEXT, 0).is_err(), "code is not writable");
}

#[test]
fn refusals_name_the_offset() {
    let good = common::ps3_fixture();
    type Mutation = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(Mutation, u64, &str)> = vec![
        (Box::new(|d| d[0] = b'X'), 0, "not an ELF"),
        (Box::new(|d| d[4] = 1), 4, "EI_CLASS"),
        (Box::new(|d| d[5] = 1), 5, "big-endian"),
        (Box::new(|d| d[7] = 9), 7, "OS/ABI"),
        (Box::new(|d| set_u16(d, 16, 0xFFA4)), 16, "PRX"),
        (Box::new(|d| set_u16(d, 18, 20)), 18, "e_machine"),
        (Box::new(|d| set_u16(d, 54, 32)), 54, "e_phentsize"),
        (Box::new(|d| d.truncate(100)), 64, "program header table"),
        (
            Box::new(|d| set_u64(d, 24, 0x1_0000_0000)),
            24,
            "above the 4 GiB",
        ),
        (
            Box::new(|d| set_u64(d, 24, 0x1_0000)),
            24,
            "not in an executable segment",
        ),
        (
            Box::new(|d| set_u64(d, 24, 0x9_0000)),
            24,
            "not in a loaded segment",
        ),
        // Segment 0's p_filesz larger than its p_memsz.
        (
            Box::new(|d| set_u64(d, 64 + 32, 0x10_0000)),
            64 + 32,
            "larger than p_memsz",
        ),
        // Segment 1's file data past the end of the file.
        (
            Box::new(|d| set_u64(d, 64 + 56 + 8, 0x10_0000)),
            0x10_0000,
            "past the end of the file",
        ),
        // Segment 1 moved onto segment 0.
        (
            Box::new(|d| set_u64(d, 64 + 56 + 16, 0x1_0010)),
            64 + 56 + 16,
            "overlaps",
        ),
        // Segment 0 in page 0.
        (Box::new(|d| set_u64(d, 64 + 16, 0x100)), 64 + 16, "page 0"),
        // Segment ending past 4 GiB.
        (
            Box::new(|d| set_u64(d, 64 + 56 + 16, 0xFFFF_FF00)),
            64 + 56 + 40,
            "past the 4 GiB",
        ),
    ];
    for (mutate, offset, words) in cases {
        let mut d = good.clone();
        mutate(&mut d);
        let e = err(d);
        assert_eq!(e.offset, offset, "{e}");
        assert!(
            e.to_string().contains(words),
            "{e:?} should mention {words:?}"
        );
    }
}

#[test]
fn bad_ps3_tables_are_refused() {
    use common::ps3::*;
    let good = common::ps3_fixture();
    let img = Image::parse(good.clone()).unwrap();
    let off = |a: u32| img.file_offset(a, 4).unwrap() as usize;
    // Bad process-param magic.
    let mut d = good.clone();
    set_u32(&mut d, off(PROC_PARAM + 4), 0x1234);
    let e = Image::parse(d).unwrap().proc_param().unwrap_err();
    assert!(e.reason.contains("magic"), "{e}");
    // Import library name pointer to nowhere.
    let mut d = good.clone();
    set_u32(&mut d, off(LIB_STUB + 16), 0x0800_0000);
    let e = Image::parse(d).unwrap().imports().unwrap_err();
    assert_eq!(e.offset, off(LIB_STUB) as u64 + 16, "{e}");
    // FNID table outside the image.
    let mut d = good.clone();
    set_u32(&mut d, off(LIB_STUB + 20), 0x0800_0000);
    let e = Image::parse(d).unwrap().imports().unwrap_err();
    assert_eq!(e.offset, off(LIB_STUB) as u64 + 20, "{e}");
    // Stub range that is not whole records.
    let mut d = good;
    set_u32(&mut d, off(PRX_PARAM + 28), LIB_STUB + 40);
    let e = Image::parse(d).unwrap().imports().unwrap_err();
    assert!(e.reason.contains("44-byte records"), "{e}");
}

/// A real Linux executable from the cross compiler: the entry descriptor
/// is `_start`'s, `main` is found, and `.opd` has 24-byte descriptors.
#[test]
fn linux_executable_from_the_cross_compiler() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ppu-elf-linux");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("t.c");
    std::fs::write(
        &src,
        "int g = 5; int f(int x) { return x * g; }\nint main(int c, char **v) { return f(c); }\n",
    )
    .unwrap();
    let exe = dir.join("t");
    let o = Command::new("powerpc64-linux-gnu-gcc")
        .args(["-O2", "-static", "-mcpu=cell", "-maltivec", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("powerpc64-linux-gnu-gcc (Debian gcc-powerpc64-linux-gnu; ./x setup installs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let img = ppu_elf::open(&exe).unwrap();
    assert_eq!(img.abi, Abi::Linux);
    let syms = img.function_symbols();
    let find = |n: &str| syms.iter().find(|s| s.1 == n).map(|s| s.0);
    let start = find("_start").expect("_start");
    assert_eq!(img.entry_descriptor().code, start);
    let main = find("main").expect("main");
    assert!(img.is_code(main));
    let opd = img.opd();
    assert!(opd.len() > 100, "{} descriptors", opd.len());
    assert!(opd.iter().any(|d| d.code == main));
    assert!(
        opd.iter().all(|d| d.toc == opd[0].toc),
        "one TOC in a static executable"
    );
    assert!(img.phdr_addr().is_some());
    assert!(
        img.proc_param().is_err(),
        "Linux executables have no PS3 tables"
    );
    let mem = GuestMemory::with_mode(CheckMode::Checked).unwrap();
    let l = img.load(&mem).unwrap();
    assert!(l.tls.is_some());
    let word = u32::from_be_bytes(img.read(main, 4).unwrap().try_into().unwrap());
    assert_eq!(mem.try_read_u32(main).unwrap(), word);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Random byte changes and truncations of a valid file: the parser and
    /// every table reader return (never panic), and a refusal's offset lies
    /// inside the file or names a field whose value points outside it.
    #[test]
    fn mutations_never_panic(edits in prop::collection::vec((0usize..2048, any::<u8>()), 1..8), cut in 0usize..4096) {
        let mut d = common::ps3_fixture();
        let len = d.len();
        for (pos, byte) in edits {
            d[pos % len] = byte;
        }
        if cut < len && cut % 3 == 0 {
            d.truncate(cut);
        }
        match Image::parse(d) {
            Ok(img) => {
                let _ = img.opd();
                let _ = img.function_symbols();
                if img.abi == Abi::Lv2 {
                    let _ = img.proc_param();
                    let _ = img.imports();
                    let _ = img.exports();
                }
            }
            Err(e) => prop_assert!(!e.reason.is_empty()),
        }
    }
}
