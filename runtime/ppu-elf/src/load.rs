//! Putting an [`Image`] into guest memory.

use guest_mem::{GuestMemory, MemError, PAGE_SIZE, Prot};

use crate::image::{Image, PF_W, PF_X, PT_TLS};

/// What loading placed where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The guest pages mapped, `(start, end)` page-aligned, sorted.
    pub mapped: Vec<(u32, u32)>,
    /// The first address past the highest loaded segment (where a program
    /// break starts), page-aligned up.
    pub end: u32,
    /// The TLS template: `(address, file size, memory size)`.
    pub tls: Option<(u32, u32, u32)>,
}

/// Why a load failed.
#[derive(Debug, thiserror::Error)]
#[error("loading segment {vaddr:#010x}+{memsz:#x}: {source}")]
pub struct LoadError {
    /// The segment's address.
    pub vaddr: u32,
    /// Its size in memory.
    pub memsz: u32,
    /// What guest memory said.
    pub source: MemError,
}

impl Image {
    /// Maps every loadable segment (rounded out to 64 KiB guest pages) and
    /// copies its file data; the rest reads as zero. Pages shared by two
    /// segments get the union of their protections. Code segments are mapped
    /// readable and executable, data readable and writable.
    pub fn load(&self, mem: &GuestMemory) -> Result<Loaded, LoadError> {
        let mut pages: Vec<(u32, u32, Prot)> = Vec::new();
        for s in self.loads() {
            let start = s.vaddr & !(PAGE_SIZE - 1);
            let end = (u64::from(s.vaddr) + u64::from(s.memsz))
                .next_multiple_of(u64::from(PAGE_SIZE))
                .min(1 << 32);
            let mut prot = Prot::READ;
            if s.flags & PF_W != 0 {
                prot |= Prot::WRITE;
            }
            if s.flags & PF_X != 0 {
                prot |= Prot::EXEC;
            }
            let mut p = u64::from(start);
            while p < end {
                let page = p as u32;
                match pages.iter_mut().find(|e| e.0 == page) {
                    Some(e) => e.2 |= prot,
                    None => pages.push((page, page.wrapping_add(PAGE_SIZE), prot)),
                }
                p += u64::from(PAGE_SIZE);
            }
        }
        pages.sort_by_key(|e| e.0);
        for &(a, _, prot) in &pages {
            let seg = self
                .loads()
                .find(|s| s.vaddr < a.wrapping_add(PAGE_SIZE))
                .expect("page from a segment");
            mem.map(a, u64::from(PAGE_SIZE), prot)
                .map_err(|source| LoadError {
                    vaddr: seg.vaddr,
                    memsz: seg.memsz,
                    source,
                })?;
        }
        for s in self.loads() {
            let bytes = &self.data[s.offset as usize..(s.offset + u64::from(s.filesz)) as usize];
            mem.host_write(s.vaddr, bytes).map_err(|source| LoadError {
                vaddr: s.vaddr,
                memsz: s.memsz,
                source,
            })?;
        }
        let mut mapped: Vec<(u32, u32)> = Vec::new();
        for &(a, b, _) in &pages {
            match mapped.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => mapped.push((a, b)),
            }
        }
        let end = pages.last().map(|p| p.1).unwrap_or(0);
        let tls = self
            .segment(PT_TLS)
            .filter(|s| s.memsz > 0)
            .map(|s| (s.vaddr, s.filesz, s.memsz));
        Ok(Loaded { mapped, end, tls })
    }
}
