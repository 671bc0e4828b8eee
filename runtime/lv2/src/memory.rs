//! User memory and memory containers (system calls 324/341..343, 348..352).
//!
//! The process's memory budget is LV2's for its SDK version (213 MiB for
//! current SDKs), less its segments and main stack; containers carve
//! budgets out of it. Allocations are mapped in the user memory area
//! (0x30000000..0x40000000).

use std::collections::HashMap;
use std::sync::Arc;

use guest_mem::{PAGE_SIZE, Prot};

use crate::alloc::RangeAllocator;
use crate::error::{CELL_OK, CellError, SysResult};
use crate::exec::GuestThread;
use crate::layout::{USER_MEMORY_BASE, USER_MEMORY_END};
use crate::process::Process;
use crate::sync::lock;

/// `SYS_MEMORY_PAGE_SIZE_1M`.
pub const PAGE_SIZE_1M: u64 = 0x400;
/// `SYS_MEMORY_PAGE_SIZE_64K`.
pub const PAGE_SIZE_64K: u64 = 0x200;
/// The default container's identifier.
pub const DEFAULT_CONTAINER: u32 = 0xFFFF_FFFF;
const CONTAINER_BASE: u32 = 0x3F00_0000;

#[derive(Debug, Clone, Copy)]
struct Container {
    total: u64,
    used: u64,
}

/// The process's user memory.
#[derive(Debug)]
pub struct MemoryState {
    /// The address range allocations come from.
    pub area: RangeAllocator,
    default: Container,
    containers: HashMap<u32, Container>,
    next_container: u32,
    /// Allocation start -> (size, page size, container).
    allocations: HashMap<u32, (u64, u32, u32)>,
}

/// The user memory LV2 gives a process built with `sdk_version`.
pub fn user_memory_size(sdk_version: u32) -> u64 {
    match sdk_version {
        v if v > 0x0021_FFFF => 0x0D50_0000,
        v if v > 0x0019_2FFF => 0x0D30_0000,
        v if v > 0x0018_FFFF => 0x0D10_0000,
        v if v > 0x0017_FFFF => 0x0D00_0000,
        v if v > 0x0015_4FFF => 0x0CC0_0000,
        _ => 0x0C80_0000,
    }
}

impl MemoryState {
    /// The memory of a process whose segments and main stack take `taken`.
    pub fn new(sdk_version: u32, taken: u64) -> MemoryState {
        let total = user_memory_size(sdk_version);
        MemoryState {
            area: RangeAllocator::new(USER_MEMORY_BASE, u64::from(USER_MEMORY_END)),
            default: Container {
                total,
                used: taken.min(total),
            },
            containers: HashMap::new(),
            next_container: 0,
            allocations: HashMap::new(),
        }
    }

    fn container(&mut self, id: u32) -> Result<&mut Container, CellError> {
        if id == DEFAULT_CONTAINER {
            return Ok(&mut self.default);
        }
        self.containers.get_mut(&id).ok_or(CellError::ESRCH)
    }

    /// Total and available bytes of container `id`.
    pub fn container_size(&mut self, id: u32) -> Result<(u64, u64), CellError> {
        let c = self.container(id)?;
        Ok((c.total, c.total - c.used))
    }
}

fn page_size_of(flags: u64) -> Result<u32, CellError> {
    match flags {
        0 | PAGE_SIZE_1M => Ok(0x10_0000),
        PAGE_SIZE_64K => Ok(0x1_0000),
        _ => Err(CellError::EINVAL),
    }
}

impl Process {
    /// Allocates `size` bytes of user memory from container `cid` with the
    /// page size `flags` asks for; returns the address.
    pub fn memory_allocate(&self, size: u64, cid: u32, flags: u64) -> Result<u32, CellError> {
        let page = page_size_of(flags)?;
        if size == 0 || !size.is_multiple_of(u64::from(page)) {
            return Err(CellError::EALIGN);
        }
        let mut m = lock(&self.memory);
        let c = m.container(cid)?;
        if c.total - c.used < size {
            return Err(CellError::ENOMEM);
        }
        let addr = m
            .area
            .alloc(size, u64::from(page))
            .ok_or(CellError::ENOMEM)?;
        if let Err(e) = self.mem.map(addr, size, Prot::RW) {
            log::error!("mapping user memory at {addr:#x}: {e}");
            m.area.free(addr);
            return Err(CellError::ENOMEM);
        }
        m.container(cid).expect("checked").used += size;
        m.allocations.insert(addr, (size, page, cid));
        Ok(addr)
    }

    /// Frees an allocation made by [`Process::memory_allocate`].
    pub fn memory_free(&self, addr: u32) -> Result<(), CellError> {
        let mut m = lock(&self.memory);
        let (size, _, cid) = m.allocations.remove(&addr).ok_or(CellError::EINVAL)?;
        m.area.free(addr);
        if let Ok(c) = m.container(cid) {
            c.used -= size;
        }
        drop(m);
        let _ = self.mem.unmap(addr, size);
        Ok(())
    }
}

/// 348 `sys_memory_allocate(size, flags, u32* addr)`.
pub fn sys_memory_allocate(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let out = t.arg_u32(2);
    t.vm().check_writable(out, 4)?;
    let addr = p.memory_allocate(t.arg_u64(0), DEFAULT_CONTAINER, t.arg_u64(1))?;
    t.vm().write_u32(out, addr)?;
    CELL_OK
}

/// 349 `sys_memory_free(addr)`.
pub fn sys_memory_free(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.memory_free(t.arg_u32(0))?;
    CELL_OK
}

/// 350 `sys_memory_allocate_from_container(size, cid, flags, u32* addr)`.
pub fn sys_memory_allocate_from_container(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let out = t.arg_u32(3);
    t.vm().check_writable(out, 4)?;
    let addr = p.memory_allocate(t.arg_u64(0), t.arg_u32(1), t.arg_u64(2))?;
    t.vm().write_u32(out, addr)?;
    CELL_OK
}

/// 351 `sys_memory_get_page_attribute(addr, sys_page_attr_t* attr)`.
pub fn sys_memory_get_page_attribute(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (addr, out) = (t.arg_u32(0), t.arg_u32(1));
    let prot = p.mem.prot_at(addr);
    if prot.is_empty() {
        return Err(CellError::EINVAL.into());
    }
    let page = {
        let m = lock(&p.memory);
        m.area
            .find(addr)
            .and_then(|(start, _)| m.allocations.get(&start).map(|a| a.1))
    };
    let vm = t.vm();
    vm.check_writable(out, 24)?;
    // SYS_MEMORY_PROT_READ_WRITE / _READ_ONLY; access from anything.
    vm.write_u64(
        out,
        if prot.contains(Prot::WRITE) {
            0x4_0000
        } else {
            0x8_0000
        },
    )?;
    vm.write_u64(out + 8, 0xF)?;
    vm.write_u32(out + 16, page.unwrap_or(PAGE_SIZE))?;
    vm.write_u32(out + 20, 0)?;
    CELL_OK
}

/// 352 `sys_memory_get_user_memory_size(sys_memory_info_t* info)`.
pub fn sys_memory_get_user_memory_size(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let info = t.arg_u32(0);
    t.vm().check_writable(info, 8)?;
    let (total, avail) = lock(&p.memory).container_size(DEFAULT_CONTAINER)?;
    t.vm().write_u32(info, total as u32)?;
    t.vm().write_u32(info + 4, avail as u32)?;
    CELL_OK
}

/// 324/341 `sys_memory_container_create(u32* cid, size)`.
pub fn sys_memory_container_create(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let out = t.arg_u32(0);
    t.vm().check_writable(out, 4)?;
    let size = t.arg_u64(1) & !0xF_FFFF;
    if size == 0 {
        return Err(CellError::ENOMEM.into());
    }
    let mut m = lock(&p.memory);
    if m.default.total - m.default.used < size {
        return Err(CellError::ENOMEM.into());
    }
    m.default.used += size;
    m.next_container += 1;
    let id = CONTAINER_BASE + m.next_container;
    m.containers.insert(
        id,
        Container {
            total: size,
            used: 0,
        },
    );
    drop(m);
    t.vm().write_u32(out, id)?;
    CELL_OK
}

/// 325/342 `sys_memory_container_destroy(cid)`.
pub fn sys_memory_container_destroy(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let id = t.arg_u32(0);
    let mut m = lock(&p.memory);
    let c = *m.containers.get(&id).ok_or(CellError::ESRCH)?;
    if c.used != 0 {
        return Err(CellError::EBUSY.into());
    }
    m.containers.remove(&id);
    m.default.used -= c.total;
    CELL_OK
}

/// 343 `sys_memory_container_get_size(sys_memory_info_t* info, cid)`.
pub fn sys_memory_container_get_size(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let info = t.arg_u32(0);
    t.vm().check_writable(info, 8)?;
    let (total, avail) = lock(&p.memory).container_size(t.arg_u32(1))?;
    t.vm().write_u32(info, total as u32)?;
    t.vm().write_u32(info + 4, avail as u32)?;
    CELL_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_by_sdk() {
        assert_eq!(user_memory_size(0x0036_0001), 0x0D50_0000);
        assert_eq!(user_memory_size(0x0015_0000), 0x0C80_0000);
        let mut m = MemoryState::new(0x0036_0001, 0x10_0000);
        assert_eq!(
            m.container_size(DEFAULT_CONTAINER),
            Ok((0x0D50_0000, 0x0D40_0000))
        );
        assert_eq!(m.container_size(7), Err(CellError::ESRCH));
    }
}
