//! FreeBSD 11 and FreeBSD 12 structure layouts, and the conversions the
//! payload's ABI shims make.
//!
//! The console's C library has the FreeBSD 11 ABI (the public SDK's headers
//! are FreeBSD 11.1's): 32-bit `ino_t` and `dev_t`, 16-bit `nlink_t`. The
//! Rust standard library only builds with the FreeBSD 12 ABI of the `libc`
//! crate (64-bit inode numbers, a different `struct stat` and `struct
//! dirent`). The payload therefore defines `stat`, `fstat`, `lstat`,
//! `fstatat` and `readdir` itself, with the FreeBSD 12 layout the standard
//! library expects, and calls the console's FreeBSD 11 functions
//! (`fstat@FBSD_1.0` and so on: the names FreeBSD itself gives the old ABI)
//! converting the result with the functions here.

/// `struct timespec` (both ABIs).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timespec {
    /// Seconds.
    pub tv_sec: i64,
    /// Nanoseconds.
    pub tv_nsec: i64,
}

/// FreeBSD 11 `struct stat` on amd64 (120 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat11 {
    /// Device.
    pub st_dev: u32,
    /// Inode number.
    pub st_ino: u32,
    /// Mode.
    pub st_mode: u16,
    /// Hard links.
    pub st_nlink: u16,
    /// Owner.
    pub st_uid: u32,
    /// Group.
    pub st_gid: u32,
    /// Device type.
    pub st_rdev: u32,
    /// Last access.
    pub st_atim: Timespec,
    /// Last modification.
    pub st_mtim: Timespec,
    /// Last status change.
    pub st_ctim: Timespec,
    /// Size in bytes.
    pub st_size: i64,
    /// Blocks allocated.
    pub st_blocks: i64,
    /// Optimal block size.
    pub st_blksize: i32,
    /// User flags.
    pub st_flags: u32,
    /// Generation.
    pub st_gen: u32,
    /// Spare.
    pub st_lspare: i32,
    /// Creation.
    pub st_birthtim: Timespec,
}

/// FreeBSD 12 `struct stat` on amd64 (224 bytes): `libc::stat` of the
/// console target.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat12 {
    /// Device.
    pub st_dev: u64,
    /// Inode number.
    pub st_ino: u64,
    /// Hard links.
    pub st_nlink: u64,
    /// Mode.
    pub st_mode: u16,
    /// Padding.
    pub st_padding0: i16,
    /// Owner.
    pub st_uid: u32,
    /// Group.
    pub st_gid: u32,
    /// Padding.
    pub st_padding1: i32,
    /// Device type.
    pub st_rdev: u64,
    /// Last access.
    pub st_atim: Timespec,
    /// Last modification.
    pub st_mtim: Timespec,
    /// Last status change.
    pub st_ctim: Timespec,
    /// Creation.
    pub st_birthtim: Timespec,
    /// Size in bytes.
    pub st_size: i64,
    /// Blocks allocated.
    pub st_blocks: i64,
    /// Optimal block size.
    pub st_blksize: i32,
    /// User flags.
    pub st_flags: u32,
    /// Generation.
    pub st_gen: u64,
    /// Spare.
    pub st_spare: [u64; 10],
}

/// The FreeBSD 12 `struct stat` for a FreeBSD 11 one.
pub fn stat_11_to_12(s: &Stat11) -> Stat12 {
    Stat12 {
        st_dev: u64::from(s.st_dev),
        st_ino: u64::from(s.st_ino),
        st_nlink: u64::from(s.st_nlink),
        st_mode: s.st_mode,
        st_padding0: 0,
        st_uid: s.st_uid,
        st_gid: s.st_gid,
        st_padding1: 0,
        st_rdev: u64::from(s.st_rdev),
        st_atim: s.st_atim,
        st_mtim: s.st_mtim,
        st_ctim: s.st_ctim,
        st_birthtim: s.st_birthtim,
        st_size: s.st_size,
        st_blocks: s.st_blocks,
        st_blksize: s.st_blksize,
        st_flags: s.st_flags,
        st_gen: u64::from(s.st_gen),
        st_spare: [0; 10],
    }
}

/// The longest file name plus its NUL.
pub const NAME_CAPACITY: usize = 256;

/// FreeBSD 11 `struct dirent` (264 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dirent11 {
    /// Inode number.
    pub d_fileno: u32,
    /// Record length.
    pub d_reclen: u16,
    /// File type (`DT_*`).
    pub d_type: u8,
    /// Name length.
    pub d_namlen: u8,
    /// NUL-terminated name.
    pub d_name: [u8; NAME_CAPACITY],
}

/// FreeBSD 12 `struct dirent` (280 bytes): `libc::dirent` of the console target.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dirent12 {
    /// Inode number.
    pub d_fileno: u64,
    /// Directory offset of the next entry.
    pub d_off: i64,
    /// Record length.
    pub d_reclen: u16,
    /// File type (`DT_*`).
    pub d_type: u8,
    /// Padding.
    pub d_pad0: u8,
    /// Name length.
    pub d_namlen: u16,
    /// Padding.
    pub d_pad1: u16,
    /// NUL-terminated name.
    pub d_name: [u8; NAME_CAPACITY],
}

impl Default for Dirent12 {
    fn default() -> Self {
        Dirent12 {
            d_fileno: 0,
            d_off: 0,
            d_reclen: 0,
            d_type: 0,
            d_pad0: 0,
            d_namlen: 0,
            d_pad1: 0,
            d_name: [0; NAME_CAPACITY],
        }
    }
}

/// Fills `out` with the FreeBSD 12 form of `d`. The name is cut at its NUL
/// or at `d_namlen`, whichever comes first, and always NUL-terminated.
pub fn dirent_11_to_12(d: &Dirent11, out: &mut Dirent12) {
    let nul = d
        .d_name
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(NAME_CAPACITY - 1);
    let len = nul.min(usize::from(d.d_namlen)).min(NAME_CAPACITY - 1);
    out.d_fileno = u64::from(d.d_fileno);
    out.d_off = 0;
    out.d_reclen = size_of::<Dirent12>() as u16;
    out.d_type = d.d_type;
    out.d_pad0 = 0;
    out.d_namlen = len as u16;
    out.d_pad1 = 0;
    out.d_name[..len].copy_from_slice(&d.d_name[..len]);
    out.d_name[len..].fill(0);
}

/// The time from `now` to `target` (seconds, nanoseconds), or `None` when
/// `target` is not later. For the `clock_nanosleep` shim's absolute sleeps.
pub fn timespec_until(now: (i64, i64), target: (i64, i64)) -> Option<(i64, i64)> {
    let ns = |(s, n): (i64, i64)| i128::from(s) * 1_000_000_000 + i128::from(n);
    let d = ns(target) - ns(now);
    (d > 0).then_some(((d / 1_000_000_000) as i64, (d % 1_000_000_000) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{offset_of, size_of};

    #[test]
    fn layouts_match_the_headers() {
        // FreeBSD 11.1 sys/stat.h, sys/dirent.h (the SDK's headers).
        assert_eq!(size_of::<Stat11>(), 120);
        assert_eq!(offset_of!(Stat11, st_atim), 24);
        assert_eq!(offset_of!(Stat11, st_size), 72);
        assert_eq!(offset_of!(Stat11, st_blksize), 88);
        assert_eq!(offset_of!(Stat11, st_birthtim), 104);
        assert_eq!(size_of::<Dirent11>(), 264);
        assert_eq!(offset_of!(Dirent11, d_name), 8);
        // FreeBSD 12 (the libc crate's freebsd12 module).
        assert_eq!(size_of::<Stat12>(), 224);
        assert_eq!(offset_of!(Stat12, st_mode), 24);
        assert_eq!(offset_of!(Stat12, st_rdev), 40);
        assert_eq!(offset_of!(Stat12, st_atim), 48);
        assert_eq!(offset_of!(Stat12, st_size), 112);
        assert_eq!(offset_of!(Stat12, st_gen), 136);
        assert_eq!(size_of::<Dirent12>(), 280);
        assert_eq!(offset_of!(Dirent12, d_namlen), 20);
        assert_eq!(offset_of!(Dirent12, d_name), 24);
    }

    #[test]
    fn stat_conversion_keeps_every_field() {
        let t = |s| Timespec {
            tv_sec: s,
            tv_nsec: s * 10,
        };
        let old = Stat11 {
            st_dev: 0xdead_beef,
            st_ino: 0xffff_fff0,
            st_mode: 0o100644,
            st_nlink: 3,
            st_uid: 1000,
            st_gid: 1001,
            st_rdev: 7,
            st_atim: t(1),
            st_mtim: t(2),
            st_ctim: t(3),
            st_size: 1 << 40,
            st_blocks: 99,
            st_blksize: 16384,
            st_flags: 0x20,
            st_gen: 5,
            st_lspare: -1,
            st_birthtim: t(4),
        };
        let new = stat_11_to_12(&old);
        assert_eq!(new.st_dev, 0xdead_beef);
        assert_eq!(new.st_ino, 0xffff_fff0, "inode numbers are zero-extended");
        assert_eq!(new.st_mode, 0o100644);
        assert_eq!(new.st_nlink, 3);
        assert_eq!((new.st_uid, new.st_gid, new.st_rdev), (1000, 1001, 7));
        assert_eq!(
            (new.st_atim, new.st_mtim, new.st_ctim, new.st_birthtim),
            (t(1), t(2), t(3), t(4))
        );
        assert_eq!(
            (new.st_size, new.st_blocks, new.st_blksize),
            (1 << 40, 99, 16384)
        );
        assert_eq!((new.st_flags, new.st_gen), (0x20, 5));
        assert_eq!(new.st_spare, [0; 10]);
    }

    #[test]
    fn time_until() {
        assert_eq!(
            timespec_until((1, 500_000_000), (2, 100_000_000)),
            Some((0, 600_000_000))
        );
        assert_eq!(timespec_until((1, 0), (3, 5)), Some((2, 5)));
        assert_eq!(timespec_until((2, 0), (2, 0)), None);
        assert_eq!(timespec_until((3, 0), (2, 999_999_999)), None);
    }

    #[test]
    fn dirent_conversion() {
        let mut old = Dirent11 {
            d_fileno: 42,
            d_reclen: 16,
            d_type: 8,
            d_namlen: 5,
            d_name: [0; 256],
        };
        old.d_name[..5].copy_from_slice(b"a.bin");
        let mut new = Dirent12 {
            d_name: [0xAA; 256],
            ..Dirent12::default()
        };
        dirent_11_to_12(&old, &mut new);
        assert_eq!(new.d_fileno, 42);
        assert_eq!(new.d_type, 8);
        assert_eq!(new.d_namlen, 5);
        assert_eq!(&new.d_name[..6], b"a.bin\0");
        assert!(new.d_name[6..].iter().all(|&b| b == 0));
        // A name without NUL is cut and terminated.
        let full = Dirent11 {
            d_fileno: 1,
            d_reclen: 0,
            d_type: 4,
            d_namlen: 255,
            d_name: [b'x'; 256],
        };
        dirent_11_to_12(&full, &mut new);
        assert_eq!(new.d_namlen, 255);
        assert_eq!(new.d_name[255], 0);
    }
}
