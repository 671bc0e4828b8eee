//! The Linux ppc64 system-call personality for recompiled test programs.
//!
//! A Linux ppc64 ELFv1 static executable (glibc, built with
//! `powerpc64-linux-gnu-gcc -static -mcpu=cell`) runs on [`Linux`] as it
//! would on a Cell running Linux: the initial stack holds argc, argv, envp
//! and an auxiliary vector with the Cell's hardware capabilities
//! (`AT_HWCAP`, `AT_HWCAP2`), its 128-byte cache lines, `AT_PLATFORM`
//! `ppc-cell-be`, `AT_RANDOM`, the program headers and entry point. System
//! calls (`sc`, number in r0, arguments in r3..r8, result in r3, CR0[SO] set
//! with a positive errno in r3 on failure) go to the host: the guest's file
//! descriptors are the host's (so its stdin, stdout and stderr are the
//! runner's), paths are host paths, memory calls map guest pages. A call
//! this personality does not implement ends the program with an error
//! naming its number, its name and the guest PC.

pub mod abi;
mod calls;
pub mod stack;
pub mod sysno;

use std::sync::Mutex;

use ppu_cpu::{PpuContext, TimeBase};
use ppu_elf::{Abi, Image};
use recomp_rt::{Outcome, Personality, Process, Rt};

/// One past the highest stack byte.
pub const STACK_TOP: u32 = 0xF000_0000;
/// Bytes of stack (what `ulimit -s` gives by default, doubled).
pub const STACK_SIZE: u32 = 16 << 20;
/// The lowest address `mmap` hands out; the program break may grow up to it.
pub const MMAP_BASE: u32 = 0x8000_0000;
/// One past the highest address `mmap` hands out.
pub const MMAP_END: u32 = STACK_TOP - STACK_SIZE - (1 << 20);
/// The time base a Cell running Linux reports (79.8 MHz, as on the PS3).
pub const CELL_TIMEBASE_HZ: u64 = ppu_cpu::PS3_TIMEBASE_HZ;

/// Per-process state the calls change.
#[derive(Debug)]
pub(crate) struct State {
    /// Where the break started (page-aligned end of the image).
    pub brk_start: u32,
    /// The current break (as the guest set it).
    pub brk: u32,
    /// Page-aligned end of the pages mapped for the break.
    pub brk_mapped: u32,
    /// Signal actions as the guest set them (raw `struct sigaction`, 32 bytes).
    pub sigactions: Vec<[u8; 32]>,
    /// The blocked-signal mask.
    pub sigmask: u64,
    /// The program's pid as the guest sees it.
    pub pid: u32,
}

/// The personality. One per process.
#[derive(Debug)]
pub struct Linux {
    pub(crate) state: Mutex<State>,
    timebase: TimeBase,
}

impl Linux {
    /// A personality for `image` (which must be a Linux executable).
    pub fn new(image: &Image) -> Result<Linux, String> {
        if image.abi != Abi::Linux {
            return Err("the Linux personality runs Linux ppc64 executables only (this one is a PS3 executable)".into());
        }
        Ok(Linux {
            state: Mutex::new(State {
                brk_start: 0,
                brk: 0,
                brk_mapped: 0,
                sigactions: vec![[0; 32]; 65],
                sigmask: 0,
                // SAFETY: getpid has no preconditions.
                pid: unsafe { libc::getpid() } as u32,
            }),
            timebase: TimeBase::new(CELL_TIMEBASE_HZ),
        })
    }

    /// A boxed personality for the generated `main` (`Program::personality`).
    pub fn boxed(image: &Image) -> Result<Box<dyn Personality>, String> {
        Ok(Box::new(Linux::new(image)?))
    }
}

impl Personality for Linux {
    fn name(&self) -> &'static str {
        "Linux"
    }

    fn start(
        &self,
        process: &Process,
        ctx: &mut PpuContext,
        args: &[std::ffi::OsString],
        env: &[(std::ffi::OsString, std::ffi::OsString)],
    ) -> Result<(), String> {
        let mut random = [0u8; 16];
        // SAFETY: getrandom writes at most 16 bytes into the buffer.
        let n = unsafe { libc::getrandom(random.as_mut_ptr().cast(), 16, 0) };
        if n != 16 {
            return Err("getrandom failed for AT_RANDOM".into());
        }
        let execfn = std::env::current_exe()
            .map(|p| std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()).to_vec())
            .unwrap_or_else(|_| b"/proc/self/exe".to_vec());
        // SAFETY: the id getters have no preconditions.
        let ids = unsafe {
            [
                libc::getuid() as u64,
                libc::geteuid() as u64,
                libc::getgid() as u64,
                libc::getegid() as u64,
            ]
        };
        let init = stack::Initial {
            image: &process.image,
            args,
            env,
            execfn: &execfn,
            random,
            ids,
        };
        let (sp, _auxv) = stack::build(
            process.mem,
            stack::StackLayout {
                top: STACK_TOP,
                size: STACK_SIZE,
            },
            &init,
        )?;
        let entry = process.image.entry_descriptor();
        ctx.gpr[1] = u64::from(sp);
        ctx.gpr[2] = u64::from(entry.toc);
        ctx.cia = entry.code;
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.brk_start = process.loaded.end;
        st.brk = process.loaded.end;
        st.brk_mapped = process.loaded.end;
        Ok(())
    }

    fn syscall(&self, rt: &Rt, ctx: &mut PpuContext, pc: u32) -> Outcome {
        calls::dispatch(self, &rt.process, ctx, pc)
    }

    fn timebase(&self) -> TimeBase {
        self.timebase
    }

    fn threads(&self) -> bool {
        // clone is not implemented: a Linux test program has one thread.
        false
    }
}
