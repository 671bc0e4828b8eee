//! Counting semaphores (system calls 90..94, 114).

use std::sync::{Arc, Mutex as StdMutex};

use crate::error::{CELL_OK, CellError, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;
use crate::sync::{Protocol, WaitQueue, Wake, block, lock};

#[derive(Debug, Default)]
struct SState {
    value: i32,
    queue: WaitQueue<()>,
}

/// A semaphore with a maximum count.
#[derive(Debug)]
pub struct Semaphore {
    /// Waiter order.
    pub protocol: Protocol,
    /// The largest count.
    pub max: i32,
    /// Its name.
    pub name: u64,
    state: StdMutex<SState>,
}

impl Semaphore {
    /// A semaphore at `initial` (0..=max; max > 0).
    pub fn new(
        protocol: Protocol,
        initial: i32,
        max: i32,
        name: u64,
    ) -> Result<Semaphore, CellError> {
        if max <= 0 || initial < 0 || initial > max {
            return Err(CellError::EINVAL);
        }
        Ok(Semaphore {
            protocol,
            max,
            name,
            state: StdMutex::new(SState {
                value: initial,
                queue: WaitQueue::default(),
            }),
        })
    }

    /// Takes one count, waiting at most `timeout_us` (0: forever).
    pub fn wait(&self, tid: u32, prio: i32, timeout_us: u64) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.value > 0 {
            st.value -= 1;
            return Ok(());
        }
        let slot = st.queue.push(tid, prio, ());
        drop(st);
        block(&slot, timeout_us, || lock(&self.state), |g| &mut g.queue).map(drop)
    }

    /// Takes one count if there is one (`CELL_EBUSY` otherwise).
    pub fn trywait(&self) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.value > 0 {
            st.value -= 1;
            Ok(())
        } else {
            Err(CellError::EBUSY)
        }
    }

    /// Adds `count`: waiters take theirs first; `CELL_EBUSY` if the rest
    /// would pass the maximum.
    pub fn post(&self, count: i32) -> Result<(), CellError> {
        if count < 0 {
            return Err(CellError::EINVAL);
        }
        let mut st = lock(&self.state);
        let waking = (count as usize).min(st.queue.len()) as i32;
        if i64::from(st.value) + i64::from(count - waking) > i64::from(self.max) {
            return Err(CellError::EBUSY);
        }
        for _ in 0..waking {
            if let Some(w) = st.queue.pop(self.protocol) {
                w.slot.wake(Wake::Value(0));
            }
        }
        st.value += count - waking;
        Ok(())
    }

    /// The count now.
    pub fn value(&self) -> i32 {
        lock(&self.state).value
    }

    /// Whether it may be destroyed (nobody waits).
    pub fn check_destroy(&self) -> Result<(), CellError> {
        if lock(&self.state).queue.is_empty() {
            Ok(())
        } else {
            Err(CellError::EBUSY)
        }
    }
}

/// 90 `sys_semaphore_create(u32* id, attr*, initial, max)`.
pub fn sys_semaphore_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id_ptr, attr) = (t.arg_u32(0), t.arg_u32(1));
    let vm = t.vm();
    vm.check_writable(id_ptr, 4)?;
    let protocol = Protocol::from_attr(vm.read_u32(attr)?, true)?;
    let name = vm.read_u64(attr + 24)?;
    let sem = Semaphore::new(protocol, t.arg_i32(2), t.arg_i32(3), name)?;
    let id = p.semaphores.insert(sem)?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 91 `sys_semaphore_destroy(id)`.
pub fn sys_semaphore_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.semaphores
        .remove_if(t.arg_u32(0), Semaphore::check_destroy)?;
    CELL_OK
}

/// 92 `sys_semaphore_wait(id, timeout)`.
pub fn sys_semaphore_wait(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.semaphores
        .get(t.arg_u32(0))?
        .wait(t.tid(), t.prio(), t.arg_u64(1))?;
    CELL_OK
}

/// 93 `sys_semaphore_trywait(id)`.
pub fn sys_semaphore_trywait(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.semaphores.get(t.arg_u32(0))?.trywait()?;
    CELL_OK
}

/// 94 `sys_semaphore_post(id, count)`.
pub fn sys_semaphore_post(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.semaphores.get(t.arg_u32(0))?.post(t.arg_i32(1))?;
    CELL_OK
}

/// 114 `sys_semaphore_get_value(id, s32* value)`.
pub fn sys_semaphore_get_value(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let v = p.semaphores.get(t.arg_u32(0))?.value();
    t.vm().write_u32(t.arg_u32(1), v as u32)?;
    CELL_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_limits() {
        assert!(Semaphore::new(Protocol::Fifo, 2, 1, 0).is_err());
        assert!(Semaphore::new(Protocol::Fifo, 0, 0, 0).is_err());
        let s = Semaphore::new(Protocol::Fifo, 1, 2, 0).expect("sem");
        s.trywait().expect("1 -> 0");
        assert_eq!(s.trywait(), Err(CellError::EBUSY));
        assert_eq!(s.wait(1, 0, 1000), Err(CellError::ETIMEDOUT));
        s.post(2).expect("0 -> 2");
        assert_eq!(s.post(1), Err(CellError::EBUSY));
        assert_eq!(s.post(-1), Err(CellError::EINVAL));
        assert_eq!(s.value(), 2);
    }
}
