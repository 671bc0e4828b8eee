//! Booting and running a PS3 executable: the guest memory, the kernel, the
//! modules, the main thread. [`start`] runs it on the interpreter (or the
//! executor given); [`start_lifted`] runs its lifted code, every thread on
//! it, without recomp-rt's runner (the embedding a title uses: host-sim,
//! the PS5 payload).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lv2::{BootConfig, Executor, ExitPolicy, InterpExecutor, Process};
use platform::Platform;

use crate::{HleRuntime, HostHooks};

/// How to run an executable.
pub struct RunOptions {
    /// The guest's argv after argv[0].
    pub args: Vec<String>,
    /// The guest's environment.
    pub env: Vec<String>,
    /// The sandbox folder for the guest's files (`CELLPORT_FS_ROOT`, else
    /// `ps3-fs` in the working directory).
    pub fs_root: PathBuf,
    /// What the guest's exit does.
    pub exit_policy: ExitPolicy,
    /// What runs guest code (the interpreter unless lifted code is given).
    pub executor: Arc<dyn Executor>,
    /// Frame sink and pad script.
    pub hooks: HostHooks,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            args: Vec::new(),
            env: Vec::new(),
            fs_root: std::env::var_os("CELLPORT_FS_ROOT")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("ps3-fs")),
            exit_policy: ExitPolicy::ExitHost,
            executor: Arc::new(InterpExecutor),
            hooks: HostHooks::default(),
        }
    }
}

/// Loads `elf` (named `name` in messages) and starts its main thread;
/// returns the process and its modules.
pub fn start(
    name: &Path,
    elf: Vec<u8>,
    platform: Arc<dyn Platform>,
    opts: RunOptions,
) -> Result<(Arc<Process>, Arc<HleRuntime>), String> {
    let hle = HleRuntime::new(opts.hooks);
    let mut args = vec!["/app_home/EBOOT.BIN".to_owned()];
    args.extend(opts.args);
    let config = BootConfig {
        args,
        env: opts.env,
        fs_root: opts.fs_root,
        exit_policy: opts.exit_policy,
    };
    let process = Process::boot(elf, platform, opts.executor, hle.clone(), config)
        .map_err(|e| format!("{}: {e}", name.display()))?;
    hle.attach(&process);
    log::info!(
        "{}: {} HLE functions available",
        name.display(),
        hle.implemented()
    );
    process
        .start_main()
        .map_err(|e| format!("{}: starting the main thread: {e}", name.display()))?;
    Ok((process, hle))
}

/// Runs the executable at `path` to its end and returns its exit status.
pub fn run_file(path: &Path, platform: Arc<dyn Platform>, opts: RunOptions) -> Result<i32, String> {
    let elf = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (process, _hle) = start(path, elf, platform, opts)?;
    Ok(process.wait())
}

/// Loads `elf` (named `name` in messages) into guest memory made through
/// `platform` (its `VirtualMemory`: on the PS5 the console's own
/// reservation), and starts its main thread on lifted code: `functions`
/// (a recompiled program's `Program::functions`) run the main thread, every
/// thread the guest creates and every callback, with the interpreter behind
/// whatever was not lifted. `opts.executor` is not used. `exit` says how
/// guest code ends ([`crate::personality::GuestExit`]: unwinding, or parking
/// where the build cannot unwind). Returns the process, its modules and
/// the lifted runtime's counters.
pub fn start_lifted(
    name: &Path,
    elf: Vec<u8>,
    functions: crate::personality::Functions,
    exit: crate::personality::GuestExit,
    platform: Arc<dyn Platform>,
    opts: RunOptions,
) -> Result<
    (
        Arc<Process>,
        Arc<HleRuntime>,
        crate::personality::LiftedProcess,
    ),
    String,
> {
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", name.display());
    let image = ppu_elf::Image::parse(elf).map_err(|e| at(&e))?;
    let mem: &'static guest_mem::GuestMemory = Box::leak(Box::new(
        lv2::process::new_memory(&*platform).map_err(|e| at(&format!("guest memory: {e}")))?,
    ));
    recomp_rt::ops::supports(mem.mode()).map_err(|e| at(&e))?;
    let loaded = image.load(mem).map_err(|e| at(&e))?;
    let hle = HleRuntime::new(opts.hooks);
    let mut args = vec!["/app_home/EBOOT.BIN".to_owned()];
    args.extend(opts.args);
    let config = BootConfig {
        args,
        env: opts.env,
        fs_root: opts.fs_root,
        exit_policy: opts.exit_policy,
    };
    let (process, lifted) = crate::personality::boot_lifted(
        &image,
        mem,
        &loaded,
        functions,
        exit,
        platform,
        hle.clone(),
        config,
    )
    .map_err(|e| at(&e))?;
    log::info!(
        "{}: {} HLE functions available, {} lifted functions",
        name.display(),
        hle.implemented(),
        functions.iter().map(|l| l.len()).sum::<usize>()
    );
    process
        .start_main()
        .map_err(|e| at(&format!("starting the main thread: {e}")))?;
    Ok((process, hle, lifted))
}
