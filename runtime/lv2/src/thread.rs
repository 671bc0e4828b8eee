//! PPU threads: one host thread each. Creation, start, exit, join, detach,
//! priority, stack information, rename (system calls 41..56).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use ppu_cpu::PpuContext;

use crate::error::{CELL_OK, CellError, Exit, SysResult};
use crate::exec::GuestThread;
use crate::layout::RETURN_TO_HOST;
use crate::process::Process;
use crate::sync::lock;

/// `SYS_PPU_THREAD_CREATE_JOINABLE`.
pub const SYS_PPU_THREAD_CREATE_JOINABLE: u64 = 1;
/// `SYS_PPU_THREAD_CREATE_INTERRUPT`.
pub const SYS_PPU_THREAD_CREATE_INTERRUPT: u64 = 2;
/// The first PPU thread identifier (the main thread's).
pub const PPU_THREAD_ID_BASE: u32 = 0x0100_0000;
/// Lowest priority value a thread may have (highest priority).
pub const PRIO_MIN: i32 = 0;
/// Highest priority value (lowest priority).
pub const PRIO_MAX: i32 = 3071;

/// How a thread starts.
#[derive(Debug, Clone, Copy)]
pub struct StartInfo {
    /// The entry descriptor's code address.
    pub code: u32,
    /// The entry descriptor's TOC.
    pub toc: u32,
    /// r3.
    pub arg: u64,
    /// r13 (the TLS pointer), 0 for none.
    pub r13: u64,
}

#[derive(Debug, Default)]
struct Life {
    started: bool,
    exit_value: Option<u64>,
    joiner: Option<u32>,
    joined: bool,
}

/// The kernel's record of one PPU thread.
#[derive(Debug)]
pub struct PpuThread {
    /// Its identifier (`sys_ppu_thread_t`).
    pub id: u32,
    prio: AtomicI32,
    /// Its name.
    pub name: Mutex<String>,
    /// Its stack: lowest address and size.
    pub stack: (u32, u32),
    /// Its TLS block (freed when it ends), 0 for none.
    pub tls_block: u32,
    joinable: AtomicBool,
    /// Whether it is the process's main thread.
    pub is_main: bool,
    start: Mutex<Option<StartInfo>>,
    life: Mutex<Life>,
    life_cv: Condvar,
}

impl PpuThread {
    /// A thread record (not yet running).
    pub fn new(
        id: u32,
        prio: i32,
        name: String,
        stack: (u32, u32),
        tls_block: u32,
        joinable: bool,
        is_main: bool,
        start: StartInfo,
    ) -> PpuThread {
        PpuThread {
            id,
            prio: AtomicI32::new(prio),
            name: Mutex::new(name),
            stack,
            tls_block,
            joinable: AtomicBool::new(joinable),
            is_main,
            start: Mutex::new(Some(start)),
            life: Mutex::new(Life::default()),
            life_cv: Condvar::new(),
        }
    }

    /// Its priority now.
    pub fn prio(&self) -> i32 {
        self.prio.load(Ordering::Relaxed)
    }

    /// Whether another thread may join it.
    pub fn joinable(&self) -> bool {
        self.joinable.load(Ordering::Relaxed)
    }

    /// Whether it has ended.
    pub fn has_exited(&self) -> bool {
        lock(&self.life).exit_value.is_some()
    }

    /// The initial registers of a thread starting at `s` with its stack.
    pub fn initial_context(&self, s: &StartInfo) -> PpuContext {
        let mut ctx = PpuContext::new();
        let top = u64::from(self.stack.0) + u64::from(self.stack.1);
        // The first frame: the ABI's 112-byte linkage area below the top,
        // its back chain 0 (the process start writes the main thread's
        // arguments above it instead).
        ctx.gpr[1] = top - 0x70;
        ctx.gpr[2] = u64::from(s.toc);
        ctx.gpr[3] = s.arg;
        ctx.gpr[13] = s.r13;
        ctx.lr = u64::from(RETURN_TO_HOST);
        ctx.cia = s.code;
        ctx
    }

    fn finish(&self, value: u64) {
        let mut l = lock(&self.life);
        l.exit_value = Some(value);
        self.life_cv.notify_all();
    }
}

/// Host stack size of a guest thread: lifted code recurses as deeply as
/// the guest does, with larger frames (`CELLPORT_HOST_STACK_MB`, default 16).
fn host_stack_size() -> usize {
    std::env::var("CELLPORT_HOST_STACK_MB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(16)
        << 20
}

impl Process {
    /// Creates a PPU thread, stopped (`_sys_ppu_thread_create`): entry
    /// descriptor `entry_opd`, argument `arg`, TLS pointer `r13`.
    pub fn create_thread(
        self: &Arc<Self>,
        entry_opd: u32,
        arg: u64,
        prio: i32,
        stack_size: u32,
        flags: u64,
        name: String,
        r13: u64,
        tls_block: u32,
    ) -> Result<u32, CellError> {
        if !(PRIO_MIN..=PRIO_MAX).contains(&prio) {
            return Err(CellError::EINVAL);
        }
        let (code, toc) = self.vm().read_opd(entry_opd)?;
        let size = stack_size
            .clamp(0x4000, 0x1000_0000)
            .next_multiple_of(0x1_0000);
        let stack = self.alloc_stack(size)?;
        let joinable = flags & SYS_PPU_THREAD_CREATE_JOINABLE != 0;
        let start = StartInfo {
            code,
            toc,
            arg,
            r13,
        };
        let (id, _) = self
            .threads
            .insert_with(|id| {
                PpuThread::new(id, prio, name, stack, tls_block, joinable, false, start)
            })
            .inspect_err(|_| self.free_stack(stack.0))?;
        Ok(id)
    }

    /// Starts a created thread on its own host thread (`sys_ppu_thread_start`).
    pub fn start_thread(self: &Arc<Self>, id: u32) -> Result<(), CellError> {
        let thread = self.threads.get(id)?;
        let start = lock(&thread.start).take().ok_or(CellError::EBUSY)?;
        lock(&thread.life).started = true;
        let name = format!("ppu-{:08x}-{}", id, lock(&thread.name));
        let process = self.clone();
        let t2 = thread.clone();
        self.platform
            .spawn(
                &name,
                host_stack_size(),
                Box::new(move || run_thread(process, t2, start)),
            )
            .map_err(|e| {
                log::error!("{e}");
                CellError::EAGAIN
            })
    }

    /// A PPU thread for the runtime's own use (an interrupt thread that
    /// runs the game's flip and vblank handlers): registered, with a stack
    /// and TLS, not running; the caller runs guest calls on it from a host
    /// thread of its own ([`crate::call_guest`]).
    pub fn service_thread(
        self: &Arc<Self>,
        name: &str,
        prio: i32,
        stack_size: u32,
    ) -> Result<GuestThread, CellError> {
        let stack = self.alloc_stack(stack_size.next_multiple_of(0x1_0000))?;
        let tls = self.alloc_tls()?;
        let start = StartInfo {
            code: RETURN_TO_HOST,
            toc: 0,
            arg: 0,
            r13: Process::tls_pointer(tls),
        };
        let (_, thread) = self.threads.insert_with(|id| {
            PpuThread::new(id, prio, name.to_owned(), stack, tls, false, false, start)
        })?;
        lock(&thread.life).started = true;
        let ctx = thread.initial_context(&start);
        Ok(GuestThread {
            ctx,
            thread,
            process: self.clone(),
        })
    }

    /// Records that thread `thread` ended with `value`: wakes its joiner,
    /// frees its TLS, and drops it when nobody will join it.
    pub(crate) fn thread_finished(&self, thread: &Arc<PpuThread>, value: u64) {
        if thread.tls_block != 0 {
            self.free_tls(thread.tls_block);
        }
        thread.finish(value);
        if !thread.joinable() && !thread.is_main {
            self.reap(thread.id);
        }
    }

    fn reap(&self, id: u32) {
        if let Ok(t) = self.threads.remove(id) {
            self.free_stack(t.stack.0);
        }
    }
}

/// The body of a guest thread's host thread.
fn run_thread(process: Arc<Process>, thread: Arc<PpuThread>, start: StartInfo) {
    let mut t = Box::new(GuestThread {
        ctx: thread.initial_context(&start),
        thread: thread.clone(),
        process: process.clone(),
    });
    run_guest_thread(&mut t);
}

/// Runs an initialised guest thread to its end: its entry returning is
/// `sys_ppu_thread_exit(r3)` (for the main thread, `exit(r3)`).
pub fn run_guest_thread(t: &mut GuestThread) {
    // SAFETY: `t` is boxed by the callers and outlives the registration,
    // which is removed before returning.
    unsafe { guest_mem::fault::set_pc_slot(&t.ctx.cia) };
    let exec = t.process.executor();
    let end = exec.run(t);
    finish_guest_thread(t, end);
}

/// What follows the end of a guest thread's code (`end`: what its
/// executor returned): the fault handler's PC slot is unregistered, its
/// reservation cleared, and the thread finished (joiners woken, TLS and
/// stack freed) or the process ended. [`run_guest_thread`] calls it; an
/// executor that cannot return to it (lifted code on a build that cannot
/// unwind) calls it itself and then never returns to the guest code.
pub fn finish_guest_thread(t: &mut GuestThread, end: Result<(), Exit>) {
    // SAFETY: unregistering.
    unsafe { guest_mem::fault::set_pc_slot(std::ptr::null()) };
    t.process.mem.clear_reservation(&mut t.ctx.reservation);
    let process = t.process.clone();
    match end {
        Ok(()) if t.thread.is_main => process.exit(t.ctx.gpr[3] as i32),
        Ok(()) => process.thread_finished(&t.thread, t.ctx.gpr[3]),
        Err(Exit::Thread(v)) => process.thread_finished(&t.thread, v),
        Err(Exit::Process(status)) => process.exit(status),
    }
}

// ------------------------------------------------------------ syscalls --

/// 41 `_sys_ppu_thread_exit(value)`.
pub fn sys_ppu_thread_exit(_p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    Err(Exit::Thread(t.arg_u64(0)).into())
}

/// 43 `sys_ppu_thread_yield()`.
pub fn sys_ppu_thread_yield(p: &Arc<Process>, _t: &mut GuestThread) -> SysResult {
    p.platform.yield_now();
    CELL_OK
}

/// 44 `sys_ppu_thread_join(thread_id, u64* vptr)`.
pub fn sys_ppu_thread_join(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id, vptr) = (t.arg_u32(0), t.arg_u32(1));
    if id == t.tid() {
        return Err(CellError::EDEADLK.into());
    }
    let target = p.threads.get(id)?;
    {
        let mut l = lock(&target.life);
        if !target.joinable() || l.joiner.is_some() || l.joined {
            return Err(CellError::EINVAL.into());
        }
        l.joiner = Some(t.tid());
        while l.exit_value.is_none() {
            l = target.life_cv.wait(l).unwrap_or_else(|e| e.into_inner());
        }
        l.joined = true;
    }
    let value = lock(&target.life).exit_value.unwrap_or(0);
    p.reap(id);
    if vptr != 0 {
        t.vm().write_u64(vptr, value)?;
    }
    CELL_OK
}

/// 45 `sys_ppu_thread_detach(thread_id)`.
pub fn sys_ppu_thread_detach(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let target = p.threads.get(t.arg_u32(0))?;
    {
        let l = lock(&target.life);
        if !target.joinable() || l.joiner.is_some() {
            return Err(CellError::EINVAL.into());
        }
        target.joinable.store(false, Ordering::Relaxed);
        if l.exit_value.is_none() {
            return CELL_OK;
        }
    }
    p.reap(target.id);
    CELL_OK
}

/// 46 `sys_ppu_thread_get_join_state(int* isjoinable)`.
pub fn sys_ppu_thread_get_join_state(_p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    t.vm()
        .write_u32(t.arg_u32(0), u32::from(t.thread.joinable()))?;
    CELL_OK
}

/// 47 `sys_ppu_thread_set_priority(thread_id, prio)`.
pub fn sys_ppu_thread_set_priority(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let prio = t.arg_i32(1);
    if !(PRIO_MIN..=PRIO_MAX).contains(&prio) {
        return Err(CellError::EINVAL.into());
    }
    let target = p.threads.get(t.arg_u32(0))?;
    target.prio.store(prio, Ordering::Relaxed);
    CELL_OK
}

/// 48 `sys_ppu_thread_get_priority(thread_id, int* prio)`.
pub fn sys_ppu_thread_get_priority(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let target = p.threads.get(t.arg_u32(0))?;
    t.vm().write_u32(t.arg_u32(1), target.prio() as u32)?;
    CELL_OK
}

/// 49 `sys_ppu_thread_get_stack_information(sys_ppu_thread_stack_t* info)`.
pub fn sys_ppu_thread_get_stack_information(_p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let info = t.arg_u32(0);
    let (addr, size) = t.thread.stack;
    t.vm().check_writable(info, 8)?;
    t.vm().write_u32(info, addr)?;
    t.vm().write_u32(info + 4, size)?;
    CELL_OK
}

/// 52 `_sys_ppu_thread_create(u64* thread_id, ppu_thread_param_t* param,
/// arg, unk, prio, stacksize, flags, name)`; the parameter block is
/// `{u32 entry descriptor, u32 tls}`.
pub fn sys_ppu_thread_create_raw(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id_ptr, param) = (t.arg_u32(0), t.arg_u32(1));
    let (entry, tls) = t.vm().read_opd(param)?;
    t.vm().check_writable(id_ptr, 8)?;
    let name = match t.arg_u32(7) {
        0 => String::new(),
        a => t.vm().read_cstr(a, 27, CellError::EINVAL)?,
    };
    let id = p.create_thread(
        entry,
        t.arg_u64(2),
        t.arg_i32(4),
        t.arg_u32(5),
        t.arg_u64(6),
        name,
        u64::from(tls),
        0,
    )?;
    t.vm().write_u64(id_ptr, u64::from(id))?;
    CELL_OK
}

/// 53 `sys_ppu_thread_start(thread_id)`.
pub fn sys_ppu_thread_start(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.start_thread(t.arg_u32(0))?;
    CELL_OK
}

/// 56 `sys_ppu_thread_rename(thread_id, name)`.
pub fn sys_ppu_thread_rename(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let target = p.threads.get(t.arg_u32(0))?;
    let name = t.vm().read_cstr(t.arg_u32(1), 27, CellError::EINVAL)?;
    *lock(&target.name) = name;
    CELL_OK
}
