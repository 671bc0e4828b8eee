//! The LV2 process: loading a PS3 executable, the main thread, the kernel
//! objects, system call and HLE dispatch, and the process's end.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use guest_mem::{CheckMode, GuestMemory, MemError, PAGE_SIZE, Prot};
use platform::Platform;
use ppu_cpu::{PS3_TIMEBASE_HZ, TimeBase};
use ppu_elf::{Abi, Image};

use crate::alloc::RangeAllocator;
use crate::error::{CellError, Exit, Ret};
use crate::event::{EventPort, EventQueue};
use crate::event_flag::EventFlag;
use crate::exec::{Executor, GuestThread};
use crate::fs::Fs;
use crate::layout::*;
use crate::memory::MemoryState;
use crate::mutex::{Cond, Mutex as KMutex, RwLock};
use crate::objects::Table;
use crate::semaphore::Semaphore;
use crate::sync::lock;
use crate::thread::{PPU_THREAD_ID_BASE, PpuThread, StartInfo};
use crate::timer::Timer;
use crate::vm::Vm;

/// The system modules' side of the process: functions bound to import
/// stubs by module name and FNID (the `hle` crate implements it).
pub trait Hle: Send + Sync {
    /// The HLE function index for import `fnid` of `module`. Imports with
    /// no implementation get an index too: calling it names the import
    /// and returns an error code.
    fn resolve(&self, module: &str, fnid: u32) -> u32;
    /// Calls HLE function `index` for `t` (arguments in its registers; the
    /// result goes to r3).
    fn call(&self, index: u32, t: &mut GuestThread) -> Result<(), Exit>;
    /// `module::function (FNID)` of an index, for messages.
    fn describe(&self, index: u32) -> String;
}

/// An [`Hle`] with no modules: every import is unimplemented (for tests
/// of the kernel alone).
#[derive(Debug, Default)]
pub struct NoHle {
    names: Mutex<Vec<(String, u32)>>,
}

impl Hle for NoHle {
    fn resolve(&self, module: &str, fnid: u32) -> u32 {
        let mut n = lock(&self.names);
        n.push((module.to_owned(), fnid));
        (n.len() - 1) as u32
    }
    fn call(&self, index: u32, t: &mut GuestThread) -> Result<(), Exit> {
        log::error!("unimplemented import called: {}", self.describe(index));
        t.ctx.gpr[3] = CellError::ENOSYS.to_r3();
        Ok(())
    }
    fn describe(&self, index: u32) -> String {
        match lock(&self.names).get(index as usize) {
            Some((m, f)) => format!("{m}::{f:#010x}"),
            None => format!("HLE function {index}"),
        }
    }
}

/// What happens when the guest process exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitPolicy {
    /// The host process exits with the guest's status (a recompiled
    /// executable, the interpreter runner).
    ExitHost,
    /// The status is recorded for [`Process::wait`]; guest threads stop at
    /// their next system call (embedding: host-sim).
    Record,
}

/// How to start a process.
#[derive(Debug, Clone)]
pub struct BootConfig {
    /// `argv` (the first is the program's name as the guest sees it).
    pub args: Vec<String>,
    /// `envp` entries (`NAME=value`).
    pub env: Vec<String>,
    /// The host folder that holds the guest's file system (`/dev_hdd0/...`
    /// is `<root>/dev_hdd0/...`).
    pub fs_root: PathBuf,
    /// What the guest's exit does.
    pub exit_policy: ExitPolicy,
}

impl Default for BootConfig {
    fn default() -> Self {
        BootConfig {
            args: vec!["/app_home/EBOOT.BIN".into()],
            env: Vec::new(),
            fs_root: PathBuf::from("ps3-fs"),
            exit_policy: ExitPolicy::ExitHost,
        }
    }
}

/// Why a process could not start.
#[derive(Debug, thiserror::Error)]
pub enum BootError {
    /// The file is not a PS3 executable or is malformed.
    #[error("{0}")]
    Elf(#[from] ppu_elf::ElfError),
    /// A Linux executable was given.
    #[error(
        "not a PS3 executable: the ELF OS/ABI is not CELL LV2 (0x66); Linux programs run with the Linux personality"
    )]
    NotLv2,
    /// Guest memory could not be set up.
    #[error("guest memory: {0}")]
    Memory(#[from] MemError),
    /// A segment could not be loaded.
    #[error("{0}")]
    Load(#[from] ppu_elf::LoadError),
    /// Something the process needs at start failed.
    #[error("starting the process: {0}")]
    Start(String),
}

/// The values of `.sys_proc_param` the process runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessParams {
    /// The SDK version the program was built with.
    pub sdk_version: u32,
    /// The main thread's priority.
    pub primary_prio: i32,
    /// The main thread's stack size in bytes.
    pub primary_stacksize: u32,
    /// `malloc`'s page size.
    pub malloc_pagesize: u32,
}

impl ProcessParams {
    /// LV2's defaults for a program without `.sys_proc_param`.
    pub const DEFAULT: ProcessParams = ProcessParams {
        sdk_version: 0x0036_0001,
        primary_prio: 1001,
        primary_stacksize: 0x10_0000,
        malloc_pagesize: 0x10_0000,
    };

    /// The parameters an executable asks for, made valid as LV2 does: the
    /// stack size codes 0x10..0x70 mean 32 KiB..1 MiB; other sizes are
    /// clamped to 64 KiB..1 MiB and rounded to 4 KiB; a priority outside
    /// 0..3071 keeps the default.
    pub fn from_image(p: Option<ppu_elf::ProcParam>) -> ProcessParams {
        let Some(p) = p else { return Self::DEFAULT };
        let stack = match p.primary_stacksize {
            0x10 => 32 << 10,
            0x20 => 64 << 10,
            0x30 => 96 << 10,
            0x40 => 128 << 10,
            0x50 => 256 << 10,
            0x60 => 512 << 10,
            0x70 => 1 << 20,
            s => s.clamp(0x1_0000, 0x10_0000).next_multiple_of(4096),
        };
        let prio = if (0..3072).contains(&p.primary_prio) {
            p.primary_prio
        } else {
            Self::DEFAULT.primary_prio
        };
        ProcessParams {
            sdk_version: p.sdk_version,
            primary_prio: prio,
            primary_stacksize: stack,
            malloc_pagesize: p.malloc_pagesize,
        }
    }
}

/// The TLS template (`PT_TLS`) and the blocks made from it.
#[derive(Debug)]
pub(crate) struct Tls {
    image: u32,
    filesz: u32,
    memsz: u32,
    slot: u32,
    arena: RangeAllocator,
}

/// Bytes before the TLS image in each block (LV2's system area).
const TLS_SYSTEM_AREA: u32 = 0x30;
/// r13 points this far past the TLS image (the PowerPC TLS ABI's offset).
pub const TLS_TP_OFFSET: u32 = 0x7000;

/// One PS3 process.
pub struct Process {
    /// Its address space (it lives as long as the host process: lifted
    /// code and the RSX keep `&'static` references to it).
    pub mem: &'static GuestMemory,
    /// The platform layer.
    pub platform: Arc<dyn Platform>,
    exec: Arc<dyn Executor>,
    hle: Arc<dyn Hle>,
    /// Its parameters.
    pub params: ProcessParams,
    /// How it was started.
    pub config: BootConfig,
    /// The program's entry descriptor.
    pub entry_opd: u32,
    timebase: TimeBase,
    start_ns: u64,
    pub(crate) tls: Mutex<Tls>,
    pub(crate) stacks: Mutex<RangeAllocator>,
    /// PPU threads.
    pub threads: Table<PpuThread>,
    /// Mutexes (and the kernel side of lightweight mutexes).
    pub mutexes: Table<KMutex>,
    /// Condition variables (and lightweight ones).
    pub conds: Table<Cond>,
    /// Reader/writer locks.
    pub rwlocks: Table<RwLock>,
    /// Semaphores.
    pub semaphores: Table<Semaphore>,
    /// Event flags.
    pub event_flags: Table<EventFlag>,
    /// Event queues.
    pub event_queues: Table<EventQueue>,
    /// Event ports.
    pub event_ports: Table<EventPort>,
    /// Timers.
    pub timers: Table<Timer>,
    /// User memory and containers.
    pub memory: Mutex<MemoryState>,
    /// The file system.
    pub fs: Fs,
    exited: AtomicBool,
    exit_status: Mutex<Option<i32>>,
    exit_cv: Condvar,
    reported: Mutex<HashSet<u64>>,
    at_exit: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
    main_ctx: Mutex<Option<ppu_cpu::PpuContext>>,
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process")
            .field("params", &self.params)
            .field("entry_opd", &self.entry_opd)
            .finish_non_exhaustive()
    }
}

/// Makes guest memory the way guest-mem's default does (the mode from
/// `CELLPORT_MEM_CHECK`; checked mode when the platform has no fault
/// handler and no mode was asked for), through `platform`'s virtual
/// memory. [`Process::boot`] uses it; a runner that loads the executable
/// itself ([`Process::boot_loaded`]) makes its memory with it too.
pub fn new_memory(platform: &dyn Platform) -> Result<GuestMemory, MemError> {
    let explicit = std::env::var_os("CELLPORT_MEM_CHECK").is_some();
    match GuestMemory::with_platform(CheckMode::from_env()?, platform.virtual_memory()) {
        Err(MemError::NoTrapHandler) if !explicit => {
            log::warn!("no fault handler on this platform: guest memory runs in checked mode");
            GuestMemory::with_platform(CheckMode::Checked, platform.virtual_memory())
        }
        r => r,
    }
}

impl Process {
    /// Loads PS3 executable `elf` into a new address space, binds its
    /// imports to `hle` and prepares its main thread (not started: see
    /// [`Process::start_main`]).
    pub fn boot(
        elf: Vec<u8>,
        platform: Arc<dyn Platform>,
        exec: Arc<dyn Executor>,
        hle: Arc<dyn Hle>,
        config: BootConfig,
    ) -> Result<Arc<Process>, BootError> {
        let image = Image::parse(elf)?;
        if image.abi != Abi::Lv2 {
            return Err(BootError::NotLv2);
        }
        let mem: &'static GuestMemory = Box::leak(Box::new(new_memory(&*platform)?));
        let loaded = image.load(mem)?;
        Self::boot_loaded(&image, mem, &loaded, platform, exec, hle, config)
    }

    /// As [`Process::boot`], for an executable someone else loaded into
    /// `mem` (the recompiled program's runner).
    pub fn boot_loaded(
        image: &Image,
        mem: &'static GuestMemory,
        loaded: &ppu_elf::Loaded,
        platform: Arc<dyn Platform>,
        exec: Arc<dyn Executor>,
        hle: Arc<dyn Hle>,
        config: BootConfig,
    ) -> Result<Arc<Process>, BootError> {
        if image.abi != Abi::Lv2 {
            return Err(BootError::NotLv2);
        }
        let params = ProcessParams::from_image(image.proc_param()?);
        log::debug!("process parameters: {params:?}");

        // The HLE area: code words that trap if ever executed, descriptors.
        mem.map(HLE_CODE_BASE, u64::from(HLE_AREA_SIZE), Prot::RX)?;
        let trap = 0x7FE0_0008u32
            .to_be_bytes()
            .repeat((HLE_OPD_BASE - HLE_CODE_BASE) as usize / 4);
        mem.host_write(HLE_CODE_BASE, &trap)?;
        for lib in image.imports()? {
            for f in &lib.functions {
                let index = hle.resolve(&lib.name, f.fnid);
                if index >= HLE_MAX_FUNCTIONS {
                    return Err(BootError::Start(format!(
                        "more than {HLE_MAX_FUNCTIONS} imports"
                    )));
                }
                let mut opd = [0u8; 8];
                opd[..4].copy_from_slice(&hle_code(index).to_be_bytes());
                mem.host_write(hle_opd(index), &opd)?;
                mem.host_write(f.slot, &hle_opd(index).to_be_bytes())?;
            }
            if !lib.variables.is_empty() {
                log::warn!(
                    "{}: {} imported variables are not supported (left as in the file)",
                    lib.name,
                    lib.variables.len()
                );
            }
        }

        let (tls_image, tls_filesz, tls_memsz) = loaded.tls.unwrap_or((0, 0, 0));
        let tls_slot = (tls_memsz + TLS_SYSTEM_AREA).next_multiple_of(16);
        let segs_size: u64 = loaded.mapped.iter().map(|(a, b)| u64::from(b - a)).sum();
        let memory = MemoryState::new(
            params.sdk_version,
            u64::from(params.primary_stacksize) + segs_size,
        );
        let fs = Fs::new(config.fs_root.clone());
        let entry_opd = image.entry;
        let now = platform.monotonic_ns();
        let process = Arc::new(Process {
            mem,
            platform,
            exec,
            hle,
            params,
            config,
            entry_opd,
            timebase: TimeBase::new(PS3_TIMEBASE_HZ),
            start_ns: now,
            tls: Mutex::new(Tls {
                image: tls_image,
                filesz: tls_filesz,
                memsz: tls_memsz,
                slot: tls_slot,
                arena: RangeAllocator::new(0, 0),
            }),
            stacks: Mutex::new(RangeAllocator::new(STACK_BASE, u64::from(STACK_END))),
            threads: Table::new(PPU_THREAD_ID_BASE - 1, 8192),
            mutexes: Table::new(0x8500_0000, 8192),
            conds: Table::new(0x8600_0000, 8192),
            rwlocks: Table::new(0x8800_0000, 8192),
            semaphores: Table::new(0x9600_0000, 8192),
            event_flags: Table::new(0x9800_0000, 8192),
            event_queues: Table::new(0x8D00_0000, 8192),
            event_ports: Table::new(0x0E00_0000, 8192),
            timers: Table::new(0x1100_0000, 8192),
            memory: Mutex::new(memory),
            fs,
            exited: AtomicBool::new(false),
            exit_status: Mutex::new(None),
            exit_cv: Condvar::new(),
            reported: Mutex::new(HashSet::new()),
            at_exit: Mutex::new(Vec::new()),
            main_ctx: Mutex::new(None),
        });
        process
            .init_tls_arena()
            .map_err(|e| BootError::Start(format!("TLS area: {e}")))?;
        process
            .prepare_main()
            .map_err(|e| BootError::Start(format!("main thread: {e}")))?;
        Ok(process)
    }

    fn init_tls_arena(&self) -> Result<(), CellError> {
        // 4 MiB of user memory for TLS blocks (LV2 keeps them in main memory).
        let size = 0x40_0000;
        let base = self.alloc_user_pages(size)?;
        lock(&self.tls).arena = RangeAllocator::new(base, u64::from(base) + size);
        Ok(())
    }

    /// Allocates a TLS block initialised from the template; returns the
    /// block's address (r13 = block + 0x30 + 0x7000).
    pub fn alloc_tls(&self) -> Result<u32, CellError> {
        let mut tls = lock(&self.tls);
        let slot = u64::from(tls.slot);
        let block = tls.arena.alloc(slot, 16).ok_or(CellError::ENOMEM)?;
        let vm = self.vm();
        let mut data = vec![0u8; tls.slot as usize];
        if tls.filesz > 0 {
            let image = vm.read_bytes(tls.image, tls.filesz)?;
            data[TLS_SYSTEM_AREA as usize..][..image.len()].copy_from_slice(&image);
        }
        vm.write_bytes(block, &data)?;
        Ok(block)
    }

    /// The r13 value of a TLS block.
    pub fn tls_pointer(block: u32) -> u64 {
        u64::from(block + TLS_SYSTEM_AREA + TLS_TP_OFFSET)
    }

    /// Frees a TLS block.
    pub fn free_tls(&self, block: u32) {
        lock(&self.tls).arena.free(block);
    }

    /// Allocates and maps a stack of `size` bytes with an unmapped guard
    /// page below it; returns (lowest address, size).
    pub(crate) fn alloc_stack(&self, size: u32) -> Result<(u32, u32), CellError> {
        let total = u64::from(size) + u64::from(PAGE_SIZE);
        let base = lock(&self.stacks)
            .alloc(total, u64::from(PAGE_SIZE))
            .ok_or(CellError::ENOMEM)?;
        let low = base + PAGE_SIZE;
        if let Err(e) = self.mem.map(low, u64::from(size), Prot::RW) {
            log::error!("mapping a stack at {low:#x}: {e}");
            lock(&self.stacks).free(base);
            return Err(CellError::ENOMEM);
        }
        Ok((low, size))
    }

    /// Frees a stack made by `alloc_stack` (given its lowest address).
    pub(crate) fn free_stack(&self, low: u32) {
        let base = low - PAGE_SIZE;
        if let Some(total) = lock(&self.stacks).free(base) {
            let _ = self.mem.unmap(low, total - u64::from(PAGE_SIZE));
        }
    }

    /// The main thread: its stack (with argv and envp at the top, as LV2
    /// lays them out: a u64 pointer array, then the strings, each
    /// 16-aligned), TLS (`sys_initialize_tls`) and registers.
    fn prepare_main(self: &Arc<Self>) -> Result<(), CellError> {
        let stack = self.alloc_stack(self.params.primary_stacksize)?;
        let top = stack.0 + stack.1;
        let (args, env) = (&self.config.args, &self.config.env);
        let pointers = 8 * (args.len() + env.len() + 2).next_multiple_of(2) as u32;
        let strings: u32 = args
            .iter()
            .chain(env)
            .map(|s| (s.len() as u32 + 1).next_multiple_of(16))
            .sum();
        let area = pointers + strings;
        if area + 0x1000 > stack.1 {
            return Err(CellError::ENOMEM);
        }
        let base = top - area;
        let envp = base + 8 * (args.len() as u32 + 1);
        let vm = self.vm();
        let mut ptr = base;
        let mut data = base + pointers;
        for list in [args, env] {
            for s in list {
                vm.write_u64(ptr, u64::from(data))?;
                let mut bytes = s.clone().into_bytes();
                bytes.push(0);
                vm.write_bytes(data, &bytes)?;
                data += (bytes.len() as u32).next_multiple_of(16);
                ptr += 8;
            }
            vm.write_u64(ptr, 0)?;
            ptr += 8;
        }
        let tls_block = self.alloc_tls()?;
        let (code, toc) = vm.read_opd(self.entry_opd)?;
        let start = StartInfo {
            code,
            toc,
            arg: args.len() as u64,
            r13: Self::tls_pointer(tls_block),
        };
        let params = self.params;
        let (id, thread) = self.threads.insert_with(|id| {
            PpuThread::new(
                id,
                params.primary_prio,
                "main_thread".into(),
                stack,
                tls_block,
                false,
                true,
                start,
            )
        })?;
        let mut ctx = thread.initial_context(&start);
        // LV2's entry registers: r3 argc, r4 argv, r5 envp, r6 envc, r7 the
        // thread id, r8..r10 the TLS template, r11 the entry descriptor, r12
        // the malloc page size; the stack pointer on the argument area.
        ctx.gpr[1] = u64::from(base);
        ctx.gpr[4] = u64::from(base);
        ctx.gpr[5] = u64::from(envp);
        ctx.gpr[6] = env.len() as u64;
        ctx.gpr[7] = u64::from(id);
        {
            let tls = lock(&self.tls);
            ctx.gpr[8] = u64::from(tls.image);
            ctx.gpr[9] = u64::from(tls.filesz);
            ctx.gpr[10] = u64::from(tls.memsz);
        }
        ctx.gpr[11] = u64::from(self.entry_opd);
        ctx.gpr[12] = u64::from(self.params.malloc_pagesize);
        *lock(&self.main_ctx) = Some(ctx);
        Ok(())
    }

    /// The main thread's record.
    pub fn main_thread(&self) -> Arc<PpuThread> {
        self.threads
            .get(PPU_THREAD_ID_BASE)
            .expect("the main thread exists from boot")
    }

    /// The main thread's initial registers, for a runner that runs it
    /// itself (once; [`Process::start_main`] takes them otherwise).
    pub fn take_main_context(&self) -> Option<ppu_cpu::PpuContext> {
        lock(&self.main_ctx).take()
    }

    /// Starts the main thread on its own host thread.
    pub fn start_main(self: &Arc<Self>) -> Result<(), CellError> {
        let ctx = lock(&self.main_ctx).take().ok_or(CellError::EBUSY)?;
        let thread = self.main_thread();
        let process = self.clone();
        let stack = std::env::var("CELLPORT_HOST_STACK_MB")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(16)
            << 20;
        self.platform
            .spawn(
                "ppu-main",
                stack,
                Box::new(move || {
                    let mut t = Box::new(GuestThread {
                        ctx,
                        thread,
                        process,
                    });
                    crate::thread::run_guest_thread(&mut t);
                }),
            )
            .map_err(|e| {
                log::error!("{e}");
                CellError::EAGAIN
            })
    }

    /// Waits for the process to exit and returns its status.
    pub fn wait(&self) -> i32 {
        let mut g = lock(&self.exit_status);
        loop {
            if let Some(s) = *g {
                return s;
            }
            g = self.exit_cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The status, once the process has exited.
    pub fn exit_status(&self) -> Option<i32> {
        *lock(&self.exit_status)
    }

    /// Whether the process has exited.
    pub fn has_exited(&self) -> bool {
        self.exited.load(Ordering::Acquire)
    }

    /// Runs `f` when the process exits (modules flush their state).
    pub fn at_exit(&self, f: Box<dyn FnOnce() + Send>) {
        lock(&self.at_exit).push(f);
    }

    /// Ends the process with `status` (the first exit wins). With
    /// [`ExitPolicy::ExitHost`] the host process exits too.
    pub fn exit(&self, status: i32) {
        if self.exited.swap(true, Ordering::AcqRel) {
            return;
        }
        log::debug!("process exit, status {status}");
        let hooks = std::mem::take(&mut *lock(&self.at_exit));
        for f in hooks.into_iter().rev() {
            f();
        }
        self.platform.console_flush();
        *lock(&self.exit_status) = Some(status);
        self.exit_cv.notify_all();
        if self.config.exit_policy == ExitPolicy::ExitHost {
            std::process::exit(status);
        }
    }

    /// Reports an error in the guest (a fault, an undecodable
    /// instruction) with the thread's registers, and returns the exit that
    /// ends the process with `status`.
    pub fn guest_error(&self, t: &GuestThread, status: i32, what: &str) -> Exit {
        log::error!(
            "PPU thread {:#x} ({}): {what}\n  lr {:#010x}  r1 {:#010x}  r2 {:#010x}  r3 {:#x}  r4 {:#x}",
            t.thread.id,
            lock(&t.thread.name),
            t.ctx.lr,
            t.ctx.gpr[1],
            t.ctx.gpr[2],
            t.ctx.gpr[3],
            t.ctx.gpr[4]
        );
        Exit::Process(status)
    }

    /// Logs `message` the first time `key` is seen (unknown system calls,
    /// unimplemented imports).
    pub fn report_once(&self, key: u64, message: impl FnOnce() -> String) {
        if lock(&self.reported).insert(key) {
            log::warn!("{}", message());
        }
    }

    /// The thread's system call (`sc`: number in r11, result to r3).
    pub fn syscall(self: &Arc<Self>, t: &mut GuestThread) -> Result<(), Exit> {
        if self.has_exited() {
            return Err(Exit::Thread(0));
        }
        let n = t.ctx.gpr[11];
        match crate::syscalls::dispatch(self, n, t) {
            Ok(v) => t.ctx.gpr[3] = v,
            Err(Ret::Err(e)) => t.ctx.gpr[3] = e.to_r3(),
            Err(Ret::Exit(x)) => return Err(x),
        }
        Ok(())
    }

    /// Calls HLE function `index` (an import stub reached it).
    pub fn hle_call(self: &Arc<Self>, index: u32, t: &mut GuestThread) -> Result<(), Exit> {
        if self.has_exited() {
            return Err(Exit::Thread(0));
        }
        self.hle.call(index, t)
    }

    /// The name of HLE function `index`.
    pub fn describe_hle(&self, index: u32) -> String {
        self.hle.describe(index)
    }

    /// Writes the descriptor of HLE function `index` (for functions the
    /// runtime hands to the guest itself, such as libgcm's command buffer
    /// callback) and returns its address.
    pub fn bind_hle_descriptor(&self, index: u32) -> Result<u32, CellError> {
        if index >= HLE_MAX_FUNCTIONS {
            return Err(CellError::EINVAL);
        }
        let mut opd = [0u8; 8];
        opd[..4].copy_from_slice(&hle_code(index).to_be_bytes());
        self.mem
            .host_write(hle_opd(index), &opd)
            .map_err(|_| CellError::EFAULT)?;
        Ok(hle_opd(index))
    }

    /// Checked guest memory access.
    pub fn vm(&self) -> Vm<'_> {
        Vm(self.mem)
    }

    /// What runs guest code.
    pub fn executor(&self) -> Arc<dyn Executor> {
        self.exec.clone()
    }

    /// The time base (`mftb`) at 79.8 MHz.
    pub fn timebase(&self) -> TimeBase {
        self.timebase
    }

    /// System time: microseconds since the process started.
    pub fn system_time_us(&self) -> u64 {
        self.platform.monotonic_ns().saturating_sub(self.start_ns) / 1000
    }

    /// Maps `size` bytes (a multiple of 64 KiB) of user memory read/write
    /// for the runtime's own use (not counted against the program's memory
    /// budget).
    pub fn alloc_user_pages(&self, size: u64) -> Result<u32, CellError> {
        let addr = lock(&self.memory)
            .area
            .alloc(size, u64::from(PAGE_SIZE))
            .ok_or(CellError::ENOMEM)?;
        self.mem.map(addr, size, Prot::RW).map_err(|e| {
            log::error!("mapping user memory at {addr:#x}: {e}");
            CellError::ENOMEM
        })?;
        Ok(addr)
    }
}
