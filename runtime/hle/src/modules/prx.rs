//! sysPrxForUser (liblv2): process exit, PPU thread creation with TLS,
//! the lightweight mutex and condition, system time, `_sys_printf`,
//! spin locks and small helpers.
//!
//! The lightweight mutex keeps LV2's 24-byte `sys_lwmutex_t` in guest
//! memory (owner, waiter, attribute, recursive count, sleep queue) and
//! does the locking in a kernel mutex whose identifier is the sleep queue;
//! the owner and count fields are kept current for programs that read
//! them. The lightweight condition (`sys_lwcond_t`: the lwmutex address and
//! a kernel condition identifier) waits on that kernel mutex.

use std::sync::{Arc, Mutex};

use lv2::mutex::{Cond, Mutex as KMutex};
use lv2::sync::{
    Protocol, SYS_SYNC_FIFO, SYS_SYNC_NOT_RECURSIVE, SYS_SYNC_PRIORITY, SYS_SYNC_RECURSIVE,
    SYS_SYNC_RETRY, lock,
};
use lv2::thread::SYS_PPU_THREAD_CREATE_INTERRUPT;
use lv2::{CellError, Exit, Process, Ret};

use crate::args::{Ptr, VarArgs};
use crate::{Cx, Registry};

const MODULE: &str = "sysPrxForUser";
/// `sys_lwmutex_t.owner` of a free lightweight mutex.
pub const LWMUTEX_FREE: u32 = 0xFFFF_FFFF;
/// `sys_lwmutex_t.owner` of a destroyed one.
pub const LWMUTEX_DEAD: u32 = 0xFFFF_FFFE;

/// sysPrxForUser's state.
#[derive(Default)]
pub struct State {
    /// Serialises the guest-visible fields of lightweight mutexes.
    mirror: Mutex<()>,
    /// Serialises `sys_ppu_thread_once`.
    once: Mutex<()>,
    rng: Mutex<u64>,
}

/// Registers the module's functions.
pub fn register(r: &mut Registry) {
    r.add(MODULE, "sys_process_exit", sys_process_exit);
    r.add(MODULE, "sys_initialize_tls", sys_initialize_tls);
    r.add(MODULE, "sys_ppu_thread_create", sys_ppu_thread_create);
    r.add(MODULE, "sys_ppu_thread_exit", sys_ppu_thread_exit);
    r.add(MODULE, "sys_ppu_thread_get_id", sys_ppu_thread_get_id);
    r.add(MODULE, "sys_ppu_thread_once", sys_ppu_thread_once);
    r.add(MODULE, "sys_lwmutex_create", sys_lwmutex_create);
    r.add(MODULE, "sys_lwmutex_destroy", sys_lwmutex_destroy);
    r.add(MODULE, "sys_lwmutex_lock", sys_lwmutex_lock);
    r.add(MODULE, "sys_lwmutex_trylock", sys_lwmutex_trylock);
    r.add(MODULE, "sys_lwmutex_unlock", sys_lwmutex_unlock);
    r.add(MODULE, "sys_lwcond_create", sys_lwcond_create);
    r.add(MODULE, "sys_lwcond_destroy", sys_lwcond_destroy);
    r.add(MODULE, "sys_lwcond_wait", sys_lwcond_wait);
    r.add(MODULE, "sys_lwcond_signal", sys_lwcond_signal);
    r.add(MODULE, "sys_lwcond_signal_all", sys_lwcond_signal_all);
    r.add(MODULE, "sys_lwcond_signal_to", sys_lwcond_signal_to);
    r.add(MODULE, "sys_time_get_system_time", sys_time_get_system_time);
    r.add(MODULE, "_sys_printf", sys_printf);
    r.add(MODULE, "sys_process_is_stack", sys_process_is_stack);
    r.add(MODULE, "sys_get_random_number", sys_get_random_number);
    r.add(MODULE, "_sys_process_atexitspawn", |_: &mut Cx<'_>| ());
    r.add(MODULE, "_sys_process_at_Exitspawn", |_: &mut Cx<'_>| ());
    r.add(MODULE, "sys_spinlock_initialize", sys_spinlock_initialize);
    r.add(MODULE, "sys_spinlock_lock", sys_spinlock_lock);
    r.add(MODULE, "sys_spinlock_trylock", sys_spinlock_trylock);
    r.add(MODULE, "sys_spinlock_unlock", sys_spinlock_unlock);
}

fn sys_process_exit(_cx: &mut Cx<'_>, status: i32) -> Exit {
    Exit::Process(status)
}

/// The runtime sets up the main thread's TLS before its entry runs (as
/// LV2 with liblv2 does); a later call changes nothing.
fn sys_initialize_tls(_cx: &mut Cx<'_>, _thread: u64, _addr: u32, _size: u32, _mem_size: u32) {}

/// `sys_ppu_thread_create(u64* id, entry descriptor, arg, prio, stacksize,
/// flags, name)`: a TLS block for the thread, then `_sys_ppu_thread_create`
/// and (unless it is an interrupt thread) `sys_ppu_thread_start`.
#[allow(clippy::too_many_arguments)]
fn sys_ppu_thread_create(
    cx: &mut Cx<'_>,
    id_ptr: Ptr,
    entry: u32,
    arg: u64,
    prio: i32,
    stacksize: u32,
    flags: u64,
    name: Ptr,
) -> Result<(), CellError> {
    let p = cx.process();
    let vm = cx.t.vm();
    vm.check_writable(id_ptr.0, 8)?;
    let name = if name.is_null() {
        String::new()
    } else {
        vm.read_cstr(name.0, 27, CellError::EINVAL)?
    };
    let tls = p.alloc_tls()?;
    let id = match p.create_thread(
        entry,
        arg,
        prio,
        stacksize,
        flags,
        name,
        Process::tls_pointer(tls),
        tls,
    ) {
        Ok(id) => id,
        Err(e) => {
            p.free_tls(tls);
            return Err(e);
        }
    };
    vm.write_u64(id_ptr.0, u64::from(id))?;
    if flags & SYS_PPU_THREAD_CREATE_INTERRUPT == 0 {
        p.start_thread(id)?;
    }
    Ok(())
}

fn sys_ppu_thread_exit(_cx: &mut Cx<'_>, value: u64) -> Exit {
    Exit::Thread(value)
}

fn sys_ppu_thread_get_id(cx: &mut Cx<'_>, out: Ptr) -> Result<(), CellError> {
    cx.t.vm().write_u64(out.0, u64::from(cx.t.tid()))
}

/// `sys_ppu_thread_once(s32* once_ctrl, init descriptor)`: runs `init` the
/// first time (the control word goes from 0 to 1).
fn sys_ppu_thread_once(cx: &mut Cx<'_>, ctrl: Ptr, init: u32) -> Result<(), Ret> {
    let _g = lock(&cx.rt.modules.prx.once);
    let vm = cx.t.vm();
    if vm.read_u32(ctrl.0)? != 0 {
        return Ok(());
    }
    vm.write_u32(ctrl.0, 1)?;
    lv2::call_guest(cx.t, init, &[])?;
    Ok(())
}

// ---- lightweight mutex ----

fn kernel_lwmutex(cx: &Cx<'_>, lw: Ptr) -> Result<Arc<KMutex>, CellError> {
    let id = cx.t.vm().read_u32(lw.0 + 16)?;
    cx.t.process.mutexes.get(id)
}

/// Writes the guest-visible owner and count from the kernel mutex's state.
fn mirror(cx: &Cx<'_>, lw: Ptr, m: &KMutex) -> Result<(), CellError> {
    let _g = lock(&cx.rt.modules.prx.mirror);
    let vm = cx.t.vm();
    match m.owner() {
        0 => {
            vm.write_u32(lw.0, LWMUTEX_FREE)?;
            vm.write_u32(lw.0 + 12, 0)
        }
        owner => {
            vm.write_u32(lw.0, owner)?;
            vm.write_u32(lw.0 + 12, m.recursion() + 1)
        }
    }
}

fn sys_lwmutex_create(cx: &mut Cx<'_>, lw: Ptr, attr: Ptr) -> Result<(), CellError> {
    let vm = cx.t.vm();
    vm.check_writable(lw.0, 24)?;
    let protocol = match vm.read_u32(attr.0)? {
        SYS_SYNC_FIFO | SYS_SYNC_RETRY => Protocol::Fifo,
        SYS_SYNC_PRIORITY => Protocol::Priority,
        _ => return Err(CellError::EINVAL),
    };
    let recursive = match vm.read_u32(attr.0 + 4)? {
        SYS_SYNC_RECURSIVE => true,
        SYS_SYNC_NOT_RECURSIVE => false,
        _ => return Err(CellError::EINVAL),
    };
    let name = vm.read_u64(attr.0 + 8)?;
    let attribute = vm.read_u32(attr.0)? | vm.read_u32(attr.0 + 4)?;
    let id =
        cx.t.process
            .mutexes
            .insert(KMutex::new(protocol, recursive, name))?;
    for (off, v) in [
        (0, LWMUTEX_FREE),
        (4, 0),
        (8, attribute),
        (12, 0),
        (16, id),
        (20, 0),
    ] {
        vm.write_u32(lw.0 + off, v)?;
    }
    Ok(())
}

fn sys_lwmutex_destroy(cx: &mut Cx<'_>, lw: Ptr) -> Result<(), CellError> {
    let id = cx.t.vm().read_u32(lw.0 + 16)?;
    cx.t.process.mutexes.remove_if(id, KMutex::check_destroy)?;
    let vm = cx.t.vm();
    vm.write_u32(lw.0, LWMUTEX_DEAD)?;
    vm.write_u32(lw.0 + 16, 0)
}

fn sys_lwmutex_lock(cx: &mut Cx<'_>, lw: Ptr, timeout: u64) -> Result<(), CellError> {
    let m = kernel_lwmutex(cx, lw)?;
    m.lock(cx.t.tid(), cx.t.prio(), timeout)?;
    mirror(cx, lw, &m)
}

fn sys_lwmutex_trylock(cx: &mut Cx<'_>, lw: Ptr) -> Result<(), CellError> {
    let m = kernel_lwmutex(cx, lw)?;
    m.trylock(cx.t.tid())?;
    mirror(cx, lw, &m)
}

fn sys_lwmutex_unlock(cx: &mut Cx<'_>, lw: Ptr) -> Result<(), CellError> {
    let m = kernel_lwmutex(cx, lw)?;
    m.unlock(cx.t.tid())?;
    mirror(cx, lw, &m)
}

// ---- lightweight condition ----

fn kernel_lwcond(cx: &Cx<'_>, lc: Ptr) -> Result<(Arc<Cond>, Ptr), CellError> {
    let vm = cx.t.vm();
    let lw = Ptr(vm.read_u32(lc.0)?);
    let id = vm.read_u32(lc.0 + 4)?;
    Ok((cx.t.process.conds.get(id)?, lw))
}

fn sys_lwcond_create(cx: &mut Cx<'_>, lc: Ptr, lw: Ptr, attr: Ptr) -> Result<(), CellError> {
    let vm = cx.t.vm();
    vm.check_writable(lc.0, 8)?;
    let name = vm.read_u64(attr.0)?;
    let m = kernel_lwmutex(cx, lw)?;
    let id = cx.t.process.conds.insert(Cond::new(m, name))?;
    vm.write_u32(lc.0, lw.0)?;
    vm.write_u32(lc.0 + 4, id)
}

fn sys_lwcond_destroy(cx: &mut Cx<'_>, lc: Ptr) -> Result<(), CellError> {
    let id = cx.t.vm().read_u32(lc.0 + 4)?;
    cx.t.process.conds.remove_if(id, |c| {
        if c.waiters() > 0 {
            Err(CellError::EBUSY)
        } else {
            Ok(())
        }
    })?;
    cx.t.vm().write_u32(lc.0 + 4, 0)
}

fn sys_lwcond_wait(cx: &mut Cx<'_>, lc: Ptr, timeout: u64) -> Result<(), CellError> {
    let (c, lw) = kernel_lwcond(cx, lc)?;
    let r = c.wait(cx.t.tid(), cx.t.prio(), timeout);
    mirror(cx, lw, &c.mutex)?;
    r
}

fn sys_lwcond_signal(cx: &mut Cx<'_>, lc: Ptr) -> Result<(), CellError> {
    kernel_lwcond(cx, lc)?.0.signal();
    Ok(())
}

fn sys_lwcond_signal_all(cx: &mut Cx<'_>, lc: Ptr) -> Result<(), CellError> {
    kernel_lwcond(cx, lc)?.0.signal_all();
    Ok(())
}

fn sys_lwcond_signal_to(cx: &mut Cx<'_>, lc: Ptr, thread: u32) -> Result<(), CellError> {
    let (c, _) = kernel_lwcond(cx, lc)?;
    cx.t.process.threads.get(thread)?;
    c.signal_to(thread)
}

// ---- time, output, helpers ----

fn sys_time_get_system_time(cx: &mut Cx<'_>) -> u64 {
    cx.t.process.system_time_us()
}

/// `_sys_printf(fmt, ...)`: formats on the host, writes to TTY channel 0.
fn sys_printf(cx: &mut Cx<'_>, fmt: Ptr, va: VarArgs) -> Result<i32, CellError> {
    let f =
        cx.t.process
            .mem
            .read_cstr(fmt.0, 1 << 16)
            .map_err(|_| CellError::EFAULT)?;
    let out = crate::printf::format(cx.t, &f, va.0)?;
    cx.t.process.platform.console_write(0, &out);
    Ok(out.len() as i32)
}

fn sys_process_is_stack(_cx: &mut Cx<'_>, addr: u32) -> bool {
    addr >> 28 == 0xD
}

/// `sys_get_random_number(buf, size)`: up to 4096 bytes of xorshift output.
fn sys_get_random_number(cx: &mut Cx<'_>, buf: Ptr, size: u64) -> Result<(), CellError> {
    let n = size.min(4096) as usize;
    let mut out = vec![0u8; n];
    {
        let mut s = lock(&cx.rt.modules.prx.rng);
        if *s == 0 {
            *s = cx.t.process.platform.monotonic_ns() | 1;
        }
        for b in &mut out {
            *s ^= *s << 13;
            *s ^= *s >> 7;
            *s ^= *s << 17;
            *b = *s as u8;
        }
    }
    cx.t.vm().write_bytes(buf.0, &out)
}

// ---- spin locks: one 32-bit word, 0 free; taken with a reservation ----

fn sys_spinlock_initialize(cx: &mut Cx<'_>, lock_ptr: Ptr) -> Result<(), CellError> {
    cx.t.vm().write_u32(lock_ptr.0, 0)
}

fn spin_try(cx: &mut Cx<'_>, lock_ptr: Ptr) -> Result<bool, CellError> {
    let mem = &cx.t.process.mem;
    let mut res = guest_mem::Reservation::default();
    let v = mem
        .load_reserved_u32(&mut res, lock_ptr.0)
        .map_err(|_| CellError::EFAULT)?;
    if v != 0 {
        mem.clear_reservation(&mut res);
        return Ok(false);
    }
    let ok = mem
        .store_conditional_u32(&mut res, lock_ptr.0, 0xABAD_CAFE)
        .map_err(|_| CellError::EFAULT)?;
    Ok(ok)
}

fn sys_spinlock_lock(cx: &mut Cx<'_>, lock_ptr: Ptr) -> Result<(), CellError> {
    while !spin_try(cx, lock_ptr)? {
        cx.t.process.platform.spin_hint();
    }
    Ok(())
}

fn sys_spinlock_trylock(cx: &mut Cx<'_>, lock_ptr: Ptr) -> Result<(), CellError> {
    if spin_try(cx, lock_ptr)? {
        Ok(())
    } else {
        Err(CellError::EBUSY)
    }
}

fn sys_spinlock_unlock(cx: &mut Cx<'_>, lock_ptr: Ptr) -> Result<(), CellError> {
    cx.t.vm().write_u32(lock_ptr.0, 0)
}
