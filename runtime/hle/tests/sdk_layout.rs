//! The guest SDK's output has the PS3 layout: OS/ABI 0x66, ET_EXEC at
//! 0x10000, 8-byte descriptors in `.opd` (each gcc descriptor pointing at
//! its twin), Sony's import tables with FNIDs computed as FACTS.md says,
//! the process parameters; and its FNID tool agrees with the runtime's.

mod common;

use std::process::Command;

use common::*;

#[test]
fn fnid_tool_matches_the_runtime_and_the_vectors() {
    let names: Vec<String> = std::fs::read_to_string(sdk().join("imports.txt"))
        .expect("catalogue")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().nth(1).expect("name").to_owned())
        .chain(
            [
                "sys_process_exit",
                "_sys_printf",
                "cellSysutilCheckCallback",
            ]
            .map(str::to_owned),
        )
        .collect();
    let out = Command::new(sdk().join("tools/fnid.sh"))
        .args(&names)
        .output()
        .expect("fnid.sh");
    assert!(out.status.success());
    let got: Vec<String> = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(got.len(), names.len());
    for (n, g) in names.iter().zip(&got) {
        assert_eq!(g, &format!("0x{:08X}", hle::fnid(n)), "{n}");
    }
    let vectors = &got[got.len() - 3..];
    assert_eq!(vectors, ["0xE6F2C1E7", "0x9F04F7AF", "0x189A74DA"]);
}

#[test]
fn executables_have_the_ps3_layout() {
    let dir = out_dir("sdk-layout");
    let elf = build(&dir, "threads");
    let data = std::fs::read(&elf).expect("read");
    assert_eq!(&data[..4], b"\x7fELF");
    assert_eq!(data[4], 2, "ELF64");
    assert_eq!(data[5], 2, "big-endian");
    assert_eq!(data[7], 0x66, "OS/ABI CELL LV2");
    assert_eq!(u16::from_be_bytes([data[16], data[17]]), 2, "ET_EXEC");
    assert_eq!(u16::from_be_bytes([data[18], data[19]]), 21, "PowerPC64");
    let image = ppu_elf::Image::parse(data).expect("ppu-elf accepts it");
    assert_eq!(image.abi, ppu_elf::Abi::Lv2);
    assert_eq!(image.loads().next().map(|s| s.vaddr), Some(0x10000));
    for name in [
        ".lib.stub",
        ".rodata.sceResident",
        ".rodata.sceFNID",
        ".data.sceFStub",
        ".sceStub.text",
        ".opd",
        ".sys_proc_param",
        ".sys_proc_prx_param",
    ] {
        assert!(image.section(name).is_some(), "{name} missing");
    }
    // The entry is an 8-byte descriptor in .opd.
    let opd = image.section(".opd").expect(".opd");
    assert!(image.entry >= opd.addr && u64::from(image.entry) < u64::from(opd.addr) + opd.size);
    assert!(image.is_code(image.entry_descriptor().code));
    // Every gcc descriptor's third doubleword points at an 8-byte twin with
    // the same code address and TOC.
    let gcc = image.section(".data.gcc_opd").expect("gcc descriptors");
    let mut twins = 0;
    for a in (gcc.addr..gcc.addr + gcc.size as u32).step_by(24) {
        let (code, toc, twin) = (
            image.read_u64(a).unwrap(),
            image.read_u64(a + 8).unwrap(),
            image.read_u64(a + 16).unwrap(),
        );
        if twin == 0 {
            continue;
        }
        let d = image.descriptor(twin as u32).expect("twin");
        assert_eq!(
            (u64::from(d.code), u64::from(d.toc)),
            (code, toc),
            "descriptor at {a:#x}"
        );
        twins += 1;
    }
    assert!(twins >= 10 && twins as usize <= image.opd().len());
    // Imports: the libraries the program uses, FNIDs of the names in the
    // catalogue, stubs of the Sony pattern.
    let libs = image.imports().expect("imports");
    let prx = libs
        .iter()
        .find(|l| l.name == "sysPrxForUser")
        .expect("sysPrxForUser");
    let fnids: Vec<u32> = prx.functions.iter().map(|f| f.fnid).collect();
    for n in [
        "sys_process_exit",
        "sys_ppu_thread_create",
        "sys_ppu_thread_exit",
        "sys_ppu_thread_get_id",
    ] {
        assert!(fnids.contains(&hle::fnid(n)), "{n} imported");
    }
    let stubs = image.section(".sceStub.text").expect("stubs");
    let words: Vec<u32> = (0..8)
        .map(|i| image.read_u32(stubs.addr + 4 * i).unwrap())
        .collect();
    assert_eq!(words[0], 0x3980_0000, "li r12,0");
    assert_eq!(words[1] >> 16, 0x658C, "oris r12,r12,hi");
    assert_eq!(words[2] >> 16, 0x818C, "lwz r12,lo(r12)");
    assert_eq!(words[3], 0xF841_0028, "std r2,40(r1)");
    assert_eq!(words[4], 0x800C_0000, "lwz r0,0(r12)");
    assert_eq!(words[5], 0x804C_0004, "lwz r2,4(r12)");
    assert_eq!(words[6], 0x7C09_03A6, "mtctr r0");
    assert_eq!(words[7], 0x4E80_0420, "bctr");
    let p = image.proc_param().expect("param").expect("present");
    assert_eq!((p.primary_prio, p.primary_stacksize), (1001, 0x10_0000));
    assert!(image.prx_param().expect("prx param").is_some());
}
