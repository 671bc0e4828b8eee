//! The seam between the runtime and the system a program was built for.
//!
//! A [`Personality`] sets up the main thread (stack, arguments, registers)
//! and handles system calls. The generated `main` picks one from the
//! executable's OS/ABI: `ppu-linux` for Linux ppc64 test programs, the LV2
//! runtime for PS3 executables.

use std::ffi::OsString;

use guest_mem::GuestMemory;
use ppu_cpu::{PpuContext, TimeBase};
use ppu_elf::{Image, Loaded};

use crate::rt::Rt;

/// The loaded program a personality works on.
#[derive(Debug)]
pub struct Process {
    /// The executable.
    pub image: Image,
    /// Guest memory, with the image loaded.
    pub mem: &'static GuestMemory,
    /// Where loading put things.
    pub loaded: Loaded,
}

/// What the guest does next after a system call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Go on at `ctx.cia`.
    Continue,
    /// The process exits with this status (`exit_group`, `sys_process_exit`).
    Exit(i32),
    /// The process dies of this host signal number (`abort` raising SIGABRT).
    Signal(i32),
    /// The runtime cannot go on (an unsupported call): the message names it
    /// and the guest PC.
    Fatal(String),
}

/// A system the guest program was built for.
pub trait Personality: Send + Sync {
    /// Its name in messages ("Linux", "LV2").
    fn name(&self) -> &'static str;

    /// Prepares the main thread: maps its stack, writes the arguments and
    /// environment the way the system does, sets `r1`, `r2` and the other
    /// registers it defines, and sets `ctx.cia` to the entry point.
    fn start(
        &self,
        process: &Process,
        ctx: &mut PpuContext,
        args: &[OsString],
        env: &[(OsString, OsString)],
    ) -> Result<(), String>;

    /// Handles the `sc` at `pc` (`ctx.cia` is `pc + 4`; the call number and
    /// arguments are in the registers the system defines). `rt` gives the
    /// process (`rt.process`) and runs guest code: `rt.call` for a callback,
    /// `rt.run_until(ctx, None)` on a new host thread for a new guest thread.
    fn syscall(&self, rt: &Rt, ctx: &mut PpuContext, pc: u32) -> Outcome;

    /// The time base `mftb` reads.
    fn timebase(&self) -> TimeBase;

    /// Whether the program may run more than one guest thread. With one,
    /// lifted stores skip guest-mem's reservation notice (a thread's own
    /// stores never break its own reservation).
    fn threads(&self) -> bool {
        true
    }

    /// Control reached `addr`, which is neither lifted code nor inside the
    /// executable's code: an HLE function the personality put there (the
    /// LV2 runtime binds import stubs this way: it writes the address of a
    /// descriptor of its own into each stub's slot). The function runs with
    /// the guest's arguments in r3.., puts its result in r3 and returns to
    /// the guest by setting `ctx.cia` to `ctx.lr`. `None`: not one of its own.
    fn hle_call(&self, rt: &Rt, ctx: &mut PpuContext, addr: u32) -> Option<Outcome> {
        let _ = (rt, ctx, addr);
        None
    }
}
