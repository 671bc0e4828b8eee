//! The LV2 personality of recompiled programs (`recomp-rt`'s
//! [`recomp_rt::Personality`]): the generated `main` of a PS3 executable
//! uses [`personality`]. The runner loads the executable; `start` boots
//! the LV2 process in that memory and hands back the main thread's
//! registers; system calls and HLE calls go to the same kernel and modules
//! as on the interpreter.
//!
//! The main thread runs lifted code on the runner's thread. Threads the
//! guest creates, and guest callbacks the modules make (flip handlers,
//! system callbacks), run lifted too when the personality is given the
//! program's function table ([`with_functions`]: a second `Rt` over the same
//! memory, [`RtExecutor`]); with [`personality`] alone (all a generated
//! `main` can pass today) they run on the interpreter.

use std::cell::RefCell;
use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex, OnceLock};

use lv2::layout::{RETURN_TO_HOST, hle_index};
use lv2::sync::lock;
use lv2::thread::PpuThread;
use lv2::{BootConfig, Executor, Exit, ExitPolicy, GuestThread, InterpExecutor, Process};
use platform::Platform;
use platform::host::HostPlatform;
use ppu_cpu::{PpuContext, TimeBase};
use recomp_rt::{GuestEnd, LiftedFn, Outcome, Personality, Rt};

use crate::{HleRuntime, HostHooks};

/// A recompiled program's lifted functions, as its `Program` lists them.
pub type Functions = &'static [&'static [(u32, LiftedFn)]];

/// The personality for a PS3 executable (what a recompiled program's
/// `main` asks for): the host platform, no frame sink, threads on the
/// interpreter.
pub fn personality(_image: &ppu_elf::Image) -> Result<Box<dyn Personality>, String> {
    Ok(Box::new(Lv2Personality::new(
        Arc::new(HostPlatform::default()),
        HostHooks::default(),
        None,
    )))
}

/// As [`personality`], with the program's lifted functions, so that every
/// thread and callback runs lifted code.
pub fn with_functions(functions: Functions) -> Box<dyn Personality> {
    Box::new(
        Lv2Personality::new(
            Arc::new(HostPlatform::default()),
            HostHooks::default(),
            None,
        )
        .with_functions(functions),
    )
}

/// Called once the process has booted (an embedder keeps the handles:
/// to post system events, read the exit status).
pub type OnStart = Box<dyn FnOnce(&Arc<Process>, &Arc<HleRuntime>) + Send + Sync>;

struct Started {
    process: Arc<Process>,
}

/// How a lifted guest thread's code ends when the thread or the process
/// exits in the middle of it (`sys_ppu_thread_exit`, `exit`, a guest
/// error found by LV2 or a module).
///
/// recomp-rt ends guest code by unwinding the host stack to whoever runs
/// it, which needs `panic = "unwind"`. The PS5 payload is built with
/// `panic = "abort"`, where unwinding aborts the process; there the thread
/// parks instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuestExit {
    /// Unwinds to the thread's executor (or to recomp-rt's runner), which
    /// returns the exit to LV2.
    Unwind,
    /// Never unwinds: the end is recorded with LV2 right where it happens,
    /// as the interpreter's executor records it when it returns
    /// ([`lv2::thread::finish_guest_thread`]: joiners woken, the thread's
    /// TLS and stack freed, or the process's status recorded for
    /// [`Process::wait`]), and the host thread then parks for good (its
    /// host stack stays reserved). The embedder reads the status with
    /// `Process::wait` and ends the host process when it is done.
    Park,
}

impl Default for GuestExit {
    /// [`GuestExit::Unwind`] where the build can unwind, else
    /// [`GuestExit::Park`].
    fn default() -> Self {
        if cfg!(panic = "unwind") {
            GuestExit::Unwind
        } else {
            GuestExit::Park
        }
    }
}

/// Parks the calling host thread for good (see [`GuestExit::Park`]).
fn park_forever(what: &str) -> ! {
    log::debug!("{what}: the host thread parks (GuestExit::Park)");
    loop {
        std::thread::park();
    }
}

/// What both the runner's personality and the thread runtime's share.
#[derive(Default)]
struct Core {
    started: OnceLock<Started>,
    exit: GuestExit,
}

thread_local! {
    /// The PPU thread the current host thread runs (the main thread when
    /// unset: the runner's own thread).
    static CURRENT: RefCell<Option<Arc<PpuThread>>> = const { RefCell::new(None) };
}

/// Unwinds a lifted thread to its [`RtExecutor`] (`sys_ppu_thread_exit`).
struct ThreadExit(u64);

impl Core {
    fn started(&self) -> &Started {
        self.started.get().expect("the runner calls start first")
    }

    /// Runs `f` on a [`GuestThread`] holding a copy of `ctx`, then copies
    /// the registers back.
    fn on_thread(
        &self,
        ctx: &mut PpuContext,
        f: impl FnOnce(&Arc<Process>, &mut GuestThread) -> Result<(), Exit>,
    ) -> Outcome {
        let s = self.started();
        let thread = CURRENT
            .with(|c| c.borrow().clone())
            .unwrap_or_else(|| s.process.main_thread());
        let is_main = thread.is_main;
        let mut t = GuestThread {
            ctx: ctx.clone(),
            thread,
            process: s.process.clone(),
        };
        let r = f(&s.process, &mut t);
        if let (Err(e), GuestExit::Park) = (&r, self.exit) {
            let what = format!("PPU thread {:#x} ended ({e:?})", t.thread.id);
            lv2::thread::finish_guest_thread(&mut t, r);
            park_forever(&what);
        }
        *ctx = t.ctx;
        match r {
            Ok(()) => Outcome::Continue,
            Err(Exit::Process(status)) => {
                s.process.exit(status);
                Outcome::Exit(status)
            }
            // The main thread leaving with sys_ppu_thread_exit ends the
            // process (nothing else runs it); so does another thread's exit.
            Err(Exit::Thread(_)) if is_main => Outcome::Exit(s.process.exit_status().unwrap_or(0)),
            // Another thread unwinds to its executor.
            Err(Exit::Thread(v)) => resume_unwind(Box::new(ThreadExit(v))),
        }
    }

    fn syscall(&self, ctx: &mut PpuContext) -> Outcome {
        self.on_thread(ctx, |p, t| p.syscall(t))
    }

    fn hle_call(&self, ctx: &mut PpuContext, addr: u32) -> Option<Outcome> {
        if addr == RETURN_TO_HOST {
            // The main thread's entry returned: exit(r3).
            let status = ctx.gpr[3] as i32;
            self.started().process.exit(status);
            if self.exit == GuestExit::Park {
                park_forever("the main thread returned");
            }
            return Some(Outcome::Exit(status));
        }
        let index = hle_index(addr)?;
        Some(self.on_thread(ctx, |p, t| {
            p.hle_call(index, t)?;
            t.ctx.cia = t.ctx.lr as u32;
            Ok(())
        }))
    }

    fn timebase(&self) -> TimeBase {
        self.started
            .get()
            .map(|s| s.process.timebase())
            .unwrap_or_default()
    }
}

/// LV2 and the HLE modules as a recompiled program's personality.
pub struct Lv2Personality {
    core: Arc<Core>,
    platform: Arc<dyn Platform>,
    hooks: Mutex<Option<HostHooks>>,
    on_start: Mutex<Option<OnStart>>,
    fs_root: Option<std::path::PathBuf>,
    functions: Option<Functions>,
}

impl Lv2Personality {
    /// A personality on `platform` with the host's `hooks` (frame sink,
    /// pad script); `on_start` gets the process once it has booted.
    pub fn new(
        platform: Arc<dyn Platform>,
        hooks: HostHooks,
        on_start: Option<OnStart>,
    ) -> Lv2Personality {
        Lv2Personality {
            core: Arc::default(),
            platform,
            hooks: Mutex::new(Some(hooks)),
            on_start: Mutex::new(on_start),
            fs_root: None,
            functions: None,
        }
    }

    /// The guest's file-system root (instead of `CELLPORT_FS_ROOT`).
    pub fn with_fs_root(mut self, root: std::path::PathBuf) -> Lv2Personality {
        self.fs_root = Some(root);
        self
    }

    /// The program's lifted functions: threads and callbacks run them.
    pub fn with_functions(mut self, functions: Functions) -> Lv2Personality {
        self.functions = Some(functions);
        self
    }

    /// How guest code ends (default: [`GuestExit::default`]). Under
    /// recomp-rt's runner only [`GuestExit::Unwind`] lets the runner
    /// return.
    pub fn with_guest_exit(mut self, exit: GuestExit) -> Lv2Personality {
        Arc::get_mut(&mut self.core)
            .expect("set before the personality is used")
            .exit = exit;
        self
    }
}

impl Personality for Lv2Personality {
    fn name(&self) -> &'static str {
        "LV2"
    }

    fn start(
        &self,
        process: &recomp_rt::Process,
        ctx: &mut PpuContext,
        args: &[OsString],
        env: &[(OsString, OsString)],
    ) -> Result<(), String> {
        let hooks = lock(&self.hooks).take().unwrap_or_default();
        let hle = HleRuntime::new(hooks);
        let mut argv = vec!["/app_home/EBOOT.BIN".to_owned()];
        argv.extend(
            args.iter()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned()),
        );
        let fs_root = match &self.fs_root {
            Some(r) => r.clone(),
            None => env
                .iter()
                .find(|(k, _)| k == "CELLPORT_FS_ROOT")
                .map(|(_, v)| v.into())
                .unwrap_or_else(|| "ps3-fs".into()),
        };
        let config = BootConfig {
            args: argv,
            env: Vec::new(),
            fs_root,
            // The runner ends the host process with the status we return.
            exit_policy: ExitPolicy::Record,
        };
        let exec: Arc<dyn Executor> = match self.functions {
            Some(functions) => Arc::new(RtExecutor {
                rt: OnceLock::new(),
                parts: Mutex::new(Some((
                    process.image.clone(),
                    process.mem,
                    process.loaded.clone(),
                    functions,
                ))),
                core: self.core.clone(),
            }),
            None => Arc::new(InterpExecutor),
        };
        let p = Process::boot_loaded(
            &process.image,
            process.mem,
            &process.loaded,
            self.platform.clone(),
            exec,
            hle.clone(),
            config,
        )
        .map_err(|e| e.to_string())?;
        hle.attach(&p);
        *ctx = p.take_main_context().ok_or("the main thread was taken")?;
        if let Some(f) = lock(&self.on_start).take() {
            f(&p, &hle);
        }
        self.core
            .started
            .set(Started { process: p })
            .map_err(|_| "started twice".to_string())
    }

    fn syscall(&self, _rt: &Rt, ctx: &mut PpuContext, _pc: u32) -> Outcome {
        self.core.syscall(ctx)
    }

    fn timebase(&self) -> TimeBase {
        self.core.timebase()
    }

    fn hle_call(&self, _rt: &Rt, ctx: &mut PpuContext, addr: u32) -> Option<Outcome> {
        self.core.hle_call(ctx, addr)
    }
}

/// The personality of the thread runtime (it forwards to the same core).
struct Forward(Arc<Core>);

impl Personality for Forward {
    fn name(&self) -> &'static str {
        "LV2 (threads)"
    }
    fn start(
        &self,
        _: &recomp_rt::Process,
        _: &mut PpuContext,
        _: &[OsString],
        _: &[(OsString, OsString)],
    ) -> Result<(), String> {
        Err("the thread runtime starts no process".into())
    }
    fn syscall(&self, _rt: &Rt, ctx: &mut PpuContext, _pc: u32) -> Outcome {
        self.0.syscall(ctx)
    }
    fn timebase(&self) -> TimeBase {
        self.0.timebase()
    }
    fn hle_call(&self, _rt: &Rt, ctx: &mut PpuContext, addr: u32) -> Option<Outcome> {
        self.0.hle_call(ctx, addr)
    }
}

type RtParts = (
    ppu_elf::Image,
    &'static guest_mem::GuestMemory,
    ppu_elf::Loaded,
    Functions,
);

/// Runs guest threads and callbacks on lifted code: a `recomp-rt` runtime
/// of its own over the process's memory (made on first use, once the
/// process and its time base exist), whose personality forwards to the
/// LV2 one. Exits unwind to here ([`GuestExit::Unwind`]: recomp-rt ends
/// guests by unwinding) or park where they happen ([`GuestExit::Park`]).
pub struct RtExecutor {
    rt: OnceLock<&'static Rt>,
    parts: Mutex<Option<RtParts>>,
    core: Arc<Core>,
}

/// A lifted process started by [`crate::runner::start_lifted`]: its
/// executor, to ask how much ran on the interpreter.
pub struct LiftedProcess {
    exec: Arc<RtExecutor>,
}

impl LiftedProcess {
    /// Entries into the interpreter and instructions it ran, over every
    /// thread and callback so far (0 when everything ran lifted).
    pub fn interpreted(&self) -> (u64, u64) {
        match self.exec.rt.get() {
            Some(rt) => (
                rt.interp_entries.load(std::sync::atomic::Ordering::Relaxed),
                rt.interp_steps.load(std::sync::atomic::Ordering::Relaxed),
            ),
            None => (0, 0),
        }
    }
}

/// Boots a loaded PS3 executable whose every thread (the main thread too)
/// and callback runs `functions` on one recomp-rt runtime, with LV2 and
/// the HLE modules behind it; the main thread is not started (see
/// [`Process::start_main`]). `crate::runner::start_lifted` is the usual
/// way in.
pub(crate) fn boot_lifted(
    image: &ppu_elf::Image,
    mem: &'static guest_mem::GuestMemory,
    loaded: &ppu_elf::Loaded,
    functions: Functions,
    exit: GuestExit,
    platform: Arc<dyn Platform>,
    hle: Arc<HleRuntime>,
    config: BootConfig,
) -> Result<(Arc<Process>, LiftedProcess), String> {
    let core = Arc::new(Core {
        started: OnceLock::new(),
        exit,
    });
    let exec = Arc::new(RtExecutor {
        rt: OnceLock::new(),
        parts: Mutex::new(Some((image.clone(), mem, loaded.clone(), functions))),
        core: core.clone(),
    });
    let p = Process::boot_loaded(
        image,
        mem,
        loaded,
        platform,
        exec.clone(),
        hle.clone(),
        config,
    )
    .map_err(|e| e.to_string())?;
    hle.attach(&p);
    core.started
        .set(Started { process: p.clone() })
        .map_err(|_| "started twice".to_string())?;
    // The runtime now, so that it reads the process's time base.
    exec.rt();
    Ok((p, LiftedProcess { exec }))
}

impl RtExecutor {
    fn rt(&self) -> &'static Rt {
        self.rt.get_or_init(|| {
            let (image, mem, loaded, functions) = lock(&self.parts).take().expect("made once");
            let table: Vec<(u32, LiftedFn)> =
                functions.iter().flat_map(|l| l.iter().copied()).collect();
            let process = recomp_rt::Process { image, mem, loaded };
            let rt: &'static Rt = Box::leak(Box::new(Rt::new(
                process,
                Box::new(Forward(self.core.clone())),
                &table,
                None,
            )));
            if let Some(s) = self.core.started.get() {
                s.process.at_exit(Box::new(move || {
                    log::info!(
                        "threads and callbacks: interpreter entered {} times, {} instructions interpreted",
                        rt.interp_entries.load(std::sync::atomic::Ordering::Relaxed),
                        rt.interp_steps.load(std::sync::atomic::Ordering::Relaxed)
                    );
                }));
            }
            rt
        })
    }
}

impl Executor for RtExecutor {
    fn run(&self, t: &mut GuestThread) -> Result<(), Exit> {
        let rt = self.rt();
        let previous = CURRENT.with(|c| c.replace(Some(t.thread.clone())));
        let sp = t.ctx.gpr[1];
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.run_until(&mut t.ctx, Some((RETURN_TO_HOST, sp)))
        }));
        CURRENT.with(|c| *c.borrow_mut() = previous);
        let payload = match r {
            Ok(()) => return Ok(()),
            Err(p) => p,
        };
        let payload = match payload.downcast::<ThreadExit>() {
            Ok(v) => return Err(Exit::Thread(v.0)),
            Err(p) => p,
        };
        let payload = match payload.downcast::<GuestEnd>() {
            Ok(end) => {
                return Err(match *end {
                    GuestEnd::Exit(status) => Exit::Process(status),
                    GuestEnd::Signal(s) => Exit::Process(128 + s),
                    GuestEnd::Fatal(msg) => {
                        let status = if msg.contains("guest memory fault") {
                            lv2::exec::STATUS_GUEST_FAULT
                        } else {
                            70
                        };
                        t.process.guest_error(t, status, &msg)
                    }
                });
            }
            Err(p) => p,
        };
        match payload.downcast::<guest_mem::GuestFault>() {
            Ok(f) => Err(t
                .process
                .guest_error(t, lv2::exec::STATUS_GUEST_FAULT, &f.to_string())),
            Err(p) => resume_unwind(p),
        }
    }
}
