//! Timers that send events to a queue (system calls 70..76). Each timer
//! that has been started has a host thread that sleeps to its expiry.

use std::sync::{Arc, Condvar, Mutex as StdMutex, Weak};
use std::time::Duration;

use crate::error::{CELL_OK, CellError, SysResult};
use crate::event::EventQueue;
use crate::exec::GuestThread;
use crate::process::Process;
use crate::sync::lock;

/// `SYS_TIMER_STATE_STOP`.
pub const SYS_TIMER_STATE_STOP: u32 = 0;
/// `SYS_TIMER_STATE_RUN`.
pub const SYS_TIMER_STATE_RUN: u32 = 1;

#[derive(Debug, Default)]
struct TState {
    running: bool,
    expire: u64,
    period: u64,
    /// The queue and the event's source, data1, data2.
    port: Option<(Weak<EventQueue>, u64, u64, u64)>,
    destroyed: bool,
    thread: bool,
}

/// A timer.
#[derive(Debug, Default)]
pub struct Timer {
    state: StdMutex<TState>,
    cv: Condvar,
}

impl Timer {
    fn fire(&self, st: &mut TState, now: u64) {
        if let Some((q, source, d1, d2)) = &st.port
            && let Some(q) = q.upgrade()
            && let Err(e) = q.send([*source, *d1, *d2, st.expire])
        {
            log::debug!("timer event dropped: {e}");
        }
        if st.period > 0 {
            st.expire += st.period;
            if st.expire <= now {
                // Fell behind (the host was busy): skip the missed periods.
                st.expire = now + st.period - (now - st.expire) % st.period;
            }
        } else {
            st.running = false;
        }
    }

    fn run(self: Arc<Self>, process: Arc<Process>) {
        let mut st = lock(&self.state);
        loop {
            if st.destroyed || process.has_exited() {
                return;
            }
            if !st.running {
                st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            let now = process.system_time_us();
            if now >= st.expire {
                self.fire(&mut st, now);
                continue;
            }
            let wait = Duration::from_micros(st.expire - now);
            st = self
                .cv
                .wait_timeout(st, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// 70 `sys_timer_create(u32* id)`.
pub fn sys_timer_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let id_ptr = t.arg_u32(0);
    t.vm().check_writable(id_ptr, 4)?;
    let id = p.timers.insert(Timer::default())?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 71 `sys_timer_destroy(id)`.
pub fn sys_timer_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let timer = p.timers.remove_if(t.arg_u32(0), |tm| {
        if lock(&tm.state).port.is_some() {
            Err(CellError::EISCONN)
        } else {
            Ok(())
        }
    })?;
    lock(&timer.state).destroyed = true;
    timer.cv.notify_all();
    CELL_OK
}

/// 72 `sys_timer_get_information(id, sys_timer_information_t* info)`:
/// next expiry, period, state.
pub fn sys_timer_get_information(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let timer = p.timers.get(t.arg_u32(0))?;
    let info = t.arg_u32(1);
    let vm = t.vm();
    vm.check_writable(info, 24)?;
    let (expire, period, state) = {
        let st = lock(&timer.state);
        (
            st.expire,
            st.period,
            if st.running {
                SYS_TIMER_STATE_RUN
            } else {
                SYS_TIMER_STATE_STOP
            },
        )
    };
    vm.write_u64(info, expire)?;
    vm.write_u64(info + 8, period)?;
    vm.write_u32(info + 16, state)?;
    vm.write_u32(info + 20, 0)?;
    CELL_OK
}

/// 73 `_sys_timer_start(id, base_time, period)`: first expiry at
/// `base_time` (µs of system time; 0: one period from now), then every
/// `period` µs (0: once).
pub fn sys_timer_start(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let timer = p.timers.get(t.arg_u32(0))?;
    let (base, period) = (t.arg_u64(1), t.arg_u64(2));
    if period != 0 && period < 100 {
        return Err(CellError::EINVAL.into());
    }
    if base == 0 && period == 0 {
        return Err(CellError::EINVAL.into());
    }
    let mut st = lock(&timer.state);
    if st.running {
        return Err(CellError::EBUSY.into());
    }
    if st.port.is_none() {
        return Err(CellError::ENOTCONN.into());
    }
    let now = p.system_time_us();
    st.expire = if base == 0 { now + period } else { base };
    st.period = period;
    st.running = true;
    if !st.thread {
        st.thread = true;
        let (timer2, p2) = (timer.clone(), p.clone());
        let name = format!("lv2-timer-{:x}", t.arg_u32(0));
        if let Err(e) = p
            .platform
            .spawn(&name, 256 << 10, Box::new(move || timer2.run(p2)))
        {
            log::error!("{e}");
            st.thread = false;
            st.running = false;
            return Err(CellError::EAGAIN.into());
        }
    }
    drop(st);
    timer.cv.notify_all();
    CELL_OK
}

/// 74 `sys_timer_stop(id)`.
pub fn sys_timer_stop(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let timer = p.timers.get(t.arg_u32(0))?;
    lock(&timer.state).running = false;
    timer.cv.notify_all();
    CELL_OK
}

/// 75 `sys_timer_connect_event_queue(id, queue, name, data1, data2)`.
pub fn sys_timer_connect_event_queue(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let id = t.arg_u32(0);
    let timer = p.timers.get(id)?;
    let queue = p.event_queues.get(t.arg_u32(1))?;
    let mut st = lock(&timer.state);
    if st
        .port
        .as_ref()
        .is_some_and(|(q, ..)| q.upgrade().is_some())
    {
        return Err(CellError::EISCONN.into());
    }
    let name = t.arg_u64(2);
    let source = if name != 0 {
        name
    } else {
        (u64::from(crate::PROCESS_ID) << 32) | u64::from(id)
    };
    st.port = Some((Arc::downgrade(&queue), source, t.arg_u64(3), t.arg_u64(4)));
    CELL_OK
}

/// 76 `sys_timer_disconnect_event_queue(id)` (stops the timer).
pub fn sys_timer_disconnect_event_queue(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let timer = p.timers.get(t.arg_u32(0))?;
    let mut st = lock(&timer.state);
    if st.port.take().is_none() {
        return Err(CellError::ENOTCONN.into());
    }
    st.running = false;
    drop(st);
    timer.cv.notify_all();
    CELL_OK
}
