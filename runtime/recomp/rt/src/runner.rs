//! The `main` of a recompiled program: load, start, run, exit.

use std::ffi::OsString;

use guest_mem::GuestMemory;
use ppu_cpu::PpuContext;
use ppu_elf::Image;

use crate::personality::{Personality, Process};
use crate::rt::{GuestEnd, LiftedFn, Mode, Rt};
use crate::verify::Verifier;

/// Exit status when the runtime stops the guest (unsupported system call,
/// unknown instruction, jump out of the code).
pub const FATAL_EXIT: i32 = 70;
/// Exit status after a guest memory fault (what guest-mem's trap handler uses).
pub const FAULT_EXIT: i32 = 77;
/// Host stack for the guest's main thread (lifted calls nest as deep as
/// the guest's).
pub const GUEST_STACK: usize = 1 << 30;

/// Picks the personality for an executable.
pub type PersonalityFor = fn(&Image) -> Result<Box<dyn Personality>, String>;

/// A recompiled program, as the generated `main` describes it.
#[derive(Debug)]
pub struct Program {
    /// Its name (for messages).
    pub name: &'static str,
    /// The original executable (its segments are loaded from it).
    pub elf: &'static [u8],
    /// The lifted functions, one list per generated crate.
    pub functions: &'static [&'static [(u32, LiftedFn)]],
    /// The personality for this executable.
    pub personality: PersonalityFor,
    /// The lifted code trusts the ABI at calls (`ppu_lift::EmitOptions::abi_trust`):
    /// `--verify` then leaves out the registers the ABI gives no meaning.
    pub abi_trust: bool,
}

/// How the runner was asked to run (runner options come before the guest's
/// arguments; `--` ends them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Lifted, interpreter only, or verified.
    pub mode: Mode,
    /// Print how much ran in the interpreter at the end (`RECOMP_STATS=1`).
    pub stats: bool,
    /// The guest's argv (argv\[0\] is the program's own name).
    pub args: Vec<OsString>,
}

/// The usage text of a recompiled program's own options.
pub const USAGE: &str = "\
runner options (before the program's own arguments; `--` ends them):
  --interp    run on the interpreter only (RECOMP_MODE=interp)
  --verify    run lifted code checked against the interpreter at every
              function entry and system call; the first difference is
              reported with its guest PC (RECOMP_MODE=verify)
  --lifted    the default (RECOMP_MODE=lifted)
  --recomp-stats   print how much ran in the interpreter (RECOMP_STATS=1)
  --recomp-help    this text";

impl Options {
    /// Parses the command line `argv` (argv\[0\] first) and the environment.
    pub fn parse(argv: Vec<OsString>) -> Result<Options, String> {
        let mut mode = match std::env::var("RECOMP_MODE").as_deref() {
            Err(_) | Ok("") | Ok("lifted") => Mode::Lifted,
            Ok("interp") => Mode::Interp,
            Ok("verify") => Mode::Verify,
            Ok(o) => {
                return Err(format!(
                    "RECOMP_MODE={o:?}: expected lifted, interp or verify"
                ));
            }
        };
        let mut stats = std::env::var_os("RECOMP_STATS").is_some_and(|v| v == "1");
        let mut it = argv.into_iter();
        let mut args: Vec<OsString> = it.next().into_iter().collect();
        let mut rest: Vec<OsString> = it.collect();
        let mut k = 0;
        while k < rest.len() {
            match rest[k].to_str() {
                Some("--interp") => mode = Mode::Interp,
                Some("--verify") => mode = Mode::Verify,
                Some("--lifted") => mode = Mode::Lifted,
                Some("--recomp-stats") => stats = true,
                Some("--recomp-help") => return Err(USAGE.to_string()),
                Some("--") => {
                    k += 1;
                    break;
                }
                _ => break,
            }
            k += 1;
        }
        args.extend(rest.drain(k..));
        Ok(Options { mode, stats, args })
    }
}

/// Runs `program` with the process's command line; never returns.
pub fn main(program: &'static Program) -> ! {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .try_init();
    let opts = match Options::parse(std::env::args_os().collect()) {
        Ok(o) => o,
        Err(msg) => {
            eprintln_raw(&msg);
            std::process::exit(2);
        }
    };
    let code = run(program, opts);
    std::process::exit(code)
}

fn eprintln_raw(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// Runs `program` and returns the exit status (or dies of the guest's signal).
pub fn run(program: &'static Program, opts: Options) -> i32 {
    match start(program, &opts) {
        Ok(code) => code,
        Err(msg) => {
            eprintln_raw(&format!("{}: {msg}", program.name));
            FATAL_EXIT
        }
    }
}

fn start(program: &'static Program, opts: &Options) -> Result<i32, String> {
    if cfg!(cellport_fast_helpers) {
        for var in ["CELLPORT_FPU", "CELLPORT_VMX"] {
            if std::env::var_os(var).is_some() {
                log::warn!(
                    "{var} has no effect: this program was built with the helpers' fast forms fixed (rebuild with RECOMP_HELPER_SWITCH=1 to choose at run time)"
                );
            }
        }
    }
    let image =
        Image::parse(program.elf.to_vec()).map_err(|e| format!("embedded executable: {e}"))?;
    let personality = (program.personality)(&image)?;
    let mem: &'static GuestMemory = Box::leak(Box::new(
        GuestMemory::new().map_err(|e| format!("guest memory: {e}"))?,
    ));
    if opts.mode != Mode::Interp {
        crate::ops::supports(mem.mode())?;
    }
    let loaded = image.load(mem).map_err(|e| e.to_string())?;
    let process = Process { image, mem, loaded };
    let mut ctx = PpuContext::new();
    let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    personality.start(&process, &mut ctx, &opts.args, &env)?;
    let verifier = match opts.mode {
        Mode::Verify => Some(Verifier::new(
            mem,
            &ctx,
            personality.timebase(),
            program.abi_trust,
        )?),
        _ => None,
    };
    let functions: Vec<(u32, LiftedFn)> = match opts.mode {
        Mode::Interp => Vec::new(),
        _ => program
            .functions
            .iter()
            .flat_map(|l| l.iter().copied())
            .collect(),
    };
    let mut rt = Rt::new(process, personality, &functions, verifier);
    if opts.stats {
        rt.track_interpreter_sites();
    }
    let rt: &'static Rt = Box::leak(Box::new(rt));
    let stats = opts.stats;
    let name = program.name;
    let guest = std::thread::Builder::new()
        .name("ppu-main".into())
        .stack_size(GUEST_STACK)
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut ctx = ctx;
                // SAFETY: ctx lives on this thread's stack for the rest of
                // the thread's life (the closure never returns normally).
                unsafe { guest_mem::fault::set_pc_slot(&ctx.cia) };
                rt.run_until(&mut ctx, None);
            }));
            match r {
                Ok(()) => GuestEnd::Fatal("the guest's main thread returned to the runtime".into()),
                Err(p) => match p.downcast::<GuestEnd>() {
                    Ok(end) => *end,
                    Err(p) => match p.downcast::<guest_mem::GuestFault>() {
                        Ok(f) => GuestEnd::Fatal(format!("{f}")),
                        Err(p) => std::panic::resume_unwind(p),
                    },
                },
            }
        })
        .map_err(|e| format!("starting the guest thread: {e}"))?;
    let end = guest
        .join()
        .map_err(|_| "the guest thread panicked".to_string())?;
    if stats {
        eprintln_raw(&format!(
            "{name}: interpreter entered {} times, {} instructions interpreted",
            rt.interp_entries.load(std::sync::atomic::Ordering::Relaxed),
            rt.interp_steps.load(std::sync::atomic::Ordering::Relaxed)
        ));
        for (addr, entries, steps) in rt.interpreter_sites(10) {
            eprintln_raw(&format!(
                "{name}:   from {addr:#010x}: {entries} entries, {steps} instructions"
            ));
        }
    }
    if let Some(s) = rt.verify_summary()
        && !matches!(end, GuestEnd::Fatal(_))
    {
        eprintln_raw(&format!("{name}: {s}"));
    }
    Ok(match end {
        GuestEnd::Exit(c) => c & 0xFF,
        GuestEnd::Signal(s) => {
            // SAFETY: restoring the default action and raising the signal
            // the guest died of, so our parent sees the same death.
            unsafe {
                libc::signal(s, libc::SIG_DFL);
                libc::raise(s);
            }
            128 + s
        }
        GuestEnd::Fatal(msg) => {
            eprintln_raw(&format!("{name}: {msg}"));
            if msg.contains("guest memory fault") {
                FAULT_EXIT
            } else {
                FATAL_EXIT
            }
        }
    })
}
