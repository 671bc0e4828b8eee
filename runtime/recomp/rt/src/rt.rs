//! [`Rt`]: what lifted code calls into. Dispatch between lifted functions
//! and the interpreter, system calls, and the end of the guest.
//!
//! ## How control moves
//!
//! A lifted function is entered at its first instruction with `ctx.lr`
//! holding its return address. It returns (to its Rust caller) when the
//! guest returns (`blr`): `ctx.cia` then holds where the guest goes on. The
//! caller checks that this is the continuation it expects (the address
//! after its `bl`, with `r1` unchanged); when it is not (a `longjmp`, code
//! that rewrites its return address), the caller returns too, and so on up
//! the Rust stack until a frame whose continuation it is, or the top-level
//! loop, which goes on at `ctx.cia` in the interpreter.
//!
//! Code the lifter could not resolve (an indirect jump it has no table for,
//! an indirect call to an address that is no lifted function) runs in the
//! interpreter until the function it is in returns; the interpreter calls
//! lifted functions whenever it branches to one.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use guest_mem::GuestMemory;
use ppu_cpu::{BranchKind, Flow, Hooks, Interpreter, PpuContext, Stop, TimeBase};

use crate::personality::{Outcome, Personality, Process};
use crate::verify::Verifier;

/// A lifted guest function.
pub type LiftedFn = fn(&mut PpuContext, &Rt);

/// How guest code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Lifted code, the interpreter behind what was not lifted (the default).
    Lifted,
    /// The interpreter only.
    Interp,
    /// Lifted code, checked at every function entry and system call
    /// against the interpreter running the same program on a copy of
    /// memory.
    Verify,
}

/// Why the guest ended; carried by unwinding to the runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuestEnd {
    /// Exit status.
    Exit(i32),
    /// Killed by this signal.
    Signal(i32),
    /// The runtime stopped it; the message says why and where.
    Fatal(String),
}

/// Instructions the interpreter runs between checks of its budget.
const SLICE: u64 = 1 << 20;

/// The runtime one program's lifted code runs against.
pub struct Rt {
    mem: &'static GuestMemory,
    /// The loaded program.
    pub process: Process,
    personality: Box<dyn Personality>,
    interp: Interpreter<'static>,
    /// The time base `mftb` reads.
    pub timebase: TimeBase,
    code_base: u32,
    table: Box<[Option<LiftedFn>]>,
    code_ranges: Vec<(u32, u32)>,
    /// Whether lifted function entries report to the verifier.
    pub verify_on: bool,
    view: crate::ops::Mem,
    verifier: Option<Mutex<Verifier>>,
    /// Entries into the interpreter from lifted code or the top level.
    pub interp_entries: AtomicU64,
    /// Instructions the interpreter ran.
    pub interp_steps: AtomicU64,
    /// Per guest address where the interpreter was entered: (entries,
    /// instructions), kept only after [`Rt::track_interpreter_sites`].
    interp_sites: Option<Mutex<HashMap<u32, (u64, u64)>>>,
}

impl std::fmt::Debug for Rt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rt")
            .field("personality", &self.personality.name())
            .finish_non_exhaustive()
    }
}

impl Rt {
    /// A runtime over a loaded `process`, with `functions` (entry address,
    /// lifted function) in its dispatch table.
    ///
    /// # Panics
    /// With lifted functions, when guest memory is in a mode lifted code
    /// built this way cannot run on ([`crate::ops::supports`]; runners
    /// check first and report it as an error).
    pub fn new(
        process: Process,
        personality: Box<dyn Personality>,
        functions: &[(u32, LiftedFn)],
        verifier: Option<Verifier>,
    ) -> Rt {
        let code_ranges = process.image.code_ranges();
        let code_base = code_ranges.first().map(|r| r.0).unwrap_or(0);
        let code_end = code_ranges.last().map(|r| r.1).unwrap_or(0);
        let mut table = vec![None; ((code_end - code_base) / 4) as usize].into_boxed_slice();
        for &(addr, f) in functions {
            if let Some(slot) = addr
                .checked_sub(code_base)
                .and_then(|o| table.get_mut((o / 4) as usize))
            {
                *slot = Some(f);
            }
        }
        let timebase = personality.timebase();
        let threads = personality.threads();
        let mem = process.mem;
        if !functions.is_empty()
            && let Err(e) = crate::ops::supports(mem.mode())
        {
            panic!("{e}");
        }
        Rt {
            mem,
            process,
            personality,
            interp: Interpreter::with_timebase(mem, timebase),
            timebase,
            code_base,
            table,
            code_ranges,
            verify_on: verifier.is_some(),
            view: crate::ops::Mem::new(
                mem,
                std::env::var_os("RECOMP_STACK_CHECKS").is_none_or(|v| v == "0"),
                threads,
            ),
            verifier: verifier.map(Mutex::new),
            interp_entries: AtomicU64::new(0),
            interp_steps: AtomicU64::new(0),
            interp_sites: None,
        }
    }

    /// Keeps, per guest address, how often and how long the interpreter
    /// ran from there (for `--recomp-stats`: where lifted code falls back).
    pub fn track_interpreter_sites(&mut self) {
        self.interp_sites = Some(Mutex::new(HashMap::new()));
    }

    /// The `n` addresses where the interpreter ran the most instructions:
    /// (address, entries, instructions), most first.
    pub fn interpreter_sites(&self, n: usize) -> Vec<(u32, u64, u64)> {
        let Some(m) = &self.interp_sites else {
            return Vec::new();
        };
        let m = m.lock().unwrap_or_else(|e| e.into_inner());
        let mut v: Vec<(u32, u64, u64)> = m.iter().map(|(&a, &(e, s))| (a, e, s)).collect();
        v.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    /// Guest memory.
    #[inline(always)]
    pub fn mem(&self) -> &'static GuestMemory {
        self.mem
    }

    /// The accessor view lifted code keeps in registers.
    #[inline(always)]
    pub fn view(&self) -> crate::ops::Mem {
        self.view
    }

    /// The personality.
    pub fn personality(&self) -> &dyn Personality {
        &*self.personality
    }

    /// The lifted function whose entry is `addr`.
    #[inline]
    pub fn lookup(&self, addr: u32) -> Option<LiftedFn> {
        if addr & 3 != 0 {
            return None;
        }
        let i = addr.wrapping_sub(self.code_base) >> 2;
        self.table.get(i as usize).copied().flatten()
    }

    fn in_code(&self, addr: u32) -> bool {
        self.code_ranges.iter().any(|&(a, b)| addr >= a && addr < b)
    }

    /// Ends the guest (unwinds to the runner).
    #[cold]
    pub fn end(&self, why: GuestEnd) -> ! {
        std::panic::resume_unwind(Box::new(why))
    }

    /// Ends the guest with a message. Where panics abort (the PS5
    /// payload), nothing catches the unwind that carries it, so the message
    /// is logged first.
    #[cold]
    pub fn fatal(&self, msg: String) -> ! {
        if cfg!(panic = "abort") {
            log::error!("guest ended: {msg}");
        }
        self.end(GuestEnd::Fatal(msg))
    }

    // ------------------------------------------------------------ calls --

    /// An indirect call (or tail call) to `target` from lifted code:
    /// `ctx.lr` holds the return address. A lifted function is called
    /// directly; anything else runs in the interpreter until it returns.
    #[inline]
    pub fn call(&self, ctx: &mut PpuContext, target: u32) {
        ctx.cia = target;
        match self.lookup(target) {
            Some(f) => f(ctx, self),
            None => {
                if self.verify_on {
                    self.verify_interpreted_call(ctx, target);
                }
                let ret = (ctx.lr as u32) & !3;
                let sp = ctx.gpr[1];
                self.run(ctx, Some((ret, sp)), false);
            }
        }
    }

    /// `--verify` at a call into a function that is not lifted: the
    /// interpreter is about to run it on the lifted side, from a context
    /// whose volatile registers lifted code trusting the ABI left stale
    /// (a `mfcr` there would store stale CR bits, which the shadow does
    /// not have). The volatile CR bits, which the ABI gives no meaning
    /// here, are cleared as the verifier clears the shadow's, and the
    /// states are checked as at a lifted function's entry.
    #[cold]
    #[inline(never)]
    fn verify_interpreted_call(&self, ctx: &mut PpuContext, target: u32) {
        let abi = self
            .verifier
            .as_ref()
            .is_some_and(|v| v.lock().unwrap_or_else(|e| e.into_inner()).abi());
        if abi {
            for (bit, b) in ctx.cr.iter_mut().enumerate() {
                if !(8..20).contains(&bit) {
                    *b = 0;
                }
            }
        }
        self.verify_enter(ctx, target);
    }

    /// Goes on at `ctx.cia` in the interpreter until the current lifted
    /// function returns: to `entry_lr` with `r1` back at `entry_sp` (what
    /// they were when it was entered).
    #[cold]
    pub fn interpret_rest(&self, ctx: &mut PpuContext, entry_lr: u64, entry_sp: u64) {
        // The instruction at ctx.cia is one lifted code could not run: the
        // interpreter takes it even where a lifted function starts there.
        self.run(ctx, Some(((entry_lr as u32) & !3, entry_sp)), true);
    }

    /// Goes on at `ctx.cia`, the target of a jump lifted code could not
    /// resolve (a `bctr` through a pointer: PLT call stubs, computed
    /// gotos), until the current lifted function returns to `entry_lr`
    /// with `r1` back at `entry_sp`. Unlike [`Rt::interpret_rest`] a lifted
    /// function at the target runs lifted: a stub's jump to `memcmp` is
    /// then a tail call, not a trip through the interpreter.
    pub fn jump_rest(&self, ctx: &mut PpuContext, entry_lr: u64, entry_sp: u64) {
        self.run(ctx, Some(((entry_lr as u32) & !3, entry_sp)), false);
    }

    /// Runs from `ctx.cia` until the guest returns to `until.0` with `r1`
    /// equal to `until.1` (or unwinds past that frame); with `None`, for
    /// ever (the guest ends by unwinding).
    pub fn run_until(&self, ctx: &mut PpuContext, until: Option<(u32, u64)>) {
        self.run(ctx, until, false)
    }

    fn run(&self, ctx: &mut PpuContext, until: Option<(u32, u64)>, mut interpret_first: bool) {
        loop {
            if let Some((ret, sp)) = until
                && !interpret_first
                && ((ctx.cia == ret && ctx.gpr[1] == sp) || ctx.gpr[1] > sp)
            {
                return;
            }
            if !interpret_first && let Some(f) = self.lookup(ctx.cia) {
                f(ctx, self);
                continue;
            }
            if !self.in_code(ctx.cia) {
                let at = ctx.cia;
                if let Some(v) = &self.verifier {
                    let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
                    if let Err(msg) = v.before_hle_call(self.mem, ctx, at) {
                        self.fatal(msg);
                    }
                }
                match self.personality.hle_call(self, ctx, at) {
                    Some(o) => {
                        if let Some(v) = &self.verifier
                            && o == Outcome::Continue
                        {
                            let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
                            v.after_syscall(self.mem, ctx);
                        }
                        self.outcome(o);
                        interpret_first = false;
                        continue;
                    }
                    None => self.fatal(format!(
                        "guest jumped to {at:#010x}, which is outside the executable's code (lr {:#x}, r1 {:#x})",
                        ctx.lr, ctx.gpr[1]
                    )),
                }
            }
            self.interp_entries.fetch_add(1, Ordering::Relaxed);
            interpret_first = false;
            let mut hooks = Stops { rt: self, until };
            let from = ctx.cia;
            let exit = self.interp.run(ctx, SLICE, &mut hooks);
            self.interp_steps.fetch_add(exit.steps, Ordering::Relaxed);
            if let Some(m) = &self.interp_sites {
                let mut m = m.lock().unwrap_or_else(|e| e.into_inner());
                let e = m.entry(from).or_default();
                e.0 += 1;
                e.1 += exit.steps;
            }
            match exit.stop {
                Stop::Branch { .. } | Stop::Budget => {}
                Stop::Syscall { addr } => self.syscall(ctx, addr),
                Stop::Fault(f) => self.fatal(f.to_string()),
                Stop::Decode(e) => self.fatal(e.to_string()),
                Stop::Trap { addr, word } => self.trap(addr, word),
            }
        }
    }

    /// The guest hit a trap instruction whose condition held.
    #[cold]
    pub fn trap(&self, pc: u32, word: u32) -> ! {
        self.fatal(format!(
            "guest trap (word {word:#010x}) at guest pc {pc:#010x}: the program aborted"
        ))
    }

    /// A guest memory fault in lifted code at `pc` (reservation and cache
    /// operations, which report faults as values).
    #[cold]
    pub fn fault(&self, pc: u32, mut f: guest_mem::GuestFault) -> ! {
        f.pc = Some(pc);
        self.fatal(f.to_string())
    }

    /// An instruction word the lifter could not decode was reached.
    #[cold]
    pub fn unknown_instruction(&self, ctx: &mut PpuContext, pc: u32) -> ! {
        ctx.cia = pc;
        let word = self.mem.fetch_u32(pc).unwrap_or(0);
        match ppu_isa::decode_at(pc, word) {
            Err(e) => self.fatal(e.to_string()),
            Ok(_) => self.fatal(format!(
                "lifter could not translate the instruction at {pc:#010x} (word {word:#010x})"
            )),
        }
    }

    /// Runs the one instruction `word` at `pc` through the interpreter (the
    /// lifter does this for rare instructions it does not translate inline).
    #[inline(never)]
    pub fn exec_one(&self, ctx: &mut PpuContext, pc: u32, word: u32) {
        ctx.cia = pc;
        let i = match ppu_isa::decode_at(pc, word) {
            Ok(i) => i,
            Err(e) => self.fatal(e.to_string()),
        };
        match self.interp.exec_instr(ctx, i) {
            Ok(_) => ctx.cia = pc.wrapping_add(4),
            Err(Stop::Fault(f)) => self.fatal(f.to_string()),
            Err(Stop::Trap { addr, word }) => self.trap(addr, word),
            Err(other) => self.fatal(format!("at {pc:#010x}: {other}")),
        }
    }

    // ---------------------------------------------------- system calls --

    /// The `sc` at `pc` (`ctx.cia` must be `pc + 4`).
    pub fn syscall(&self, ctx: &mut PpuContext, pc: u32) {
        if let Some(v) = &self.verifier {
            let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(msg) = v.before_syscall(self.mem, ctx, pc) {
                self.fatal(msg);
            }
        }
        let o = self.personality.syscall(self, ctx, pc);
        if let Some(v) = &self.verifier
            && o == Outcome::Continue
        {
            let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
            v.after_syscall(self.mem, ctx);
        }
        self.outcome(o);
    }

    fn outcome(&self, o: Outcome) {
        match o {
            Outcome::Continue => {}
            Outcome::Exit(c) => self.end(GuestEnd::Exit(c)),
            Outcome::Signal(s) => self.end(GuestEnd::Signal(s)),
            Outcome::Fatal(m) => self.fatal(m),
        }
    }

    // ------------------------------------------------------------ verify --

    /// A lifted function at `addr` was entered (called by lifted code when
    /// [`Rt::verify_on`]): the interpreter catches up and the states are
    /// compared.
    #[cold]
    #[inline(never)]
    pub fn verify_enter(&self, ctx: &PpuContext, addr: u32) {
        if let Some(v) = &self.verifier {
            let mut v = v.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(msg) = v.at_entry(self.mem, ctx, addr) {
                self.fatal(msg);
            }
        }
    }

    /// A summary of the verifier's work, when verifying.
    pub fn verify_summary(&self) -> Option<String> {
        self.verifier
            .as_ref()
            .map(|v| v.lock().unwrap_or_else(|e| e.into_inner()).summary())
    }
}

/// The interpreter's stops while lifted code is available: at every branch
/// to a lifted function, at the awaited return, when the frame being run
/// was unwound, and at jumps out of the executable's code.
struct Stops<'a> {
    rt: &'a Rt,
    until: Option<(u32, u64)>,
}

impl Hooks for Stops<'_> {
    #[inline]
    fn branch(&mut self, ctx: &PpuContext, _from: u32, to: u32, kind: BranchKind) -> Flow {
        if self.rt.lookup(to).is_some() {
            return Flow::Stop;
        }
        if let Some((ret, sp)) = self.until
            && ((kind == BranchKind::Return && to == ret && ctx.gpr[1] == sp) || ctx.gpr[1] > sp)
        {
            return Flow::Stop;
        }
        if !self.rt.in_code(to) {
            return Flow::Stop;
        }
        Flow::Continue
    }
}
