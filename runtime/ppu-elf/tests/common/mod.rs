//! A small ELF64 big-endian writer for test fixtures, and a PS3-format
//! executable laid out as the PS3 toolchain lays one out (8-byte `.opd`,
//! `.sys_proc_param`, `.sys_proc_prx_param`, one `.lib.stub` import).

#![allow(dead_code)]

/// A section to write.
pub struct Sec {
    pub name: &'static str,
    pub kind: u32,
    pub flags: u64,
    pub addr: u64,
    pub data: Vec<u8>,
    /// Size for NOBITS sections.
    pub nobits_size: u64,
    pub link: u32,
    pub entsize: u64,
}

/// A segment to write: covers the listed sections (by index into the
/// section list), or explicit bytes.
pub struct Seg {
    pub kind: u32,
    pub flags: u32,
    pub vaddr: u64,
    pub data: Vec<u8>,
    pub memsz: u64,
}

pub fn be16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_be_bytes());
}
pub fn be32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_be_bytes());
}
pub fn be64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_be_bytes());
}

/// Writes an ELF64 BE PPC64 executable: header, program headers, segment
/// data (each at a file offset congruent to its address mod 64 KiB is not
/// needed by our loader, so they are packed), section headers.
pub fn write_elf(osabi: u8, entry: u64, segs: &[Seg], secs: &[Sec]) -> Vec<u8> {
    let phoff = 64u64;
    let mut out = vec![0u8; 64];
    let mut seg_offsets = Vec::new();
    let mut body = Vec::new();
    let data_start = phoff + 56 * segs.len() as u64;
    for s in segs {
        seg_offsets.push(data_start + body.len() as u64);
        body.extend_from_slice(&s.data);
        while body.len() % 8 != 0 {
            body.push(0);
        }
    }
    // Section data after segment data; sections with an address inside a
    // segment point into that segment's bytes.
    let mut shstr = vec![0u8];
    let mut names = Vec::new();
    for s in secs {
        names.push(shstr.len() as u32);
        shstr.extend_from_slice(s.name.as_bytes());
        shstr.push(0);
    }
    let shstr_name = shstr.len() as u32;
    shstr.extend_from_slice(b".shstrtab\0");
    let mut sec_offsets = Vec::new();
    for s in secs {
        let inside = segs.iter().zip(&seg_offsets).find(|(g, _)| {
            s.addr != 0
                && s.addr >= g.vaddr
                && s.addr + s.data.len() as u64 <= g.vaddr + g.data.len() as u64
        });
        match inside {
            Some((g, off)) if s.kind != 8 => sec_offsets.push(off + (s.addr - g.vaddr)),
            _ => {
                sec_offsets.push(data_start + body.len() as u64);
                body.extend_from_slice(&s.data);
                while body.len() % 8 != 0 {
                    body.push(0);
                }
            }
        }
    }
    let shstr_off = data_start + body.len() as u64;
    body.extend_from_slice(&shstr);
    while body.len() % 8 != 0 {
        body.push(0);
    }
    let shoff = data_start + body.len() as u64;
    let shnum = secs.len() as u16 + 2;

    // ELF header.
    out[..4].copy_from_slice(&[0x7F, b'E', b'L', b'F']);
    out[4] = 2;
    out[5] = 2;
    out[6] = 1;
    out[7] = osabi;
    let mut h = Vec::new();
    be16(&mut h, 2); // ET_EXEC
    be16(&mut h, 21); // EM_PPC64
    be32(&mut h, 1);
    be64(&mut h, entry);
    be64(&mut h, phoff);
    be64(&mut h, shoff);
    be32(&mut h, 0); // flags
    be16(&mut h, 64);
    be16(&mut h, 56);
    be16(&mut h, segs.len() as u16);
    be16(&mut h, 64);
    be16(&mut h, shnum);
    be16(&mut h, shnum - 1);
    out[16..64].copy_from_slice(&h);
    for (s, off) in segs.iter().zip(&seg_offsets) {
        be32(&mut out, s.kind);
        be32(&mut out, s.flags);
        be64(&mut out, *off);
        be64(&mut out, s.vaddr);
        be64(&mut out, s.vaddr);
        be64(&mut out, s.data.len() as u64);
        be64(&mut out, s.memsz);
        be64(&mut out, 0x10000);
    }
    out.extend_from_slice(&body);
    // Section headers: null, the sections, .shstrtab.
    out.extend_from_slice(&[0u8; 64]);
    for ((s, name), off) in secs.iter().zip(&names).zip(&sec_offsets) {
        be32(&mut out, *name);
        be32(&mut out, s.kind);
        be64(&mut out, s.flags);
        be64(&mut out, s.addr);
        be64(&mut out, *off);
        be64(
            &mut out,
            if s.kind == 8 {
                s.nobits_size
            } else {
                s.data.len() as u64
            },
        );
        be32(&mut out, s.link);
        be32(&mut out, 0);
        be64(&mut out, 8);
        be64(&mut out, s.entsize);
    }
    be32(&mut out, shstr_name);
    be32(&mut out, 3);
    be64(&mut out, 0);
    be64(&mut out, 0);
    be64(&mut out, shstr_off);
    be64(&mut out, shstr.len() as u64);
    be32(&mut out, 0);
    be32(&mut out, 0);
    be64(&mut out, 1);
    be64(&mut out, 0);
    out
}

/// Addresses in the PS3 fixture.
pub mod ps3 {
    pub const TEXT: u32 = 0x1_0000;
    pub const STUB: u32 = 0x1_0100;
    pub const DATA: u32 = 0x2_0000;
    pub const OPD: u32 = DATA;
    pub const PROC_PARAM: u32 = DATA + 0x40;
    pub const PRX_PARAM: u32 = DATA + 0x80;
    pub const LIB_STUB: u32 = DATA + 0xC0;
    pub const LIB_NAME: u32 = DATA + 0x100;
    pub const FNIDS: u32 = DATA + 0x120;
    pub const FSTUBS: u32 = DATA + 0x140;
    pub const TOC: u32 = DATA + 0x8000;
    pub const BSS: u32 = DATA + 0x200;
}

/// A PS3-format executable: `_start` at 0x10000 calls `sys_process_exit`
/// through its import stub at 0x10100.
pub fn ps3_fixture() -> Vec<u8> {
    use ps3::*;
    // .text: li r3,0; bl stub; b .
    let mut text = Vec::new();
    be32(&mut text, 0x3860_0000);
    be32(&mut text, 0x4800_0001 | (STUB - (TEXT + 4)));
    be32(&mut text, 0x4800_0000);
    text.resize((STUB - TEXT) as usize, 0);
    // .sceStub.text: the import stub shape.
    for w in [
        0x3980_0000u32 | (FSTUBS & 0xFFFF), // li r12, lo(slot)
        0x658C_0000 | (FSTUBS >> 16),       // oris r12, r12, hi(slot)
        0x818C_0000,                        // lwz r12, 0(r12)
        0xF841_0028,                        // std r2, 40(r1)
        0x800C_0000,                        // lwz r0, 0(r12)
        0x804C_0004,                        // lwz r2, 4(r12)
        0x7C09_03A6,                        // mtctr r0
        0x4E80_0420,                        // bctr
    ] {
        be32(&mut text, w);
    }
    let text_len = text.len();

    let mut data = Vec::new();
    // .opd: the entry descriptor and one more.
    be32(&mut data, TEXT);
    be32(&mut data, TOC);
    be32(&mut data, TEXT + 8);
    be32(&mut data, TOC);
    data.resize((PROC_PARAM - DATA) as usize, 0);
    // sys_process_param_t
    for w in [
        0x20u32,
        0x13BC_C5F6,
        0x0033_0000,
        0x0036_0001,
        1001,
        0x10_0000,
        0x10_0000,
        0,
    ] {
        be32(&mut data, w);
    }
    data.resize((PRX_PARAM - DATA) as usize, 0);
    // sys_process_prx_param_t: size, magic, version, unk0, libent start/end, libstub start/end, ver, unk1, unk2
    for w in [
        0x40u32,
        0x1B43_4CEC,
        4,
        0,
        LIB_STUB,
        LIB_STUB,
        LIB_STUB,
        LIB_STUB + 44,
    ] {
        be32(&mut data, w);
    }
    be16(&mut data, 1);
    be16(&mut data, 0);
    be32(&mut data, 0);
    data.resize((LIB_STUB - DATA) as usize, 0);
    // .lib.stub: one 44-byte record.
    data.push(0x2C);
    data.push(0);
    be16(&mut data, 1); // version
    be16(&mut data, 0x0009); // attributes
    be16(&mut data, 1); // num_func
    be16(&mut data, 0); // num_var
    be16(&mut data, 0); // num_tlsvar
    data.extend_from_slice(&[0, 0, 0, 0]);
    for w in [LIB_NAME, FNIDS, FSTUBS, 0, 0, 0, 0] {
        be32(&mut data, w);
    }
    data.resize((LIB_NAME - DATA) as usize, 0);
    data.extend_from_slice(b"sysPrxForUser\0");
    data.resize((FNIDS - DATA) as usize, 0);
    be32(&mut data, 0xE6F2_C1E7); // sys_process_exit
    data.resize((FSTUBS - DATA) as usize, 0);
    be32(&mut data, STUB);
    data.resize((BSS - DATA) as usize, 0);
    let data_filesz = data.len();

    let segs = [
        Seg {
            kind: 1,
            flags: 5,
            vaddr: TEXT.into(),
            data: text.clone(),
            memsz: text_len as u64,
        },
        Seg {
            kind: 1,
            flags: 6,
            vaddr: DATA.into(),
            data: data.clone(),
            memsz: data_filesz as u64 + 0x100,
        },
        Seg {
            kind: 0x6000_0001,
            flags: 4,
            vaddr: PROC_PARAM.into(),
            data: data[(PROC_PARAM - DATA) as usize..(PROC_PARAM - DATA + 32) as usize].to_vec(),
            memsz: 32,
        },
        Seg {
            kind: 0x6000_0002,
            flags: 4,
            vaddr: PRX_PARAM.into(),
            data: data[(PRX_PARAM - DATA) as usize..(PRX_PARAM - DATA + 0x40) as usize].to_vec(),
            memsz: 0x40,
        },
    ];
    let sec = |name, kind, flags, addr: u32, bytes: &[u8]| Sec {
        name,
        kind,
        flags,
        addr: addr.into(),
        data: bytes.to_vec(),
        nobits_size: 0,
        link: 0,
        entsize: 0,
    };
    let d = |a: u32, n: u32| data[(a - DATA) as usize..(a - DATA + n) as usize].to_vec();
    let secs = vec![
        sec(".text", 1, 6, TEXT, &text[..(STUB - TEXT) as usize]),
        sec(".sceStub.text", 1, 6, STUB, &text[(STUB - TEXT) as usize..]),
        sec(".opd", 1, 3, OPD, &d(OPD, 16)),
        sec(".sys_proc_param", 1, 2, PROC_PARAM, &d(PROC_PARAM, 32)),
        sec(".sys_proc_prx_param", 1, 2, PRX_PARAM, &d(PRX_PARAM, 0x40)),
        sec(".lib.stub", 1, 2, LIB_STUB, &d(LIB_STUB, 44)),
        sec(".rodata.sceResident", 1, 2, LIB_NAME, &d(LIB_NAME, 16)),
        sec(".rodata.sceFNID", 1, 2, FNIDS, &d(FNIDS, 4)),
        sec(".data.sceFStub", 1, 3, FSTUBS, &d(FSTUBS, 4)),
        Sec {
            name: ".bss",
            kind: 8,
            flags: 3,
            addr: BSS.into(),
            data: Vec::new(),
            nobits_size: 0x100,
            link: 0,
            entsize: 0,
        },
    ];
    write_elf(0x66, OPD.into(), &segs, &secs)
}
