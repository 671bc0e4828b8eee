//! The ppc64 Linux ABI's structures and flag values, and their translation
//! from and to the host's.

/// `AT_FDCWD`.
pub const AT_FDCWD: i64 = -100;

/// ppc64 `open` flags that differ from the generic (x86-64) values.
mod ppc_o {
    pub const DIRECTORY: u64 = 0o40000;
    pub const NOFOLLOW: u64 = 0o100000;
    pub const LARGEFILE: u64 = 0o200000;
    pub const DIRECT: u64 = 0o400000;
}

/// Flags that have the same value on ppc64 and the host.
const SAME_O: u64 = 0o3
    | 0o100
    | 0o200
    | 0o400
    | 0o1000
    | 0o2000
    | 0o4000
    | 0o10000
    | 0o20000
    | 0o1000000
    | 0o2000000
    | 0o4000000
    | 0o10000000
    | 0o20000000;

/// Guest `open` flags to the host's; `Err` names bits we do not know.
pub fn open_flags_to_host(g: u64) -> Result<i32, u64> {
    let mut h = (g & SAME_O) as i32;
    if g & ppc_o::DIRECTORY != 0 {
        h |= libc::O_DIRECTORY;
    }
    if g & ppc_o::NOFOLLOW != 0 {
        h |= libc::O_NOFOLLOW;
    }
    if g & ppc_o::LARGEFILE != 0 {
        h |= libc::O_LARGEFILE;
    }
    if g & ppc_o::DIRECT != 0 {
        h |= libc::O_DIRECT;
    }
    let known = SAME_O | ppc_o::DIRECTORY | ppc_o::NOFOLLOW | ppc_o::LARGEFILE | ppc_o::DIRECT;
    if g & !known != 0 {
        Err(g & !known)
    } else {
        Ok(h)
    }
}

/// Host `open`/`fcntl(F_GETFL)` flags to the guest's.
pub fn open_flags_to_guest(h: i32) -> u64 {
    let mut g = (h as u64) & SAME_O;
    if h & libc::O_DIRECTORY != 0 {
        g |= ppc_o::DIRECTORY;
    }
    if h & libc::O_NOFOLLOW != 0 {
        g |= ppc_o::NOFOLLOW;
    }
    // (O_LARGEFILE reads back as 0 on a 64-bit host: nothing to translate.)
    if h & libc::O_DIRECT != 0 {
        g |= ppc_o::DIRECT;
    }
    g
}

/// A ppc64 `struct stat` (144 bytes, big-endian) from the host's.
pub fn stat_to_guest(s: &libc::stat) -> [u8; 144] {
    let mut b = [0u8; 144];
    let mut put = |off: usize, v: u64, n: usize| {
        b[off..off + n].copy_from_slice(&v.to_be_bytes()[8 - n..]);
    };
    put(0, s.st_dev, 8);
    put(8, s.st_ino, 8);
    put(16, s.st_nlink, 8);
    put(24, u64::from(s.st_mode), 4);
    put(28, u64::from(s.st_uid), 4);
    put(32, u64::from(s.st_gid), 4);
    put(40, s.st_rdev, 8);
    put(48, s.st_size as u64, 8);
    put(56, s.st_blksize as u64, 8);
    put(64, s.st_blocks as u64, 8);
    put(72, s.st_atime as u64, 8);
    put(80, s.st_atime_nsec as u64, 8);
    put(88, s.st_mtime as u64, 8);
    put(96, s.st_mtime_nsec as u64, 8);
    put(104, s.st_ctime as u64, 8);
    put(112, s.st_ctime_nsec as u64, 8);
    b
}

/// A `struct timespec` (two big-endian 64-bit words).
pub fn timespec(sec: i64, nsec: i64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&sec.to_be_bytes());
    b[8..].copy_from_slice(&nsec.to_be_bytes());
    b
}

/// The ppc64 `TCGETS` request (`_IOR('t', 19, struct termios)`, 44 bytes).
pub const TCGETS: u64 = 0x402C_7413;
/// The ppc64 `TIOCGWINSZ` request.
pub const TIOCGWINSZ: u64 = 0x4008_7468;
/// The ppc64 `FIONREAD` request.
pub const FIONREAD: u64 = 0x4004_667F;

/// ppc64 `mmap` flags.
pub mod map {
    /// `MAP_SHARED`.
    pub const SHARED: u64 = 0x1;
    /// `MAP_PRIVATE`.
    pub const PRIVATE: u64 = 0x2;
    /// `MAP_FIXED`.
    pub const FIXED: u64 = 0x10;
    /// `MAP_ANONYMOUS`.
    pub const ANONYMOUS: u64 = 0x20;
    /// `MAP_FIXED_NOREPLACE`.
    pub const FIXED_NOREPLACE: u64 = 0x10_0000;
    /// Flags that change nothing here (NORESERVE, GROWSDOWN, DENYWRITE,
    /// EXECUTABLE, LOCKED, POPULATE, NONBLOCK, STACK, HUGETLB).
    pub const HINTS: u64 =
        0x40 | 0x100 | 0x800 | 0x1000 | 0x80 | 0x8000 | 0x1_0000 | 0x2_0000 | 0x4_0000;
}

/// `PROT_*` (the same everywhere) to guest-mem's protection.
pub fn prot(p: u64) -> guest_mem::Prot {
    use guest_mem::Prot;
    let mut r = Prot::empty();
    if p & 1 != 0 {
        r |= Prot::READ;
    }
    if p & 2 != 0 {
        r |= Prot::READ | Prot::WRITE;
    }
    if p & 4 != 0 {
        r |= Prot::READ | Prot::EXEC;
    }
    r
}
