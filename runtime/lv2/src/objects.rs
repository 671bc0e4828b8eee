//! Tables of kernel objects by identifier.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::error::CellError;
use crate::sync::lock;

/// The live objects of one kind. Identifiers are `base + n`, never reused
/// while the process lives (as LV2 hands them out: every kind has its own
/// range, so a stale or mixed-up identifier is `CELL_ESRCH`).
pub struct Table<T> {
    base: u32,
    inner: Mutex<(u32, HashMap<u32, Arc<T>>)>,
    limit: usize,
}

impl<T> Table<T> {
    /// An empty table handing out `base + 1`, `base + 2`, ..., at most
    /// `limit` live at once.
    pub fn new(base: u32, limit: usize) -> Table<T> {
        Table {
            base,
            inner: Mutex::new((0, HashMap::new())),
            limit,
        }
    }

    /// Adds an object made by `make(id)`; `CELL_EAGAIN` when the table is
    /// full.
    pub fn insert_with(&self, make: impl FnOnce(u32) -> T) -> Result<(u32, Arc<T>), CellError> {
        let mut g = lock(&self.inner);
        if g.1.len() >= self.limit {
            return Err(CellError::EAGAIN);
        }
        g.0 += 1;
        let id = self.base + g.0;
        let obj = Arc::new(make(id));
        g.1.insert(id, obj.clone());
        Ok((id, obj))
    }

    /// Adds `obj`.
    pub fn insert(&self, obj: T) -> Result<u32, CellError> {
        self.insert_with(|_| obj).map(|(id, _)| id)
    }

    /// The object `id`, or `CELL_ESRCH`.
    pub fn get(&self, id: u32) -> Result<Arc<T>, CellError> {
        lock(&self.inner)
            .1
            .get(&id)
            .cloned()
            .ok_or(CellError::ESRCH)
    }

    /// Removes object `id` when `check` allows it (it runs under the
    /// table's lock, so no other caller can find the object meanwhile).
    pub fn remove_if(
        &self,
        id: u32,
        check: impl FnOnce(&T) -> Result<(), CellError>,
    ) -> Result<Arc<T>, CellError> {
        let mut g = lock(&self.inner);
        let obj = g.1.get(&id).ok_or(CellError::ESRCH)?;
        check(obj)?;
        Ok(g.1.remove(&id).expect("present"))
    }

    /// Removes object `id`.
    pub fn remove(&self, id: u32) -> Result<Arc<T>, CellError> {
        self.remove_if(id, |_| Ok(()))
    }

    /// How many are live.
    pub fn len(&self) -> usize {
        lock(&self.inner).1.len()
    }

    /// Whether none is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every live object (a snapshot).
    pub fn all(&self) -> Vec<(u32, Arc<T>)> {
        lock(&self.inner)
            .1
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_per_kind_and_not_reused() {
        let t: Table<u8> = Table::new(0x8500_0000, 2);
        let a = t.insert(1).expect("a");
        let b = t.insert(2).expect("b");
        assert_eq!((a, b), (0x8500_0001, 0x8500_0002));
        assert_eq!(t.insert(3), Err(CellError::EAGAIN));
        assert_eq!(
            t.remove_if(a, |_| Err(CellError::EBUSY)).err(),
            Some(CellError::EBUSY)
        );
        t.remove(a).expect("remove");
        assert_eq!(t.get(a).err(), Some(CellError::ESRCH));
        assert_eq!(t.insert(4), Ok(0x8500_0003));
    }
}
