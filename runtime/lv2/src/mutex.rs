//! Mutexes, condition variables and reader/writer locks (system calls
//! 100..110 and 120..127, 148). The lightweight mutex and condition of
//! sysPrxForUser are built on the same objects (see the `hle` crate).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex as StdMutex};

use crate::error::{CELL_OK, CellError, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;
use crate::sync::{
    Protocol, SYS_SYNC_NOT_RECURSIVE, SYS_SYNC_RECURSIVE, WaitQueue, Wake, block, lock,
};

#[derive(Debug, Default)]
struct MState {
    owner: u32,
    /// Extra recursive locks beyond the first.
    count: u32,
    queue: WaitQueue<()>,
}

/// A kernel mutex.
#[derive(Debug)]
pub struct Mutex {
    /// Waiter order.
    pub protocol: Protocol,
    /// Whether the owner may lock it again.
    pub recursive: bool,
    /// Its name (8 bytes).
    pub name: u64,
    /// How many condition variables use it.
    pub cond_count: AtomicU32,
    state: StdMutex<MState>,
}

impl Mutex {
    /// A free mutex.
    pub fn new(protocol: Protocol, recursive: bool, name: u64) -> Mutex {
        Mutex {
            protocol,
            recursive,
            name,
            cond_count: AtomicU32::new(0),
            state: StdMutex::default(),
        }
    }

    /// The owning thread, 0 when free.
    pub fn owner(&self) -> u32 {
        lock(&self.state).owner
    }

    /// The owner's extra recursive locks.
    pub fn recursion(&self) -> u32 {
        lock(&self.state).count
    }

    fn try_take(&self, st: &mut MState, tid: u32) -> Option<Result<(), CellError>> {
        if st.owner == tid {
            if !self.recursive {
                return Some(Err(CellError::EDEADLK));
            }
            if st.count == u32::MAX {
                return Some(Err(CellError::EKRESOURCE));
            }
            st.count += 1;
            return Some(Ok(()));
        }
        if st.owner == 0 {
            st.owner = tid;
            return Some(Ok(()));
        }
        None
    }

    /// Locks it for thread `tid`, waiting at most `timeout_us` (0: forever).
    pub fn lock(&self, tid: u32, prio: i32, timeout_us: u64) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if let Some(r) = self.try_take(&mut st, tid) {
            return r;
        }
        let slot = st.queue.push(tid, prio, ());
        drop(st);
        // The unlocking thread makes us the owner before waking us.
        block(&slot, timeout_us, || lock(&self.state), |g| &mut g.queue).map(drop)
    }

    /// Locks it if that needs no wait (`CELL_EBUSY` otherwise).
    pub fn trylock(&self, tid: u32) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        self.try_take(&mut st, tid).unwrap_or(Err(CellError::EBUSY))
    }

    fn hand_over(&self, st: &mut MState) {
        match st.queue.pop(self.protocol) {
            Some(w) => {
                st.owner = w.tid;
                st.count = 0;
                w.slot.wake(Wake::Value(0));
            }
            None => st.owner = 0,
        }
    }

    /// Unlocks it (`CELL_EPERM` unless `tid` owns it).
    pub fn unlock(&self, tid: u32) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.owner != tid {
            return Err(CellError::EPERM);
        }
        if st.count > 0 {
            st.count -= 1;
            return Ok(());
        }
        self.hand_over(&mut st);
        Ok(())
    }

    /// Releases every recursive lock `tid` holds (a condition wait);
    /// returns how many extra it held.
    pub fn release_all(&self, tid: u32) -> Result<u32, CellError> {
        let mut st = lock(&self.state);
        if st.owner != tid {
            return Err(CellError::EPERM);
        }
        let count = st.count;
        self.hand_over(&mut st);
        Ok(count)
    }

    /// Takes it back after a condition wait, with `count` extra locks.
    pub fn reacquire(&self, tid: u32, prio: i32, count: u32) {
        loop {
            match self.lock(tid, prio, 0) {
                Ok(()) => break,
                Err(CellError::EDEADLK) => break,
                Err(e) => log::error!("reacquiring mutex after a condition wait: {e}"),
            }
        }
        lock(&self.state).count = count;
    }

    /// Whether it may be destroyed (free and unused by conditions).
    pub fn check_destroy(&self) -> Result<(), CellError> {
        if lock(&self.state).owner != 0 {
            return Err(CellError::EBUSY);
        }
        if self.cond_count.load(Ordering::Acquire) != 0 {
            return Err(CellError::EPERM);
        }
        Ok(())
    }
}

/// A kernel condition variable, bound to one mutex.
#[derive(Debug)]
pub struct Cond {
    /// The mutex it is used with.
    pub mutex: Arc<Mutex>,
    /// Its name.
    pub name: u64,
    queue: StdMutex<WaitQueue<()>>,
}

impl Cond {
    /// A condition variable over `mutex`.
    pub fn new(mutex: Arc<Mutex>, name: u64) -> Cond {
        mutex.cond_count.fetch_add(1, Ordering::AcqRel);
        Cond {
            mutex,
            name,
            queue: StdMutex::default(),
        }
    }

    /// Waits for a signal: releases the mutex (which `tid` must own),
    /// waits at most `timeout_us` (0: forever), takes the mutex back.
    pub fn wait(&self, tid: u32, prio: i32, timeout_us: u64) -> Result<(), CellError> {
        if self.mutex.owner() != tid {
            return Err(CellError::EPERM);
        }
        let slot = lock(&self.queue).push(tid, prio, ());
        let count = match self.mutex.release_all(tid) {
            Ok(c) => c,
            Err(e) => {
                lock(&self.queue).remove(&slot);
                return Err(e);
            }
        };
        let r = block(&slot, timeout_us, || lock(&self.queue), |g| &mut **g);
        self.mutex.reacquire(tid, prio, count);
        match r {
            Ok(Wake::Error(e)) => Err(e),
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Wakes one waiter (in the mutex's protocol order); false when none.
    pub fn signal(&self) -> bool {
        let mut q = lock(&self.queue);
        match q.pop(self.mutex.protocol) {
            Some(w) => {
                w.slot.wake(Wake::Value(0));
                true
            }
            None => false,
        }
    }

    /// Wakes every waiter; returns how many.
    pub fn signal_all(&self) -> usize {
        let mut q = lock(&self.queue);
        let all = q.drain_ordered(self.mutex.protocol);
        for w in &all {
            w.slot.wake(Wake::Value(0));
        }
        all.len()
    }

    /// Wakes thread `tid` if it waits here (`CELL_EPERM` otherwise).
    pub fn signal_to(&self, tid: u32) -> Result<(), CellError> {
        let mut q = lock(&self.queue);
        let w = q.remove_tid(tid).ok_or(CellError::EPERM)?;
        w.slot.wake(Wake::Value(0));
        Ok(())
    }

    /// How many wait.
    pub fn waiters(&self) -> usize {
        lock(&self.queue).len()
    }
}

impl Drop for Cond {
    fn drop(&mut self) {
        self.mutex.cond_count.fetch_sub(1, Ordering::AcqRel);
    }
}

#[derive(Debug, Default)]
struct RwState {
    writer: u32,
    readers: u32,
    /// `true`: a writer waits.
    queue: WaitQueue<bool>,
}

/// A reader/writer lock. Writers are preferred: once one waits, new
/// readers queue behind it.
#[derive(Debug)]
pub struct RwLock {
    /// Waiter order.
    pub protocol: Protocol,
    /// Its name.
    pub name: u64,
    state: StdMutex<RwState>,
}

impl RwLock {
    /// A free lock.
    pub fn new(protocol: Protocol, name: u64) -> RwLock {
        RwLock {
            protocol,
            name,
            state: StdMutex::default(),
        }
    }

    fn writer_waits(st: &RwState) -> bool {
        st.queue.iter().any(|w| w.data)
    }

    /// Takes a read lock.
    pub fn rlock(
        &self,
        tid: u32,
        prio: i32,
        timeout_us: u64,
        try_only: bool,
    ) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.writer == tid {
            return Err(CellError::EDEADLK);
        }
        if st.writer == 0 && !Self::writer_waits(&st) {
            st.readers += 1;
            return Ok(());
        }
        if try_only {
            return Err(CellError::EBUSY);
        }
        let slot = st.queue.push(tid, prio, false);
        drop(st);
        block(&slot, timeout_us, || lock(&self.state), |g| &mut g.queue).map(drop)
    }

    /// Takes the write lock.
    pub fn wlock(
        &self,
        tid: u32,
        prio: i32,
        timeout_us: u64,
        try_only: bool,
    ) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.writer == tid {
            return Err(CellError::EDEADLK);
        }
        if st.writer == 0 && st.readers == 0 {
            st.writer = tid;
            return Ok(());
        }
        if try_only {
            return Err(CellError::EBUSY);
        }
        let slot = st.queue.push(tid, prio, true);
        drop(st);
        block(&slot, timeout_us, || lock(&self.state), |g| &mut g.queue).map(drop)
    }

    fn wake_next(&self, st: &mut RwState) {
        if st.writer != 0 || st.readers != 0 {
            return;
        }
        if let Some(w) = st.queue.pop_if(self.protocol, |w| w.data) {
            st.writer = w.tid;
            w.slot.wake(Wake::Value(0));
            return;
        }
        for w in st.queue.drain_ordered(self.protocol) {
            st.readers += 1;
            w.slot.wake(Wake::Value(0));
        }
    }

    /// Releases a read lock.
    pub fn runlock(&self) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.readers == 0 {
            return Err(CellError::EPERM);
        }
        st.readers -= 1;
        self.wake_next(&mut st);
        Ok(())
    }

    /// Releases the write lock.
    pub fn wunlock(&self, tid: u32) -> Result<(), CellError> {
        let mut st = lock(&self.state);
        if st.writer != tid {
            return Err(CellError::EPERM);
        }
        st.writer = 0;
        self.wake_next(&mut st);
        Ok(())
    }

    /// Whether it may be destroyed.
    pub fn check_destroy(&self) -> Result<(), CellError> {
        let st = lock(&self.state);
        if st.writer != 0 || st.readers != 0 || !st.queue.is_empty() {
            return Err(CellError::EBUSY);
        }
        Ok(())
    }
}

// ------------------------------------------------------------ syscalls --

/// 100 `sys_mutex_create(u32* id, sys_mutex_attribute_t* attr)`.
pub fn sys_mutex_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id_ptr, attr) = (t.arg_u32(0), t.arg_u32(1));
    let vm = t.vm();
    vm.check_writable(id_ptr, 4)?;
    let protocol = Protocol::from_attr(vm.read_u32(attr)?, true)?;
    let recursive = match vm.read_u32(attr + 4)? {
        SYS_SYNC_RECURSIVE => true,
        SYS_SYNC_NOT_RECURSIVE => false,
        _ => return Err(CellError::EINVAL.into()),
    };
    let name = vm.read_u64(attr + 32)?;
    let id = p.mutexes.insert(Mutex::new(protocol, recursive, name))?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 101 `sys_mutex_destroy(id)`.
pub fn sys_mutex_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.mutexes.remove_if(t.arg_u32(0), Mutex::check_destroy)?;
    CELL_OK
}

/// 102 `sys_mutex_lock(id, timeout)`.
pub fn sys_mutex_lock(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.mutexes
        .get(t.arg_u32(0))?
        .lock(t.tid(), t.prio(), t.arg_u64(1))?;
    CELL_OK
}

/// 103 `sys_mutex_trylock(id)`.
pub fn sys_mutex_trylock(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.mutexes.get(t.arg_u32(0))?.trylock(t.tid())?;
    CELL_OK
}

/// 104 `sys_mutex_unlock(id)`.
pub fn sys_mutex_unlock(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.mutexes.get(t.arg_u32(0))?.unlock(t.tid())?;
    CELL_OK
}

/// 105 `sys_cond_create(u32* id, mutex_id, sys_cond_attribute_t* attr)`.
pub fn sys_cond_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id_ptr, mutex_id, attr) = (t.arg_u32(0), t.arg_u32(1), t.arg_u32(2));
    let vm = t.vm();
    vm.check_writable(id_ptr, 4)?;
    let name = vm.read_u64(attr + 16)?;
    let mutex = p.mutexes.get(mutex_id)?;
    let id = p.conds.insert(Cond::new(mutex, name))?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 106 `sys_cond_destroy(id)`.
pub fn sys_cond_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.conds.remove_if(t.arg_u32(0), |c| {
        if c.waiters() > 0 {
            Err(CellError::EBUSY)
        } else {
            Ok(())
        }
    })?;
    CELL_OK
}

/// 107 `sys_cond_wait(id, timeout)`.
pub fn sys_cond_wait(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.conds
        .get(t.arg_u32(0))?
        .wait(t.tid(), t.prio(), t.arg_u64(1))?;
    CELL_OK
}

/// 108 `sys_cond_signal(id)`.
pub fn sys_cond_signal(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.conds.get(t.arg_u32(0))?.signal();
    CELL_OK
}

/// 109 `sys_cond_signal_all(id)`.
pub fn sys_cond_signal_all(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.conds.get(t.arg_u32(0))?.signal_all();
    CELL_OK
}

/// 110 `sys_cond_signal_to(id, thread_id)`.
pub fn sys_cond_signal_to(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let cond = p.conds.get(t.arg_u32(0))?;
    let target = t.arg_u32(1);
    p.threads.get(target)?;
    cond.signal_to(target)?;
    CELL_OK
}

/// 120 `sys_rwlock_create(u32* id, sys_rwlock_attribute_t* attr)`.
pub fn sys_rwlock_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (id_ptr, attr) = (t.arg_u32(0), t.arg_u32(1));
    let vm = t.vm();
    vm.check_writable(id_ptr, 4)?;
    let protocol = Protocol::from_attr(vm.read_u32(attr)?, true)?;
    let name = vm.read_u64(attr + 24)?;
    let id = p.rwlocks.insert(RwLock::new(protocol, name))?;
    t.vm().write_u32(id_ptr, id)?;
    CELL_OK
}

/// 121 `sys_rwlock_destroy(id)`.
pub fn sys_rwlock_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.rwlocks.remove_if(t.arg_u32(0), RwLock::check_destroy)?;
    CELL_OK
}

/// 122 `sys_rwlock_rlock(id, timeout)` and 123 `sys_rwlock_tryrlock(id)`.
pub fn sys_rwlock_rlock(p: &Arc<Process>, t: &mut GuestThread, try_only: bool) -> SysResult {
    p.rwlocks.get(t.arg_u32(0))?.rlock(
        t.tid(),
        t.prio(),
        if try_only { 0 } else { t.arg_u64(1) },
        try_only,
    )?;
    CELL_OK
}

/// 124 `sys_rwlock_runlock(id)`.
pub fn sys_rwlock_runlock(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.rwlocks.get(t.arg_u32(0))?.runlock()?;
    CELL_OK
}

/// 125 `sys_rwlock_wlock(id, timeout)`, 126 `sys_rwlock_trywlock(id)`.
pub fn sys_rwlock_wlock(p: &Arc<Process>, t: &mut GuestThread, try_only: bool) -> SysResult {
    p.rwlocks.get(t.arg_u32(0))?.wlock(
        t.tid(),
        t.prio(),
        if try_only { 0 } else { t.arg_u64(1) },
        try_only,
    )?;
    CELL_OK
}

/// 127 `sys_rwlock_wunlock(id)`.
pub fn sys_rwlock_wunlock(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.rwlocks.get(t.arg_u32(0))?.wunlock(t.tid())?;
    CELL_OK
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn mutex_rules() {
        let m = Mutex::new(Protocol::Priority, false, 0);
        m.lock(1, 100, 0).expect("free");
        assert_eq!(m.lock(1, 100, 0), Err(CellError::EDEADLK));
        assert_eq!(m.trylock(2), Err(CellError::EBUSY));
        assert_eq!(m.unlock(2), Err(CellError::EPERM));
        assert_eq!(m.lock(2, 100, 2000), Err(CellError::ETIMEDOUT));
        assert_eq!(m.check_destroy(), Err(CellError::EBUSY));
        m.unlock(1).expect("unlock");
        m.check_destroy().expect("free again");
        let r = Mutex::new(Protocol::Fifo, true, 0);
        r.lock(1, 0, 0).expect("1");
        r.lock(1, 0, 0).expect("2");
        r.unlock(1).expect("-1");
        assert_eq!(r.owner(), 1);
        r.unlock(1).expect("-2");
        assert_eq!(r.owner(), 0);
    }

    #[test]
    fn unlock_hands_the_mutex_to_the_highest_priority_waiter() {
        let m = Arc::new(Mutex::new(Protocol::Priority, false, 0));
        m.lock(1, 100, 0).expect("owner");
        let mut hs = Vec::new();
        for (tid, prio) in [(2, 500), (3, 50)] {
            let m = m.clone();
            hs.push(std::thread::spawn(move || {
                m.lock(tid, prio, 0).expect("lock");
                let o = m.owner();
                m.unlock(tid).expect("unlock");
                o
            }));
            std::thread::sleep(Duration::from_millis(20));
        }
        m.unlock(1).expect("unlock");
        let owners: Vec<u32> = hs.into_iter().map(|h| h.join().expect("join")).collect();
        assert_eq!(owners, [2, 3]);
    }

    #[test]
    fn rwlock_prefers_writers() {
        let l = RwLock::new(Protocol::Fifo, 0);
        l.rlock(1, 0, 0, false).expect("r1");
        l.rlock(2, 0, 0, false).expect("r2");
        assert_eq!(l.wlock(3, 0, 0, true), Err(CellError::EBUSY));
        assert_eq!(l.wlock(1, 0, 1000, false), Err(CellError::ETIMEDOUT));
        l.runlock().expect("-r");
        l.runlock().expect("-r");
        assert_eq!(l.runlock(), Err(CellError::EPERM));
        l.wlock(3, 0, 0, false).expect("w");
        assert_eq!(l.wlock(3, 0, 0, false), Err(CellError::EDEADLK));
        assert_eq!(l.rlock(3, 0, 0, false), Err(CellError::EDEADLK));
        assert_eq!(l.wunlock(4), Err(CellError::EPERM));
        l.wunlock(3).expect("-w");
        l.check_destroy().expect("free");
    }
}
