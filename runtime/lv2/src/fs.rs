//! The file system (system calls 801..832), on a sandboxed host folder.
//!
//! A guest path is absolute (`/dev_hdd0/game/...`, `/app_home/...`); it
//! names `<root>/dev_hdd0/game/...` on the host. `.` and `..` are
//! resolved inside the guest path, so nothing outside the root can be
//! named. The cellFs functions of the sys_fs module (the `hle` crate) use
//! the same calls.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex as StdMutex};

use platform::{File, FileKind, FileStat, OpenMode, Platform, PlatformError, SeekFrom};

use crate::error::{CELL_OK, CellError, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;
use crate::sync::lock;
use crate::vm::Vm;

/// `CELL_FS_O_ACCMODE`.
pub const O_ACCMODE: u32 = 0o3;
/// `CELL_FS_O_WRONLY`.
pub const O_WRONLY: u32 = 0o1;
/// `CELL_FS_O_RDWR`.
pub const O_RDWR: u32 = 0o2;
/// `CELL_FS_O_CREAT`.
pub const O_CREAT: u32 = 0o100;
/// `CELL_FS_O_EXCL`.
pub const O_EXCL: u32 = 0o200;
/// `CELL_FS_O_TRUNC`.
pub const O_TRUNC: u32 = 0o1000;
/// `CELL_FS_O_APPEND`.
pub const O_APPEND: u32 = 0o2000;
/// `CELL_FS_S_IFDIR`.
pub const S_IFDIR: u32 = 0o040000;
/// `CELL_FS_S_IFREG`.
pub const S_IFREG: u32 = 0o100000;
/// Size of `CellFsStat` (4-byte packed).
pub const STAT_SIZE: u32 = 52;
/// Size of `CellFsDirent`.
pub const DIRENT_SIZE: u32 = 258;
/// The longest guest path.
pub const MAX_PATH: u32 = 1024;
const FIRST_FD: u32 = 3;
const LAST_FD: u32 = 255;

enum Handle {
    File {
        file: Box<dyn File>,
        flags: u32,
    },
    Dir {
        entries: Vec<(String, FileKind)>,
        pos: usize,
    },
}

/// The process's file system: the sandbox root and the open descriptors.
pub struct Fs {
    root: PathBuf,
    handles: StdMutex<HashMap<u32, Handle>>,
}

impl std::fmt::Debug for Fs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fs")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

/// The guest error for a failed host call.
pub fn map_error(e: &PlatformError) -> CellError {
    use std::io::ErrorKind as K;
    match e.io_kind() {
        K::NotFound => return CellError::ENOENT,
        K::AlreadyExists => return CellError::EEXIST,
        K::PermissionDenied => return CellError::EACCES,
        K::DirectoryNotEmpty => return CellError::ENOTEMPTY,
        K::NotADirectory => return CellError::ENOTDIR,
        K::IsADirectory => return CellError::EISDIR,
        K::StorageFull => return CellError::ENOSPC,
        K::ReadOnlyFilesystem => return CellError::EROFS,
        K::InvalidInput => return CellError::EINVAL,
        _ => {}
    }
    log::warn!("file system: {e}");
    CellError::EIO
}

impl Fs {
    /// A file system rooted at host folder `root` (created when first used).
    pub fn new(root: PathBuf) -> Fs {
        Fs {
            root,
            handles: StdMutex::new(HashMap::new()),
        }
    }

    /// The host folder holding the guest's files.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The host path of guest path `guest`.
    pub fn host_path(&self, guest: &str) -> Result<PathBuf, CellError> {
        if guest.len() > MAX_PATH as usize {
            return Err(CellError::ENAMETOOLONG);
        }
        if !guest.starts_with('/') {
            return Err(CellError::EINVAL);
        }
        let mut parts: Vec<&str> = Vec::new();
        for c in guest.split('/') {
            match c {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                c => parts.push(c),
            }
        }
        let mut p = self.root.clone();
        p.extend(parts);
        Ok(p)
    }

    fn insert(&self, h: Handle) -> Result<u32, CellError> {
        let mut hs = lock(&self.handles);
        let fd = (FIRST_FD..=LAST_FD)
            .find(|fd| !hs.contains_key(fd))
            .ok_or(CellError::EMFILE)?;
        hs.insert(fd, h);
        Ok(fd)
    }

    fn ensure_root(&self, platform: &dyn Platform) {
        if let Err(e) = platform.mkdir_all(&self.root) {
            log::warn!("guest file system root: {e}");
        }
    }

    /// Opens a file (`flags`: the CELL_FS_O_* bits).
    pub fn open(&self, platform: &dyn Platform, path: &str, flags: u32) -> Result<u32, CellError> {
        let host = self.host_path(path)?;
        self.ensure_root(platform);
        if let Ok(st) = platform.stat(&host)
            && st.kind == FileKind::Dir
        {
            return Err(CellError::EISDIR);
        }
        let acc = flags & O_ACCMODE;
        if acc == O_ACCMODE {
            return Err(CellError::EINVAL);
        }
        let mode = OpenMode {
            read: acc != O_WRONLY,
            write: acc != 0,
            create: flags & O_CREAT != 0,
            exclusive: flags & O_EXCL != 0,
            truncate: flags & O_TRUNC != 0 && acc != 0,
            append: flags & O_APPEND != 0,
        };
        let file = platform.open(&host, mode).map_err(|e| map_error(&e))?;
        self.insert(Handle::File { file, flags })
    }

    fn with_file<R>(
        &self,
        fd: u32,
        f: impl FnOnce(&mut dyn File, u32) -> Result<R, CellError>,
    ) -> Result<R, CellError> {
        let mut hs = lock(&self.handles);
        match hs.get_mut(&fd) {
            Some(Handle::File { file, flags }) => f(&mut **file, *flags),
            _ => Err(CellError::EBADF),
        }
    }

    /// Reads up to `n` bytes.
    pub fn read(&self, fd: u32, n: u64) -> Result<Vec<u8>, CellError> {
        self.with_file(fd, |file, flags| {
            if flags & O_ACCMODE == O_WRONLY {
                return Err(CellError::EBADF);
            }
            let mut buf = vec![0u8; n.min(1 << 30) as usize];
            let got = file.read(&mut buf).map_err(|e| map_error(&e))?;
            buf.truncate(got);
            Ok(buf)
        })
    }

    /// Writes `data`; returns the bytes written.
    pub fn write(&self, fd: u32, data: &[u8]) -> Result<u64, CellError> {
        self.with_file(fd, |file, flags| {
            if flags & O_ACCMODE == 0 {
                return Err(CellError::EBADF);
            }
            file.write(data)
                .map(|n| n as u64)
                .map_err(|e| map_error(&e))
        })
    }

    /// Moves the position (`whence` 0 set, 1 current, 2 end).
    pub fn lseek(&self, fd: u32, offset: i64, whence: u32) -> Result<u64, CellError> {
        let pos = match whence {
            0 if offset >= 0 => SeekFrom::Start(offset as u64),
            0 => return Err(CellError::EINVAL),
            1 => SeekFrom::Current(offset),
            2 => SeekFrom::End(offset),
            _ => return Err(CellError::EINVAL),
        };
        self.with_file(fd, |file, _| file.seek(pos).map_err(|e| map_error(&e)))
    }

    /// An open file's attributes.
    pub fn fstat(&self, fd: u32) -> Result<FileStat, CellError> {
        self.with_file(fd, |file, _| file.stat().map_err(|e| map_error(&e)))
    }

    /// Sets an open file's length.
    pub fn ftruncate(&self, fd: u32, len: u64) -> Result<(), CellError> {
        self.with_file(fd, |file, flags| {
            if flags & O_ACCMODE == 0 {
                return Err(CellError::EBADF);
            }
            file.set_len(len).map_err(|e| map_error(&e))
        })
    }

    /// Writes an open file through to storage.
    pub fn fsync(&self, fd: u32) -> Result<(), CellError> {
        self.with_file(fd, |file, _| file.sync().map_err(|e| map_error(&e)))
    }

    /// Closes a file.
    pub fn close(&self, fd: u32) -> Result<(), CellError> {
        let mut hs = lock(&self.handles);
        match hs.get(&fd) {
            Some(Handle::File { .. }) => {
                hs.remove(&fd);
                Ok(())
            }
            _ => Err(CellError::EBADF),
        }
    }

    /// A path's attributes.
    pub fn stat(&self, platform: &dyn Platform, path: &str) -> Result<FileStat, CellError> {
        let host = self.host_path(path)?;
        self.ensure_root(platform);
        platform.stat(&host).map_err(|e| map_error(&e))
    }

    /// Creates a directory.
    pub fn mkdir(&self, platform: &dyn Platform, path: &str) -> Result<(), CellError> {
        let host = self.host_path(path)?;
        self.ensure_root(platform);
        platform.mkdir(&host).map_err(|e| map_error(&e))
    }

    /// Removes an empty directory.
    pub fn rmdir(&self, platform: &dyn Platform, path: &str) -> Result<(), CellError> {
        let host = self.host_path(path)?;
        match platform.stat(&host) {
            Ok(st) if st.kind != FileKind::Dir => return Err(CellError::ENOTDIR),
            Err(e) => return Err(map_error(&e)),
            _ => {}
        }
        platform.rmdir(&host).map_err(|e| map_error(&e))
    }

    /// Removes a file (`CELL_EISDIR` for a directory).
    pub fn unlink(&self, platform: &dyn Platform, path: &str) -> Result<(), CellError> {
        let host = self.host_path(path)?;
        match platform.stat(&host) {
            Ok(st) if st.kind == FileKind::Dir => return Err(CellError::EISDIR),
            Err(e) => return Err(map_error(&e)),
            _ => {}
        }
        platform.unlink(&host).map_err(|e| map_error(&e))
    }

    /// Renames a file or directory.
    pub fn rename(&self, platform: &dyn Platform, from: &str, to: &str) -> Result<(), CellError> {
        let (a, b) = (self.host_path(from)?, self.host_path(to)?);
        platform.rename(&a, &b).map_err(|e| map_error(&e))
    }

    /// Sets a file's length by path.
    pub fn truncate(&self, platform: &dyn Platform, path: &str, len: u64) -> Result<(), CellError> {
        let host = self.host_path(path)?;
        let mut f = platform
            .open(
                &host,
                OpenMode {
                    write: true,
                    ..OpenMode::default()
                },
            )
            .map_err(|e| map_error(&e))?;
        f.set_len(len).map_err(|e| map_error(&e))
    }

    /// Opens a directory for reading (its entries include `.` and `..`).
    pub fn opendir(&self, platform: &dyn Platform, path: &str) -> Result<u32, CellError> {
        let host = self.host_path(path)?;
        self.ensure_root(platform);
        let st = platform.stat(&host).map_err(|e| map_error(&e))?;
        if st.kind != FileKind::Dir {
            return Err(CellError::ENOTDIR);
        }
        let mut entries = vec![
            (".".to_owned(), FileKind::Dir),
            ("..".to_owned(), FileKind::Dir),
        ];
        entries.extend(
            platform
                .read_dir(&host)
                .map_err(|e| map_error(&e))?
                .into_iter()
                .map(|e| (e.name, e.kind)),
        );
        self.insert(Handle::Dir { entries, pos: 0 })
    }

    /// The next directory entry, `None` at the end.
    pub fn readdir(&self, fd: u32) -> Result<Option<(String, FileKind)>, CellError> {
        let mut hs = lock(&self.handles);
        match hs.get_mut(&fd) {
            Some(Handle::Dir { entries, pos }) => {
                let e = entries.get(*pos).cloned();
                *pos += usize::from(e.is_some());
                Ok(e)
            }
            _ => Err(CellError::EBADF),
        }
    }

    /// Closes a directory.
    pub fn closedir(&self, fd: u32) -> Result<(), CellError> {
        let mut hs = lock(&self.handles);
        match hs.get(&fd) {
            Some(Handle::Dir { .. }) => {
                hs.remove(&fd);
                Ok(())
            }
            _ => Err(CellError::EBADF),
        }
    }
}

/// Writes a `CellFsStat` (52 bytes, big-endian, 4-byte packed).
pub fn write_stat(vm: Vm<'_>, addr: u32, st: &FileStat) -> Result<(), CellError> {
    vm.check_writable(addr, STAT_SIZE)?;
    let mode = match st.kind {
        FileKind::Dir => S_IFDIR,
        _ => S_IFREG,
    } | (st.perm & 0o777);
    let mut b = Vec::with_capacity(STAT_SIZE as usize);
    b.extend_from_slice(&mode.to_be_bytes());
    b.extend_from_slice(&0u32.to_be_bytes());
    b.extend_from_slice(&0u32.to_be_bytes());
    for v in [st.atime, st.mtime, st.ctime] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    b.extend_from_slice(&st.size.to_be_bytes());
    b.extend_from_slice(&4096u64.to_be_bytes());
    vm.write_bytes(addr, &b)
}

/// Writes a `CellFsDirent` (type, name length, 256-byte name).
pub fn write_dirent(vm: Vm<'_>, addr: u32, name: &str, kind: FileKind) -> Result<(), CellError> {
    let mut b = vec![0u8; DIRENT_SIZE as usize];
    b[0] = match kind {
        FileKind::Dir => 1,
        FileKind::File => 2,
        FileKind::Other => 3,
    };
    let n = name.len().min(255);
    b[1] = n as u8;
    b[2..2 + n].copy_from_slice(&name.as_bytes()[..n]);
    vm.write_bytes(addr, &b)
}

fn path_arg(t: &GuestThread, n: usize) -> Result<String, CellError> {
    t.vm()
        .read_cstr(t.arg_u32(n), MAX_PATH, CellError::ENAMETOOLONG)
}

/// 801 `sys_fs_open(path, flags, s32* fd, mode, arg, size)`.
pub fn sys_fs_open(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let path = path_arg(t, 0)?;
    let out = t.arg_u32(2);
    t.vm().check_writable(out, 4)?;
    let fd = p.fs.open(&*p.platform, &path, t.arg_u32(1))?;
    t.vm().write_u32(out, fd)?;
    CELL_OK
}

/// 802 `sys_fs_read(fd, buf, nbytes, u64* nread)`.
pub fn sys_fs_read(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (fd, buf, n, out) = (t.arg_u32(0), t.arg_u32(1), t.arg_u64(2), t.arg_u32(3));
    let vm = t.vm();
    vm.check_writable(out, 8)?;
    if n > 0 {
        vm.check_writable(buf, n.min(u64::from(u32::MAX)) as u32)?;
    }
    let data = p.fs.read(fd, n)?;
    vm.write_bytes(buf, &data)?;
    vm.write_u64(out, data.len() as u64)?;
    CELL_OK
}

/// 803 `sys_fs_write(fd, buf, nbytes, u64* nwrite)`.
pub fn sys_fs_write(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (fd, buf, n, out) = (t.arg_u32(0), t.arg_u32(1), t.arg_u64(2), t.arg_u32(3));
    let vm = t.vm();
    vm.check_writable(out, 8)?;
    let data = vm.read_bytes(buf, n.min(u64::from(u32::MAX)) as u32)?;
    let w = p.fs.write(fd, &data)?;
    vm.write_u64(out, w)?;
    CELL_OK
}

/// 804 `sys_fs_close(fd)`.
pub fn sys_fs_close(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.close(t.arg_u32(0))?;
    CELL_OK
}

/// 805 `sys_fs_opendir(path, s32* fd)`.
pub fn sys_fs_opendir(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let path = path_arg(t, 0)?;
    let out = t.arg_u32(1);
    t.vm().check_writable(out, 4)?;
    let fd = p.fs.opendir(&*p.platform, &path)?;
    t.vm().write_u32(out, fd)?;
    CELL_OK
}

/// 806 `sys_fs_readdir(fd, CellFsDirent* dir, u64* nread)`: `nread` is
/// the entry's size, 0 at the end.
pub fn sys_fs_readdir(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (fd, dir, out) = (t.arg_u32(0), t.arg_u32(1), t.arg_u32(2));
    let vm = t.vm();
    vm.check_writable(out, 8)?;
    vm.check_writable(dir, DIRENT_SIZE)?;
    match p.fs.readdir(fd)? {
        Some((name, kind)) => {
            write_dirent(vm, dir, &name, kind)?;
            vm.write_u64(out, u64::from(DIRENT_SIZE))?;
        }
        None => vm.write_u64(out, 0)?,
    }
    CELL_OK
}

/// 807 `sys_fs_closedir(fd)`.
pub fn sys_fs_closedir(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.closedir(t.arg_u32(0))?;
    CELL_OK
}

/// 808 `sys_fs_stat(path, CellFsStat* sb)`.
pub fn sys_fs_stat(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let path = path_arg(t, 0)?;
    t.vm().check_writable(t.arg_u32(1), STAT_SIZE)?;
    let st = p.fs.stat(&*p.platform, &path)?;
    write_stat(t.vm(), t.arg_u32(1), &st)?;
    CELL_OK
}

/// 809 `sys_fs_fstat(fd, CellFsStat* sb)`.
pub fn sys_fs_fstat(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    t.vm().check_writable(t.arg_u32(1), STAT_SIZE)?;
    let st = p.fs.fstat(t.arg_u32(0))?;
    write_stat(t.vm(), t.arg_u32(1), &st)?;
    CELL_OK
}

/// 811 `sys_fs_mkdir(path, mode)`.
pub fn sys_fs_mkdir(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.mkdir(&*p.platform, &path_arg(t, 0)?)?;
    CELL_OK
}

/// 812 `sys_fs_rename(from, to)`.
pub fn sys_fs_rename(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.rename(&*p.platform, &path_arg(t, 0)?, &path_arg(t, 1)?)?;
    CELL_OK
}

/// 813 `sys_fs_rmdir(path)`.
pub fn sys_fs_rmdir(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.rmdir(&*p.platform, &path_arg(t, 0)?)?;
    CELL_OK
}

/// 814 `sys_fs_unlink(path)`.
pub fn sys_fs_unlink(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.unlink(&*p.platform, &path_arg(t, 0)?)?;
    CELL_OK
}

/// 818 `sys_fs_lseek(fd, offset, whence, u64* pos)`.
pub fn sys_fs_lseek(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let out = t.arg_u32(3);
    t.vm().check_writable(out, 8)?;
    let pos =
        p.fs.lseek(t.arg_u32(0), t.arg_u64(1) as i64, t.arg_u32(2))?;
    t.vm().write_u64(out, pos)?;
    CELL_OK
}

/// 820 `sys_fs_fsync(fd)`.
pub fn sys_fs_fsync(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.fsync(t.arg_u32(0))?;
    CELL_OK
}

/// 831 `sys_fs_truncate(path, size)`.
pub fn sys_fs_truncate(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.truncate(&*p.platform, &path_arg(t, 0)?, t.arg_u64(1))?;
    CELL_OK
}

/// 832 `sys_fs_ftruncate(fd, size)`.
pub fn sys_fs_ftruncate(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    p.fs.ftruncate(t.arg_u32(0), t.arg_u64(1))?;
    CELL_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guest_paths_stay_inside_the_root() {
        let fs = Fs::new(PathBuf::from("/sandbox"));
        assert_eq!(
            fs.host_path("/dev_hdd0/a/b.txt").unwrap(),
            PathBuf::from("/sandbox/dev_hdd0/a/b.txt")
        );
        assert_eq!(
            fs.host_path("/dev_hdd0/../../../etc/passwd").unwrap(),
            PathBuf::from("/sandbox/etc/passwd")
        );
        assert_eq!(
            fs.host_path("/./x//y/.").unwrap(),
            PathBuf::from("/sandbox/x/y")
        );
        assert_eq!(fs.host_path("relative"), Err(CellError::EINVAL));
        assert_eq!(
            fs.host_path(&"/a".repeat(600)),
            Err(CellError::ENAMETOOLONG)
        );
    }
}
