//! The initial stack a ppc64 Linux kernel builds for a new program:
//! argc, argv, envp, the auxiliary vector, and the strings they point to.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use guest_mem::{GuestMemory, Prot};
use ppu_elf::Image;

/// Auxiliary-vector tags (ppc64 values).
pub mod at {
    /// End of the vector.
    pub const NULL: u64 = 0;
    /// Program headers' address.
    pub const PHDR: u64 = 3;
    /// Size of one program header.
    pub const PHENT: u64 = 4;
    /// Number of program headers.
    pub const PHNUM: u64 = 5;
    /// Page size.
    pub const PAGESZ: u64 = 6;
    /// Interpreter base (0: static).
    pub const BASE: u64 = 7;
    /// Flags.
    pub const FLAGS: u64 = 8;
    /// Entry point (the entry descriptor's address on ELFv1).
    pub const ENTRY: u64 = 9;
    /// Real user id.
    pub const UID: u64 = 11;
    /// Effective user id.
    pub const EUID: u64 = 12;
    /// Real group id.
    pub const GID: u64 = 13;
    /// Effective group id.
    pub const EGID: u64 = 14;
    /// Platform string.
    pub const PLATFORM: u64 = 15;
    /// Hardware capabilities.
    pub const HWCAP: u64 = 16;
    /// Clock ticks a second.
    pub const CLKTCK: u64 = 17;
    /// Data cache block size.
    pub const DCACHEBSIZE: u64 = 19;
    /// Instruction cache block size.
    pub const ICACHEBSIZE: u64 = 20;
    /// Unified cache block size.
    pub const UCACHEBSIZE: u64 = 21;
    /// Entry the kernel puts first on PowerPC (ignored by everyone).
    pub const IGNOREPPC: u64 = 22;
    /// Secure mode.
    pub const SECURE: u64 = 23;
    /// Base platform string.
    pub const BASE_PLATFORM: u64 = 24;
    /// Address of 16 random bytes.
    pub const RANDOM: u64 = 25;
    /// More hardware capabilities.
    pub const HWCAP2: u64 = 26;
    /// The executable's file name.
    pub const EXECFN: u64 = 31;
}

/// `PPC_FEATURE_*` bits a Cell Broadband Engine reports (`COMMON_USER_PPC64
/// | PPC_FEATURE_CELL | PPC_FEATURE_HAS_ALTIVEC | PPC_FEATURE_SMT`, as the
/// kernel's cputable has it): 32- and 64-bit, FPU, MMU, AltiVec, Cell, SMT.
pub const CELL_HWCAP: u64 =
    0x8000_0000 | 0x4000_0000 | 0x0800_0000 | 0x0400_0000 | 0x1000_0000 | 0x0001_0000 | 0x0000_4000;
/// `AT_HWCAP2` of a Cell: none of the ISA 2.07+ features.
pub const CELL_HWCAP2: u64 = 0;
/// The Cell's cache line (what `dcbz` clears).
pub const CELL_CACHE_LINE: u64 = 128;
/// The platform string the kernel reports for a Cell.
pub const CELL_PLATFORM: &str = "ppc-cell-be";
/// The page size reported (the guest's page: 64 KiB, as ppc64 kernels use).
pub const PAGE_SIZE: u64 = guest_mem::PAGE_SIZE as u64;

/// Where the stack is and how big.
#[derive(Debug, Clone, Copy)]
pub struct StackLayout {
    /// One past the highest stack byte.
    pub top: u32,
    /// Bytes mapped below `top`.
    pub size: u32,
}

/// What the initial stack holds.
#[derive(Debug)]
pub struct Initial<'a> {
    /// The executable.
    pub image: &'a Image,
    /// argv (argv\[0\] first).
    pub args: &'a [OsString],
    /// The environment.
    pub env: &'a [(OsString, OsString)],
    /// The executable's path (`AT_EXECFN`).
    pub execfn: &'a [u8],
    /// The 16 bytes `AT_RANDOM` points at.
    pub random: [u8; 16],
    /// uid, euid, gid, egid.
    pub ids: [u64; 4],
}

/// Maps the stack and writes the initial frame; returns the stack pointer
/// (pointing at argc) and the auxiliary vector written.
pub fn build(
    mem: &GuestMemory,
    layout: StackLayout,
    init: &Initial<'_>,
) -> Result<(u32, Vec<(u64, u64)>), String> {
    let base = layout.top - layout.size;
    mem.map(base, u64::from(layout.size), Prot::RW)
        .map_err(|e| format!("mapping the stack: {e}"))?;
    let mut sp = layout.top;
    let mut push_bytes = |bytes: &[u8], align: u32| -> Result<u32, String> {
        sp = (sp - bytes.len() as u32) & !(align - 1);
        mem.write_bytes(sp, bytes)
            .map_err(|e| format!("writing the initial stack: {e}"))?;
        Ok(sp)
    };
    let cstr = |b: &[u8]| {
        let mut v = b.to_vec();
        v.push(0);
        v
    };
    let execfn = push_bytes(&cstr(init.execfn), 1)?;
    let platform = push_bytes(&cstr(CELL_PLATFORM.as_bytes()), 1)?;
    let random = push_bytes(&init.random, 16)?;
    let mut env_ptrs = Vec::new();
    for (k, v) in init.env.iter().rev() {
        let mut s = k.as_bytes().to_vec();
        s.push(b'=');
        s.extend_from_slice(v.as_bytes());
        env_ptrs.push(push_bytes(&cstr(&s), 1)?);
    }
    env_ptrs.reverse();
    let mut arg_ptrs = Vec::new();
    for a in init.args.iter().rev() {
        arg_ptrs.push(push_bytes(&cstr(a.as_bytes()), 1)?);
    }
    arg_ptrs.reverse();

    let img = init.image;
    let mut auxv: Vec<(u64, u64)> = vec![
        (at::IGNOREPPC, at::IGNOREPPC),
        (at::IGNOREPPC, at::IGNOREPPC),
        (at::DCACHEBSIZE, CELL_CACHE_LINE),
        (at::ICACHEBSIZE, CELL_CACHE_LINE),
        (at::UCACHEBSIZE, 0),
        (at::HWCAP, CELL_HWCAP),
        (at::PAGESZ, PAGE_SIZE),
        (at::CLKTCK, 100),
    ];
    if let Some(ph) = img.phdr_addr() {
        auxv.push((at::PHDR, u64::from(ph)));
    }
    auxv.extend([
        (at::PHENT, 56),
        (at::PHNUM, u64::from(img.phnum)),
        (at::BASE, 0),
        (at::FLAGS, 0),
        (at::ENTRY, u64::from(img.entry)),
        (at::UID, init.ids[0]),
        (at::EUID, init.ids[1]),
        (at::GID, init.ids[2]),
        (at::EGID, init.ids[3]),
        (at::SECURE, 0),
        (at::RANDOM, u64::from(random)),
        (at::HWCAP2, CELL_HWCAP2),
        (at::EXECFN, u64::from(execfn)),
        (at::PLATFORM, u64::from(platform)),
        (at::BASE_PLATFORM, u64::from(platform)),
        (at::NULL, 0),
    ]);

    // argc, argv..., 0, envp..., 0, auxv pairs; sp 16-byte aligned at argc.
    let words = 1 + arg_ptrs.len() + 1 + env_ptrs.len() + 1 + 2 * auxv.len();
    let mut sp = (sp - 8 * words as u32) & !15;
    let start = sp;
    let mut put = |v: u64| -> Result<(), String> {
        mem.try_write_u64(sp, v)
            .map_err(|e| format!("writing the initial stack: {e}"))?;
        sp += 8;
        Ok(())
    };
    put(arg_ptrs.len() as u64)?;
    for p in &arg_ptrs {
        put(u64::from(*p))?;
    }
    put(0)?;
    for p in &env_ptrs {
        put(u64::from(*p))?;
    }
    put(0)?;
    for &(k, v) in &auxv {
        put(k)?;
        put(v)?;
    }
    Ok((start, auxv))
}
