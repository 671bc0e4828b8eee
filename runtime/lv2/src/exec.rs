//! Running guest code: the [`Executor`] seam (the interpreter here, lifted
//! code in the recompiled build), the per-thread [`GuestThread`], and calls
//! from the runtime into guest functions ([`call_guest`]).

use std::sync::Arc;

use ppu_cpu::{BranchKind, Flow, Hooks, Interpreter, PpuContext, Stop};

use crate::error::Exit;
use crate::layout::{HLE_AREA_SIZE, HLE_CODE_BASE, RETURN_TO_HOST, hle_index};
use crate::process::Process;
use crate::thread::PpuThread;
use crate::vm::Vm;

/// Exit status of a process stopped by a guest memory fault (the status
/// guest-mem's trap handler uses too).
pub const STATUS_GUEST_FAULT: i32 = 77;
/// Exit status of a process stopped by an instruction the interpreter
/// cannot decode.
pub const STATUS_BAD_INSTRUCTION: i32 = 78;
/// Exit status of a process stopped by a trap instruction.
pub const STATUS_TRAP: i32 = 79;

/// One PPU thread as the host thread running it holds it.
pub struct GuestThread {
    /// Its registers.
    pub ctx: PpuContext,
    /// The kernel's record of it.
    pub thread: Arc<PpuThread>,
    /// Its process.
    pub process: Arc<Process>,
}

impl GuestThread {
    /// Argument register `n` (0: r3) as a 32-bit value (a guest address,
    /// an `int`).
    #[inline]
    pub fn arg_u32(&self, n: usize) -> u32 {
        self.ctx.gpr[3 + n] as u32
    }

    /// Argument register `n` (0: r3), all 64 bits.
    #[inline]
    pub fn arg_u64(&self, n: usize) -> u64 {
        self.ctx.gpr[3 + n]
    }

    /// Argument register `n` as a signed 32-bit value.
    #[inline]
    pub fn arg_i32(&self, n: usize) -> i32 {
        self.ctx.gpr[3 + n] as i32
    }

    /// Checked access to guest memory.
    pub fn vm(&self) -> Vm<'_> {
        Vm(self.process.mem)
    }

    /// This thread's identifier.
    pub fn tid(&self) -> u32 {
        self.thread.id
    }

    /// This thread's priority now.
    pub fn prio(&self) -> i32 {
        self.thread.prio()
    }
}

/// Runs guest code for one thread: from `ctx.cia` until the code returns
/// to [`RETURN_TO_HOST`] (the link register the runtime called it with),
/// or the thread or process exits. A system call (`sc`) goes to
/// [`Process::syscall`]; a branch into the HLE area (an import stub's
/// `bctr`) to [`Process::hle_call`], after which the code continues at the
/// link register.
pub trait Executor: Send + Sync {
    /// Runs until the return to [`RETURN_TO_HOST`] (`Ok`) or an exit.
    fn run(&self, t: &mut GuestThread) -> Result<(), Exit>;
}

/// The reference executor: ppu-cpu's interpreter.
#[derive(Debug, Default, Clone, Copy)]
pub struct InterpExecutor;

struct StopAtHle;

impl Hooks for StopAtHle {
    #[inline]
    fn branch(&mut self, _ctx: &PpuContext, _from: u32, to: u32, _kind: BranchKind) -> Flow {
        if to.wrapping_sub(HLE_CODE_BASE) < HLE_AREA_SIZE {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

/// How many instructions run between checks that the process still lives.
const BUDGET: u64 = 1 << 22;

impl Executor for InterpExecutor {
    fn run(&self, t: &mut GuestThread) -> Result<(), Exit> {
        let process = t.process.clone();
        let interp = Interpreter::with_timebase(process.mem, process.timebase());
        loop {
            let exit = interp.run(&mut t.ctx, BUDGET, &mut StopAtHle);
            match exit.stop {
                Stop::Budget => {
                    if process.has_exited() {
                        return Err(Exit::Thread(0));
                    }
                }
                Stop::Syscall { .. } => process.syscall(t)?,
                Stop::Branch { to, .. } => {
                    if to == RETURN_TO_HOST {
                        return Ok(());
                    }
                    match hle_index(to) {
                        Some(index) => {
                            process.hle_call(index, t)?;
                            t.ctx.cia = t.ctx.lr as u32;
                        }
                        None => {
                            return Err(process.guest_error(
                                t,
                                STATUS_GUEST_FAULT,
                                &format!("branch from {:#010x} into the HLE area at {to:#010x}, which holds no function", t.ctx.lr),
                            ));
                        }
                    }
                }
                Stop::Fault(f) => {
                    return Err(process.guest_error(t, STATUS_GUEST_FAULT, &f.to_string()));
                }
                Stop::Decode(e) => {
                    return Err(process.guest_error(t, STATUS_BAD_INSTRUCTION, &e.to_string()));
                }
                Stop::Trap { addr, word } => {
                    return Err(process.guest_error(
                        t,
                        STATUS_TRAP,
                        &format!("trap instruction {word:#010x} at {addr:#010x} (an abort or a failed check in the guest)"),
                    ));
                }
            }
        }
    }
}

/// Calls the guest function whose PS3 descriptor is at `opd` with integer
/// arguments `args` (r3, r4, ...) on thread `t`, below its current stack
/// frame, and returns its r3. The thread's registers are as before the
/// call afterwards. A bad descriptor is reported and ends the process.
pub fn call_guest(t: &mut GuestThread, opd: u32, args: &[u64]) -> Result<u64, Exit> {
    let (code, toc) = match t.vm().read_opd(opd) {
        Ok(d) => d,
        Err(_) => {
            let p = t.process.clone();
            return Err(p.guest_error(
                t,
                STATUS_GUEST_FAULT,
                &format!("callback descriptor {opd:#010x} is not readable guest memory"),
            ));
        }
    };
    let saved = t.ctx.clone();
    // A fresh frame below the caller's: 112 bytes of ABI linkage and
    // parameter save area, 16-byte aligned, its back chain to the caller.
    let sp = (saved.gpr[1].wrapping_sub(256)) & !15;
    let _ = t.vm().write_u64(sp as u32, saved.gpr[1]);
    for (i, a) in args.iter().take(8).enumerate() {
        t.ctx.gpr[3 + i] = *a;
    }
    t.ctx.gpr[1] = sp;
    t.ctx.gpr[2] = u64::from(toc);
    t.ctx.lr = u64::from(RETURN_TO_HOST);
    t.ctx.cia = code;
    let exec = t.process.executor();
    let r = exec.run(t);
    let ret = t.ctx.gpr[3];
    let reservation = t.ctx.reservation;
    t.ctx = saved;
    t.ctx.reservation = reservation;
    r.map(|()| ret)
}
