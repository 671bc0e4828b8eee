//! Event queues and event ports (system calls 128..138).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex as StdMutex, Weak};

use crate::error::{CELL_OK, CellError, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;
use crate::sync::{Protocol, WaitQueue, Wake, block, lock};

/// `SYS_PPU_QUEUE`.
pub const SYS_PPU_QUEUE: i32 = 1;
/// `SYS_SPU_QUEUE`.
pub const SYS_SPU_QUEUE: i32 = 2;
/// `SYS_EVENT_QUEUE_DESTROY_FORCE`.
pub const SYS_EVENT_QUEUE_DESTROY_FORCE: i32 = 1;
/// `SYS_EVENT_PORT_LOCAL`.
pub const SYS_EVENT_PORT_LOCAL: i32 = 1;
/// The most events a queue holds.
pub const MAX_QUEUE_SIZE: i32 = 127;

#[derive(Debug, Default)]
struct QState {
    events: VecDeque<[u64; 4]>,
    queue: WaitQueue<()>,
    destroyed: bool,
}

/// An event queue: events (source, data1..3) sent by ports and timers,
/// received by PPU threads.
#[derive(Debug)]
pub struct EventQueue {
    /// Receiver order.
    pub protocol: Protocol,
    /// `SYS_PPU_QUEUE` or `SYS_SPU_QUEUE`.
    pub kind: i32,
    /// How many events it holds at most.
    pub size: usize,
    /// Its name.
    pub name: u64,
    state: StdMutex<QState>,
}

impl EventQueue {
    /// An empty queue.
    pub fn new(
        protocol: Protocol,
        kind: i32,
        size: i32,
        name: u64,
    ) -> Result<EventQueue, CellError> {
        if !(1..=MAX_QUEUE_SIZE).contains(&size) || (kind != SYS_PPU_QUEUE && kind != SYS_SPU_QUEUE)
        {
            return Err(CellError::EINVAL);
        }
        Ok(EventQueue {
            protocol,
            kind,
            size: size as usize,
            name,
            state: StdMutex::default(),
        })
    }

    /// Sends an event: to a waiting receiver, or into the queue
    /// (`CELL_EBUSY` when full, `CELL_ENOTCONN` once destroyed).
    pub fn send(&self, ev: [u64; 4]) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.destroyed {
            return Err(CellError::ENOTCONN);
        }
        if let Some(w) = st.queue.pop(self.protocol) {
            w.slot.wake(Wake::Event(ev));
            return Ok(());
        }
        if st.events.len() >= self.size {
            return Err(CellError::EBUSY);
        }
        st.events.push_back(ev);
        Ok(())
    }

    /// Receives one event, waiting at most `timeout_us` (0: forever).
    pub fn receive(&self, tid: u32, prio: i32, timeout_us: u64) -> Result<[u64; 4], CellError> {
        if self.kind != SYS_PPU_QUEUE {
            return Err(CellError::EINVAL);
        }
        let mut st = lock(&self.state);
        if let Some(ev) = st.events.pop_front() {
            return Ok(ev);
        }
        let slot = st.queue.push(tid, prio, ());
        drop(st);
        match block(&slot, timeout_us, || lock(&self.state), |g| &mut g.queue)? {
            Wake::Event(ev) => Ok(ev),
            Wake::Error(e) => Err(e),
            Wake::Value(_) => Err(CellError::ECANCELED),
        }
    }

    /// Takes up to `max` queued events without waiting.
    pub fn try_receive(&self, max: usize) -> Vec<[u64; 4]> {
        let mut st = lock(&self.state);
        let n = max.min(st.events.len());
        st.events.drain(..n).collect()
    }

    /// Drops every queued event.
    pub fn drain(&self) {
        lock(&self.state).events.clear();
    }

    /// Marks it destroyed: with `force`, receivers get `CELL_ECANCELED`;
    /// without, `CELL_EBUSY` while any waits.
    pub fn destroy(&self, force: bool) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if !st.queue.is_empty() && !force {
            return Err(CellError::EBUSY);
        }
        st.destroyed = true;
        for w in st.queue.drain_ordered(self.protocol) {
            w.slot.wake(Wake::Error(CellError::ECANCELED));
        }
        Ok(())
    }
}

/// A local event port, connected to at most one queue.
#[derive(Debug)]
pub struct EventPort {
    /// Its name: the events' source (0: the process id and port id).
    pub name: u64,
    queue: StdMutex<Option<Weak<EventQueue>>>,
}

impl EventPort {
    /// A port that is not connected.
    pub fn new(name: u64) -> EventPort {
        EventPort {
            name,
            queue: StdMutex::new(None),
        }
    }

    /// Whether it is connected to a live queue.
    pub fn connected(&self) -> bool {
        lock(&self.queue).as_ref().and_then(Weak::upgrade).is_some()
    }
}

/// 128 `sys_event_queue_create(u32* id, attr*, ipc_key, size)`.
pub fn sys_event_queue_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id_ptr, attr) = (t.arg_u32(0), t.arg_u32(1));
    let vm = t.vm();
    vm.check_writable(id_ptr, 4)?;
    let protocol = match vm.read_u32(attr)? {
        1 => Protocol::Fifo,
        2 => Protocol::Priority,
        _ => return Err(CellError::EINVAL.into()),
    };
    let kind = vm.read_u32(attr + 4)? as i32;
    let name = vm.read_u64(attr + 8)?;
    let q = EventQueue::new(protocol, kind, t.arg_i32(3), name)?;
    let id = p.event_queues.insert(q)?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 129 `sys_event_queue_destroy(id, mode)`.
pub fn sys_event_queue_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let mode = t.arg_i32(1);
    if mode != 0 && mode != SYS_EVENT_QUEUE_DESTROY_FORCE {
        return Err(CellError::EINVAL.into());
    }
    p.event_queues.remove_if(t.arg_u32(0), |q| {
        q.destroy(mode == SYS_EVENT_QUEUE_DESTROY_FORCE)
    })?;
    CELL_OK
}

/// 130 `sys_event_queue_receive(id, event* (unused), timeout)`: the event
/// comes back in r4..r7 (source, data1, data2, data3).
pub fn sys_event_queue_receive(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let q = p.event_queues.get(t.arg_u32(0))?;
    let ev = q.receive(t.tid(), t.prio(), t.arg_u64(2))?;
    t.ctx.gpr[4..8].copy_from_slice(&ev);
    CELL_OK
}

/// 131 `sys_event_queue_tryreceive(id, sys_event_t* array, size, int* number)`.
pub fn sys_event_queue_tryreceive(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let q = p.event_queues.get(t.arg_u32(0))?;
    if q.kind != SYS_PPU_QUEUE {
        return Err(CellError::EINVAL.into());
    }
    let (array, size, number) = (t.arg_u32(1), t.arg_i32(2), t.arg_u32(3));
    let vm = t.vm();
    vm.check_writable(number, 4)?;
    let size = size.max(0) as u32;
    if size > 0 {
        vm.check_writable(array, size * 32)?;
    }
    let events = q.try_receive(size as usize);
    for (i, ev) in events.iter().enumerate() {
        for (k, v) in ev.iter().enumerate() {
            vm.write_u64(array + 32 * i as u32 + 8 * k as u32, *v)?;
        }
    }
    vm.write_u32(number, events.len() as u32)?;
    CELL_OK
}

/// 133 `sys_event_queue_drain(id)`.
pub fn sys_event_queue_drain(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.event_queues.get(t.arg_u32(0))?.drain();
    CELL_OK
}

/// 134 `sys_event_port_create(u32* id, type, name)`.
pub fn sys_event_port_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let id_ptr = t.arg_u32(0);
    t.vm().check_writable(id_ptr, 4)?;
    if t.arg_i32(1) != SYS_EVENT_PORT_LOCAL {
        return Err(CellError::EINVAL.into());
    }
    let id = p.event_ports.insert(EventPort::new(t.arg_u64(2)))?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 135 `sys_event_port_destroy(id)`.
pub fn sys_event_port_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.event_ports.remove_if(t.arg_u32(0), |port| {
        if port.connected() {
            Err(CellError::EISCONN)
        } else {
            Ok(())
        }
    })?;
    CELL_OK
}

/// 136 `sys_event_port_connect_local(port, queue)`.
pub fn sys_event_port_connect_local(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let port = p.event_ports.get(t.arg_u32(0))?;
    let queue = p.event_queues.get(t.arg_u32(1))?;
    let mut slot = lock(&port.queue);
    if slot.as_ref().and_then(Weak::upgrade).is_some() {
        return Err(CellError::EISCONN.into());
    }
    *slot = Some(Arc::downgrade(&queue));
    CELL_OK
}

/// 137 `sys_event_port_disconnect(port)`.
pub fn sys_event_port_disconnect(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let port = p.event_ports.get(t.arg_u32(0))?;
    let mut slot = lock(&port.queue);
    if slot.take().and_then(|w| w.upgrade()).is_none() {
        return Err(CellError::ENOTCONN.into());
    }
    CELL_OK
}

/// 138 `sys_event_port_send(port, data1, data2, data3)`.
pub fn sys_event_port_send(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let id = t.arg_u32(0);
    let port = p.event_ports.get(id)?;
    let queue = lock(&port.queue)
        .as_ref()
        .and_then(Weak::upgrade)
        .ok_or(CellError::ENOTCONN)?;
    let source = if port.name != 0 {
        port.name
    } else {
        (u64::from(crate::PROCESS_ID) << 32) | u64::from(id)
    };
    queue.send([source, t.arg_u64(1), t.arg_u64(2), t.arg_u64(3)])?;
    CELL_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_limits_and_destroy() {
        assert!(EventQueue::new(Protocol::Fifo, SYS_PPU_QUEUE, 0, 0).is_err());
        assert!(EventQueue::new(Protocol::Fifo, 3, 4, 0).is_err());
        let q = EventQueue::new(Protocol::Fifo, SYS_PPU_QUEUE, 2, 0).expect("queue");
        q.send([1, 2, 3, 4]).expect("1");
        q.send([5, 6, 7, 8]).expect("2");
        assert_eq!(q.send([0; 4]), Err(CellError::EBUSY));
        assert_eq!(q.receive(1, 0, 0), Ok([1, 2, 3, 4]));
        assert_eq!(q.try_receive(8), vec![[5, 6, 7, 8]]);
        assert_eq!(q.receive(1, 0, 1000), Err(CellError::ETIMEDOUT));
        let q = Arc::new(q);
        let q2 = q.clone();
        let h = std::thread::spawn(move || q2.receive(2, 0, 0));
        while lock(&q.state).queue.is_empty() {
            std::thread::yield_now();
        }
        assert_eq!(q.destroy(false), Err(CellError::EBUSY));
        q.destroy(true).expect("force");
        assert_eq!(h.join().expect("join"), Err(CellError::ECANCELED));
        assert_eq!(q.send([0; 4]), Err(CellError::ENOTCONN));
    }
}
