//! Wait queues: how a blocked PPU thread waits and how it is woken.
//!
//! Every kernel object keeps its state, waiters included, under one host
//! mutex. A thread that must block pushes a [`Waiter`] with a fresh
//! [`WakeSlot`], releases the object's lock and waits on the slot. Whoever
//! wakes it pops it from the queue and fills the slot *while holding the
//! object's lock*, so a waiter whose timeout expires can take the lock,
//! try to remove itself and, when it is no longer queued, know that its
//! slot has been filled.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::error::CellError;

/// Locks a host mutex, ignoring poisoning (a panicking guest thread must
/// not wedge every other one).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The order waiters are woken in (`attr_protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// First in, first out (`SYS_SYNC_FIFO`).
    Fifo,
    /// Highest priority (lowest number) first, FIFO among equals
    /// (`SYS_SYNC_PRIORITY`, `SYS_SYNC_PRIORITY_INHERIT`).
    Priority,
}

/// `SYS_SYNC_FIFO`.
pub const SYS_SYNC_FIFO: u32 = 1;
/// `SYS_SYNC_PRIORITY`.
pub const SYS_SYNC_PRIORITY: u32 = 2;
/// `SYS_SYNC_PRIORITY_INHERIT`.
pub const SYS_SYNC_PRIORITY_INHERIT: u32 = 3;
/// `SYS_SYNC_RETRY`.
pub const SYS_SYNC_RETRY: u32 = 4;
/// `SYS_SYNC_RECURSIVE`.
pub const SYS_SYNC_RECURSIVE: u32 = 0x10;
/// `SYS_SYNC_NOT_RECURSIVE`.
pub const SYS_SYNC_NOT_RECURSIVE: u32 = 0x20;
/// `SYS_SYNC_PROCESS_SHARED`.
pub const SYS_SYNC_PROCESS_SHARED: u32 = 0x100;
/// `SYS_SYNC_NOT_PROCESS_SHARED`.
pub const SYS_SYNC_NOT_PROCESS_SHARED: u32 = 0x200;

impl Protocol {
    /// The protocol of an `attr_protocol` value; `allow_retry` accepts
    /// `SYS_SYNC_RETRY` (condition variables' mutexes), treated as FIFO.
    pub fn from_attr(v: u32, allow_inherit: bool) -> Result<Protocol, CellError> {
        match v {
            SYS_SYNC_FIFO => Ok(Protocol::Fifo),
            SYS_SYNC_PRIORITY => Ok(Protocol::Priority),
            SYS_SYNC_PRIORITY_INHERIT if allow_inherit => Ok(Protocol::Priority),
            _ => Err(CellError::EINVAL),
        }
    }
}

/// How a waiter was woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Woken with a value (what it waited for happened).
    Value(u64),
    /// Woken with an error (the object was destroyed, the wait canceled).
    Error(CellError),
    /// Woken with an event (an event queue's receiver).
    Event([u64; 4]),
}

/// Where one blocked thread waits.
#[derive(Debug, Default)]
pub struct WakeSlot {
    state: Mutex<Option<Wake>>,
    cv: Condvar,
}

impl WakeSlot {
    /// Fills the slot and wakes its thread. Call with the object's lock held.
    pub fn wake(&self, w: Wake) {
        *lock(&self.state) = Some(w);
        self.cv.notify_one();
    }

    /// Waits until woken or `timeout_us` microseconds pass (0: no limit).
    /// `None` means the time ran out.
    pub fn wait(&self, timeout_us: u64) -> Option<Wake> {
        let mut g = lock(&self.state);
        if timeout_us == 0 {
            while g.is_none() {
                g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            return *g;
        }
        let deadline = std::time::Instant::now() + Duration::from_micros(timeout_us);
        while g.is_none() {
            let now = std::time::Instant::now();
            if now >= deadline {
                return None;
            }
            g = self
                .cv
                .wait_timeout(g, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *g
    }

    /// What the slot holds now (after a timeout, to see whether a waker got
    /// there first).
    pub fn take(&self) -> Option<Wake> {
        *lock(&self.state)
    }
}

/// One queued waiter.
#[derive(Debug)]
pub struct Waiter<E> {
    /// The waiting thread.
    pub tid: u32,
    /// Its priority when it started waiting.
    pub prio: i32,
    /// Where it waits.
    pub slot: Arc<WakeSlot>,
    /// What it waits for (object-specific).
    pub data: E,
    seq: u64,
}

/// The threads waiting on one object.
#[derive(Debug)]
pub struct WaitQueue<E> {
    list: Vec<Waiter<E>>,
    seq: u64,
}

impl<E> Default for WaitQueue<E> {
    fn default() -> Self {
        WaitQueue {
            list: Vec::new(),
            seq: 0,
        }
    }
}

impl<E> WaitQueue<E> {
    /// Queues thread `tid` and returns the slot it waits on.
    pub fn push(&mut self, tid: u32, prio: i32, data: E) -> Arc<WakeSlot> {
        let slot = Arc::new(WakeSlot::default());
        self.seq += 1;
        self.list.push(Waiter {
            tid,
            prio,
            slot: slot.clone(),
            data,
            seq: self.seq,
        });
        slot
    }

    /// The index of the waiter `protocol` picks among those `eligible`.
    fn pick(&self, protocol: Protocol, eligible: impl Fn(&Waiter<E>) -> bool) -> Option<usize> {
        let key = |w: &Waiter<E>| match protocol {
            Protocol::Fifo => (0, w.seq),
            Protocol::Priority => (w.prio, w.seq),
        };
        self.list
            .iter()
            .enumerate()
            .filter(|(_, w)| eligible(w))
            .min_by_key(|(_, w)| key(w))
            .map(|(i, _)| i)
    }

    /// Removes and returns the waiter `protocol` picks.
    pub fn pop(&mut self, protocol: Protocol) -> Option<Waiter<E>> {
        self.pop_if(protocol, |_| true)
    }

    /// Removes and returns the waiter `protocol` picks among those
    /// satisfying `eligible`.
    pub fn pop_if(
        &mut self,
        protocol: Protocol,
        eligible: impl Fn(&Waiter<E>) -> bool,
    ) -> Option<Waiter<E>> {
        let i = self.pick(protocol, eligible)?;
        Some(self.list.remove(i))
    }

    /// Every waiter in wake order (`protocol`), removed.
    pub fn drain_ordered(&mut self, protocol: Protocol) -> Vec<Waiter<E>> {
        let mut out = Vec::with_capacity(self.list.len());
        while let Some(w) = self.pop(protocol) {
            out.push(w);
        }
        out
    }

    /// Removes the waiter waiting on `slot`; false when it is gone (woken).
    pub fn remove(&mut self, slot: &Arc<WakeSlot>) -> bool {
        match self.list.iter().position(|w| Arc::ptr_eq(&w.slot, slot)) {
            Some(i) => {
                self.list.remove(i);
                true
            }
            None => false,
        }
    }

    /// Removes the waiter of thread `tid`.
    pub fn remove_tid(&mut self, tid: u32) -> Option<Waiter<E>> {
        let i = self.list.iter().position(|w| w.tid == tid)?;
        Some(self.list.remove(i))
    }

    /// How many wait.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The waiters, in queue order.
    pub fn iter(&self) -> impl Iterator<Item = &Waiter<E>> {
        self.list.iter()
    }
}

/// Blocks on `slot` after its object's lock was released; on timeout,
/// retakes the lock with `relock` and removes the waiter, unless a waker
/// got there first. Returns the wake, or `CELL_ETIMEDOUT`.
pub fn block<E, G>(
    slot: &Arc<WakeSlot>,
    timeout_us: u64,
    relock: impl FnOnce() -> G,
    queue_of: impl FnOnce(&mut G) -> &mut WaitQueue<E>,
) -> Result<Wake, CellError> {
    if let Some(w) = slot.wait(timeout_us) {
        return Ok(w);
    }
    let mut g = relock();
    if queue_of(&mut g).remove(slot) {
        return Err(CellError::ETIMEDOUT);
    }
    drop(g);
    // Popped by a waker before we took the lock: it filled the slot under
    // that lock, so the value is there.
    Ok(slot.take().unwrap_or(Wake::Value(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_then_fifo() {
        let mut q = WaitQueue::default();
        q.push(1, 500, ());
        q.push(2, 100, ());
        q.push(3, 100, ());
        q.push(4, 1000, ());
        let order: Vec<u32> = q
            .drain_ordered(Protocol::Priority)
            .iter()
            .map(|w| w.tid)
            .collect();
        assert_eq!(order, [2, 3, 1, 4]);
        q.push(1, 500, ());
        q.push(2, 100, ());
        assert_eq!(q.pop(Protocol::Fifo).map(|w| w.tid), Some(1));
    }

    #[test]
    fn timeout_races_are_resolved_under_the_lock() {
        let m = Mutex::new(WaitQueue::<()>::default());
        let slot = lock(&m).push(7, 0, ());
        let r = block(&slot, 1000, || lock(&m), |g| &mut **g);
        assert_eq!(r, Err(CellError::ETIMEDOUT));
        assert!(lock(&m).is_empty());
        // A waker that popped and filled before the timeout path relocks.
        let slot = lock(&m).push(8, 0, ());
        {
            let mut g = lock(&m);
            let w = g.pop(Protocol::Fifo).expect("queued");
            w.slot.wake(Wake::Value(5));
        }
        assert_eq!(
            block(&slot, 1000, || lock(&m), |g| &mut **g),
            Ok(Wake::Value(5))
        );
    }
}
