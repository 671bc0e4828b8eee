//! Event flags: a 64-bit pattern threads wait on (system calls 82..87,
//! 118, 132, 139).

use std::sync::{Arc, Mutex as StdMutex};

use crate::error::{CELL_OK, CellError, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;
use crate::sync::{Protocol, WaitQueue, Wake, block, lock};

/// `SYS_EVENT_FLAG_WAIT_AND`.
pub const WAIT_AND: u32 = 0x01;
/// `SYS_EVENT_FLAG_WAIT_OR`.
pub const WAIT_OR: u32 = 0x02;
/// `SYS_EVENT_FLAG_WAIT_CLEAR`.
pub const WAIT_CLEAR: u32 = 0x10;
/// `SYS_EVENT_FLAG_WAIT_CLEAR_ALL`.
pub const WAIT_CLEAR_ALL: u32 = 0x20;
/// `SYS_SYNC_WAITER_SINGLE`.
pub const WAITER_SINGLE: u32 = 0x10000;
/// `SYS_SYNC_WAITER_MULTIPLE`.
pub const WAITER_MULTIPLE: u32 = 0x20000;

#[derive(Debug, Default)]
struct FState {
    pattern: u64,
    queue: WaitQueue<(u64, u32)>,
}

/// An event flag.
#[derive(Debug)]
pub struct EventFlag {
    /// Waiter order.
    pub protocol: Protocol,
    /// Only one thread may wait at a time.
    pub single: bool,
    /// Its name.
    pub name: u64,
    state: StdMutex<FState>,
}

/// Checks a wait mode: exactly one of AND/OR, at most one of the clears.
pub fn check_mode(mode: u32) -> Result<(), CellError> {
    let op = mode & 0xF;
    let clear = mode & 0xF0;
    if (op != WAIT_AND && op != WAIT_OR)
        || (clear != 0 && clear != WAIT_CLEAR && clear != WAIT_CLEAR_ALL)
        || mode & !0xFF != 0
    {
        return Err(CellError::EINVAL);
    }
    Ok(())
}

fn satisfied(pattern: u64, bitptn: u64, mode: u32) -> bool {
    if mode & 0xF == WAIT_AND {
        pattern & bitptn == bitptn
    } else {
        pattern & bitptn != 0
    }
}

fn apply_clear(pattern: &mut u64, bitptn: u64, mode: u32) {
    match mode & 0xF0 {
        WAIT_CLEAR => *pattern &= !bitptn,
        WAIT_CLEAR_ALL => *pattern = 0,
        _ => {}
    }
}

impl EventFlag {
    /// An event flag holding `init`.
    pub fn new(protocol: Protocol, single: bool, init: u64, name: u64) -> EventFlag {
        EventFlag {
            protocol,
            single,
            name,
            state: StdMutex::new(FState {
                pattern: init,
                queue: WaitQueue::default(),
            }),
        }
    }

    /// Waits until `bitptn` is satisfied per `mode`; returns the pattern
    /// at that moment (before clearing). On a timeout, the pattern then is
    /// in the error's companion value.
    pub fn wait(
        &self,
        tid: u32,
        prio: i32,
        bitptn: u64,
        mode: u32,
        timeout_us: u64,
    ) -> Result<u64, (CellError, u64)> {
        check_mode(mode).map_err(|e| (e, 0))?;
        if bitptn == 0 {
            return Err((CellError::EINVAL, 0));
        }
        let mut st = lock(&self.state);
        if satisfied(st.pattern, bitptn, mode) {
            let r = st.pattern;
            apply_clear(&mut st.pattern, bitptn, mode);
            return Ok(r);
        }
        if self.single && !st.queue.is_empty() {
            return Err((CellError::EPERM, 0));
        }
        let slot = st.queue.push(tid, prio, (bitptn, mode));
        drop(st);
        match block(&slot, timeout_us, || lock(&self.state), |g| &mut g.queue) {
            Ok(Wake::Value(v)) => Ok(v),
            Ok(Wake::Error(e)) => Err((e, 0)),
            Ok(Wake::Event(_)) => Err((CellError::EINVAL, 0)),
            Err(e) => Err((e, lock(&self.state).pattern)),
        }
    }

    /// The non-blocking wait (`CELL_EBUSY` when not satisfied).
    pub fn trywait(&self, bitptn: u64, mode: u32) -> Result<u64, CellError> {
        check_mode(mode)?;
        let mut st = lock(&self.state);
        if !satisfied(st.pattern, bitptn, mode) {
            return Err(CellError::EBUSY);
        }
        let r = st.pattern;
        apply_clear(&mut st.pattern, bitptn, mode);
        Ok(r)
    }

    /// ORs `bitptn` in and wakes, in protocol order, every waiter it
    /// satisfies (each one's clear applies before the next is checked).
    pub fn set(&self, bitptn: u64) {
        let mut st = lock(&self.state);
        st.pattern |= bitptn;
        loop {
            let pattern = st.pattern;
            let Some(w) = st
                .queue
                .pop_if(self.protocol, |w| satisfied(pattern, w.data.0, w.data.1))
            else {
                break;
            };
            apply_clear(&mut st.pattern, w.data.0, w.data.1);
            w.slot.wake(Wake::Value(pattern));
        }
    }

    /// ANDs the pattern with `bitptn` (LV2's clear keeps the bits given).
    pub fn clear(&self, bitptn: u64) {
        lock(&self.state).pattern &= bitptn;
    }

    /// Wakes every waiter with `CELL_ECANCELED`; returns how many.
    pub fn cancel(&self) -> usize {
        let mut st = lock(&self.state);
        let all = st.queue.drain_ordered(self.protocol);
        for w in &all {
            w.slot.wake(Wake::Error(CellError::ECANCELED));
        }
        all.len()
    }

    /// The pattern now.
    pub fn get(&self) -> u64 {
        lock(&self.state).pattern
    }

    /// Whether it may be destroyed.
    pub fn check_destroy(&self) -> Result<(), CellError> {
        if lock(&self.state).queue.is_empty() {
            Ok(())
        } else {
            Err(CellError::EBUSY)
        }
    }
}

/// 82 `sys_event_flag_create(u32* id, attr*, u64 init)`.
pub fn sys_event_flag_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id_ptr, attr) = (t.arg_u32(0), t.arg_u32(1));
    let vm = t.vm();
    vm.check_writable(id_ptr, 4)?;
    let protocol = Protocol::from_attr(vm.read_u32(attr)?, true)?;
    let single = match vm.read_u32(attr + 20)? {
        WAITER_SINGLE => true,
        WAITER_MULTIPLE => false,
        _ => return Err(CellError::EINVAL.into()),
    };
    let name = vm.read_u64(attr + 24)?;
    let id = p
        .event_flags
        .insert(EventFlag::new(protocol, single, t.arg_u64(2), name))?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 83 `sys_event_flag_destroy(id)`.
pub fn sys_event_flag_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.event_flags
        .remove_if(t.arg_u32(0), EventFlag::check_destroy)?;
    CELL_OK
}

/// 85 `sys_event_flag_wait(id, bitptn, mode, u64* result, timeout)`.
pub fn sys_event_flag_wait(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let flag = p.event_flags.get(t.arg_u32(0))?;
    let result = t.arg_u32(3);
    if result != 0 {
        t.vm().check_writable(result, 8)?;
    }
    let r = flag.wait(t.tid(), t.prio(), t.arg_u64(1), t.arg_u32(2), t.arg_u64(4));
    let (value, ret) = match r {
        Ok(v) => (v, CELL_OK),
        Err((e, v)) => (v, Err(e.into())),
    };
    if result != 0 {
        t.vm().write_u64(result, value)?;
    }
    ret
}

/// 86 `sys_event_flag_trywait(id, bitptn, mode, u64* result)`.
pub fn sys_event_flag_trywait(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let v = p
        .event_flags
        .get(t.arg_u32(0))?
        .trywait(t.arg_u64(1), t.arg_u32(2))?;
    if t.arg_u32(3) != 0 {
        t.vm().write_u64(t.arg_u32(3), v)?;
    }
    CELL_OK
}

/// 87 `sys_event_flag_set(id, bitptn)`.
pub fn sys_event_flag_set(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.event_flags.get(t.arg_u32(0))?.set(t.arg_u64(1));
    CELL_OK
}

/// 118 `sys_event_flag_clear(id, bitptn)`.
pub fn sys_event_flag_clear(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.event_flags.get(t.arg_u32(0))?.clear(t.arg_u64(1));
    CELL_OK
}

/// 132 `sys_event_flag_cancel(id, int* num)`.
pub fn sys_event_flag_cancel(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let n = p.event_flags.get(t.arg_u32(0))?.cancel();
    if t.arg_u32(1) != 0 {
        t.vm().write_u32(t.arg_u32(1), n as u32)?;
    }
    CELL_OK
}

/// 139 `sys_event_flag_get(id, u64* flags)`.
pub fn sys_event_flag_get(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let ptr = t.arg_u32(1);
    t.vm().check_writable(ptr, 8)?;
    let v = p.event_flags.get(t.arg_u32(0))?.get();
    t.vm().write_u64(ptr, v)?;
    CELL_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_clears() {
        assert_eq!(check_mode(WAIT_AND | WAIT_OR), Err(CellError::EINVAL));
        assert_eq!(
            check_mode(WAIT_AND | WAIT_CLEAR | WAIT_CLEAR_ALL),
            Err(CellError::EINVAL)
        );
        let f = EventFlag::new(Protocol::Fifo, false, 0b1010, 0);
        assert_eq!(f.trywait(0b0011, WAIT_AND), Err(CellError::EBUSY));
        assert_eq!(f.trywait(0b0011, WAIT_OR | WAIT_CLEAR), Ok(0b1010));
        assert_eq!(f.get(), 0b1000);
        f.set(0b0001);
        assert_eq!(f.trywait(0b1001, WAIT_AND | WAIT_CLEAR_ALL), Ok(0b1001));
        assert_eq!(f.get(), 0);
        f.set(0b1111);
        f.clear(0b0101);
        assert_eq!(f.get(), 0b0101, "clear ANDs");
        assert_eq!(
            f.wait(1, 0, 0b10, WAIT_AND, 1000),
            Err((CellError::ETIMEDOUT, 0b0101))
        );
    }
}
