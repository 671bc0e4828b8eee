//! sys_fs: the cellFs functions, over LV2's file system (the same
//! sandboxed folder and descriptors as the sys_fs_* system calls).

use lv2::CellError;
use lv2::fs::{DIRENT_SIZE, MAX_PATH, STAT_SIZE, write_dirent, write_stat};

use crate::args::Ptr;
use crate::{Cx, Registry};

const MODULE: &str = "sys_fs";

/// Registers the module's functions.
pub fn register(r: &mut Registry) {
    r.add(MODULE, "cellFsOpen", cell_fs_open);
    r.add(MODULE, "cellFsRead", cell_fs_read);
    r.add(MODULE, "cellFsWrite", cell_fs_write);
    r.add(MODULE, "cellFsClose", |cx: &mut Cx<'_>, fd: u32| {
        cx.t.process.fs.close(fd)
    });
    r.add(MODULE, "cellFsLseek", cell_fs_lseek);
    r.add(MODULE, "cellFsStat", cell_fs_stat);
    r.add(MODULE, "cellFsFstat", cell_fs_fstat);
    r.add(
        MODULE,
        "cellFsMkdir",
        |cx: &mut Cx<'_>, path: Ptr, _mode: u32| {
            let p = path_of(cx, path)?;
            cx.t.process.fs.mkdir(&*cx.t.process.platform, &p)
        },
    );
    r.add(MODULE, "cellFsRmdir", |cx: &mut Cx<'_>, path: Ptr| {
        let p = path_of(cx, path)?;
        cx.t.process.fs.rmdir(&*cx.t.process.platform, &p)
    });
    r.add(MODULE, "cellFsUnlink", |cx: &mut Cx<'_>, path: Ptr| {
        let p = path_of(cx, path)?;
        cx.t.process.fs.unlink(&*cx.t.process.platform, &p)
    });
    r.add(
        MODULE,
        "cellFsRename",
        |cx: &mut Cx<'_>, from: Ptr, to: Ptr| {
            let (a, b) = (path_of(cx, from)?, path_of(cx, to)?);
            cx.t.process.fs.rename(&*cx.t.process.platform, &a, &b)
        },
    );
    r.add(MODULE, "cellFsOpendir", cell_fs_opendir);
    r.add(MODULE, "cellFsReaddir", cell_fs_readdir);
    r.add(MODULE, "cellFsClosedir", |cx: &mut Cx<'_>, fd: u32| {
        cx.t.process.fs.closedir(fd)
    });
    r.add(
        MODULE,
        "cellFsFtruncate",
        |cx: &mut Cx<'_>, fd: u32, size: u64| cx.t.process.fs.ftruncate(fd, size),
    );
    r.add(
        MODULE,
        "cellFsTruncate",
        |cx: &mut Cx<'_>, path: Ptr, size: u64| {
            let p = path_of(cx, path)?;
            cx.t.process.fs.truncate(&*cx.t.process.platform, &p, size)
        },
    );
    r.add(MODULE, "cellFsFsync", |cx: &mut Cx<'_>, fd: u32| {
        cx.t.process.fs.fsync(fd)
    });
}

fn path_of(cx: &Cx<'_>, p: Ptr) -> Result<String, CellError> {
    cx.t.vm().read_cstr(p.0, MAX_PATH, CellError::ENAMETOOLONG)
}

/// `cellFsOpen(path, flags, s32* fd, arg, size)`.
fn cell_fs_open(
    cx: &mut Cx<'_>,
    path: Ptr,
    flags: u32,
    fd: Ptr,
    _arg: Ptr,
    _size: u64,
) -> Result<(), CellError> {
    let p = path_of(cx, path)?;
    cx.t.vm().check_writable(fd.0, 4)?;
    let n = cx.t.process.fs.open(&*cx.t.process.platform, &p, flags)?;
    cx.t.vm().write_u32(fd.0, n)
}

/// `cellFsRead(fd, buf, nbytes, u64* nread)` (`nread` may be null).
fn cell_fs_read(cx: &mut Cx<'_>, fd: u32, buf: Ptr, n: u64, nread: Ptr) -> Result<(), CellError> {
    let vm = cx.t.vm();
    if !nread.is_null() {
        vm.check_writable(nread.0, 8)?;
    }
    if n > 0 {
        vm.check_writable(buf.0, n.min(u64::from(u32::MAX)) as u32)?;
    }
    let data = cx.t.process.fs.read(fd, n)?;
    vm.write_bytes(buf.0, &data)?;
    if !nread.is_null() {
        vm.write_u64(nread.0, data.len() as u64)?;
    }
    Ok(())
}

/// `cellFsWrite(fd, buf, nbytes, u64* nwrite)` (`nwrite` may be null).
fn cell_fs_write(cx: &mut Cx<'_>, fd: u32, buf: Ptr, n: u64, nwrite: Ptr) -> Result<(), CellError> {
    let vm = cx.t.vm();
    if !nwrite.is_null() {
        vm.check_writable(nwrite.0, 8)?;
    }
    let data = vm.read_bytes(buf.0, n.min(u64::from(u32::MAX)) as u32)?;
    let w = cx.t.process.fs.write(fd, &data)?;
    if !nwrite.is_null() {
        vm.write_u64(nwrite.0, w)?;
    }
    Ok(())
}

/// `cellFsLseek(fd, offset, whence, u64* pos)`.
fn cell_fs_lseek(
    cx: &mut Cx<'_>,
    fd: u32,
    offset: i64,
    whence: u32,
    pos: Ptr,
) -> Result<(), CellError> {
    cx.t.vm().check_writable(pos.0, 8)?;
    let p = cx.t.process.fs.lseek(fd, offset, whence)?;
    cx.t.vm().write_u64(pos.0, p)
}

/// `cellFsStat(path, CellFsStat* sb)`.
fn cell_fs_stat(cx: &mut Cx<'_>, path: Ptr, sb: Ptr) -> Result<(), CellError> {
    let p = path_of(cx, path)?;
    cx.t.vm().check_writable(sb.0, STAT_SIZE)?;
    let st = cx.t.process.fs.stat(&*cx.t.process.platform, &p)?;
    write_stat(cx.t.vm(), sb.0, &st)
}

/// `cellFsFstat(fd, CellFsStat* sb)`.
fn cell_fs_fstat(cx: &mut Cx<'_>, fd: u32, sb: Ptr) -> Result<(), CellError> {
    cx.t.vm().check_writable(sb.0, STAT_SIZE)?;
    let st = cx.t.process.fs.fstat(fd)?;
    write_stat(cx.t.vm(), sb.0, &st)
}

/// `cellFsOpendir(path, s32* fd)`.
fn cell_fs_opendir(cx: &mut Cx<'_>, path: Ptr, fd: Ptr) -> Result<(), CellError> {
    let p = path_of(cx, path)?;
    cx.t.vm().check_writable(fd.0, 4)?;
    let n = cx.t.process.fs.opendir(&*cx.t.process.platform, &p)?;
    cx.t.vm().write_u32(fd.0, n)
}

/// `cellFsReaddir(fd, CellFsDirent* dir, u64* nread)`: `nread` 0 at the end.
fn cell_fs_readdir(cx: &mut Cx<'_>, fd: u32, dir: Ptr, nread: Ptr) -> Result<(), CellError> {
    let vm = cx.t.vm();
    vm.check_writable(nread.0, 8)?;
    vm.check_writable(dir.0, DIRENT_SIZE)?;
    match cx.t.process.fs.readdir(fd)? {
        Some((name, kind)) => {
            write_dirent(vm, dir.0, &name, kind)?;
            vm.write_u64(nread.0, u64::from(DIRENT_SIZE))
        }
        None => vm.write_u64(nread.0, 0),
    }
}
