//! Address-range allocation inside one area of the guest address space
//! (user memory, stacks): first fit over a sorted list of allocations.

use std::collections::BTreeMap;

/// An area `[base, end)` handing out aligned ranges.
#[derive(Debug)]
pub struct RangeAllocator {
    base: u64,
    end: u64,
    /// start -> size of every live allocation.
    used: BTreeMap<u64, u64>,
}

impl RangeAllocator {
    /// An empty area `[base, end)`.
    pub fn new(base: u32, end: u64) -> RangeAllocator {
        RangeAllocator {
            base: u64::from(base),
            end,
            used: BTreeMap::new(),
        }
    }

    /// Finds `size` bytes aligned to `align` (a power of two), records
    /// them and returns their start.
    pub fn alloc(&mut self, size: u64, align: u64) -> Option<u32> {
        if size == 0 {
            return None;
        }
        let mut cursor = self.base;
        for (&start, &len) in &self.used {
            let a = cursor.next_multiple_of(align);
            if a + size <= start {
                self.used.insert(a, size);
                return Some(a as u32);
            }
            cursor = cursor.max(start + len);
        }
        let a = cursor.next_multiple_of(align);
        if a + size <= self.end {
            self.used.insert(a, size);
            return Some(a as u32);
        }
        None
    }

    /// Frees the allocation starting at `addr`; returns its size, or
    /// `None` when no allocation starts there.
    pub fn free(&mut self, addr: u32) -> Option<u64> {
        self.used.remove(&u64::from(addr))
    }

    /// The allocation containing `addr`: `(start, size)`.
    pub fn find(&self, addr: u32) -> Option<(u32, u64)> {
        let a = u64::from(addr);
        self.used
            .range(..=a)
            .next_back()
            .filter(|(s, l)| a < *s + *l)
            .map(|(s, l)| (*s as u32, *l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_reuses_freed_ranges() {
        let mut a = RangeAllocator::new(0x1000_0000, 0x1040_0000);
        let x = a.alloc(0x10_0000, 0x10_0000).expect("x");
        let y = a.alloc(0x10_0000, 0x10_0000).expect("y");
        assert_eq!((x, y), (0x1000_0000, 0x1010_0000));
        assert_eq!(a.free(x), Some(0x10_0000));
        assert_eq!(a.free(x), None);
        assert_eq!(a.alloc(0x8_0000, 0x1_0000), Some(0x1000_0000));
        assert_eq!(a.find(0x1010_1234), Some((0x1010_0000, 0x10_0000)));
        assert_eq!(a.alloc(0x40_0000, 0x10_0000), None, "does not fit");
        assert_eq!(a.alloc(0x20_0000, 0x10_0000), Some(0x1020_0000));
    }
}
