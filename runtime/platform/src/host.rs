//! The host implementation of [`Platform`]: the Rust standard library,
//! and guest-mem's [`HostVm`](guest_mem::platform::HostVm) for memory.

use std::io::{Read, Seek, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::{
    DirEntry, File, FileKind, FileStat, OpenMode, PadState, Platform, PlatformError, SeekFrom,
    SharedPads,
};

/// Where console output goes.
pub enum ConsoleSink {
    /// The process's standard output (TTY channel 0 and every other).
    Stdout,
    /// A buffer (tests read it back with [`HostPlatform::take_console`]).
    Capture(Mutex<Vec<u8>>),
}

/// The desktop platform.
pub struct HostPlatform {
    start: Instant,
    pads: SharedPads,
    console: ConsoleSink,
}

impl Default for HostPlatform {
    fn default() -> Self {
        HostPlatform::new(ConsoleSink::Stdout)
    }
}

impl HostPlatform {
    /// A host platform writing console output to `console`.
    pub fn new(console: ConsoleSink) -> HostPlatform {
        HostPlatform {
            start: Instant::now(),
            pads: SharedPads::default(),
            console,
        }
    }

    /// A host platform that keeps console output in memory.
    pub fn capturing() -> HostPlatform {
        HostPlatform::new(ConsoleSink::Capture(Mutex::new(Vec::new())))
    }

    /// Takes the console output captured so far (empty for
    /// [`ConsoleSink::Stdout`]).
    pub fn take_console(&self) -> Vec<u8> {
        match &self.console {
            ConsoleSink::Stdout => Vec::new(),
            ConsoleSink::Capture(buf) => {
                std::mem::take(&mut *buf.lock().unwrap_or_else(|e| e.into_inner()))
            }
        }
    }

    /// Sets what port 0 reports (a window's keyboard or a controller).
    pub fn set_pad(&self, port: usize, state: Option<PadState>) {
        self.pads.set(port, state);
    }
}

fn io_err(op: &'static str, path: &Path, source: std::io::Error) -> PlatformError {
    PlatformError::Io {
        op,
        path: path.display().to_string(),
        source,
    }
}

fn kind_of(ft: std::fs::FileType) -> FileKind {
    if ft.is_dir() {
        FileKind::Dir
    } else if ft.is_file() {
        FileKind::File
    } else {
        FileKind::Other
    }
}

fn stat_of(md: &std::fs::Metadata) -> FileStat {
    use std::os::unix::fs::MetadataExt;
    FileStat {
        kind: kind_of(md.file_type()),
        size: md.len(),
        atime: md.atime(),
        mtime: md.mtime(),
        ctime: md.ctime(),
        perm: md.mode() & 0o777,
    }
}

struct HostFile {
    file: std::fs::File,
    path: String,
}

impl HostFile {
    fn err(&self, op: &'static str, source: std::io::Error) -> PlatformError {
        PlatformError::Io {
            op,
            path: self.path.clone(),
            source,
        }
    }
}

impl File for HostFile {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, PlatformError> {
        let mut done = 0;
        while done < buf.len() {
            match self.file.read(&mut buf[done..]) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err("read", e)),
            }
        }
        Ok(done)
    }
    fn write(&mut self, buf: &[u8]) -> Result<usize, PlatformError> {
        self.file.write_all(buf).map_err(|e| self.err("write", e))?;
        Ok(buf.len())
    }
    fn seek(&mut self, pos: SeekFrom) -> Result<u64, PlatformError> {
        let p = match pos {
            SeekFrom::Start(n) => std::io::SeekFrom::Start(n),
            SeekFrom::Current(n) => std::io::SeekFrom::Current(n),
            SeekFrom::End(n) => std::io::SeekFrom::End(n),
        };
        self.file.seek(p).map_err(|e| self.err("seek", e))
    }
    fn set_len(&mut self, len: u64) -> Result<(), PlatformError> {
        self.file.set_len(len).map_err(|e| self.err("truncate", e))
    }
    fn sync(&mut self) -> Result<(), PlatformError> {
        self.file.sync_all().map_err(|e| self.err("fsync", e))
    }
    fn stat(&mut self) -> Result<FileStat, PlatformError> {
        let md = self.file.metadata().map_err(|e| self.err("fstat", e))?;
        Ok(stat_of(&md))
    }
}

impl Platform for HostPlatform {
    fn name(&self) -> &'static str {
        "host"
    }

    fn virtual_memory(&self) -> Box<dyn guest_mem::platform::VirtualMemory> {
        Box::new(guest_mem::platform::HostVm)
    }

    fn spawn(
        &self,
        name: &str,
        stack_size: usize,
        body: Box<dyn FnOnce() + Send>,
    ) -> Result<(), PlatformError> {
        std::thread::Builder::new()
            .name(name.to_owned())
            .stack_size(stack_size)
            .spawn(body)
            .map(drop)
            .map_err(|source| PlatformError::Thread {
                name: name.to_owned(),
                source,
            })
    }

    fn monotonic_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    fn wall_clock(&self) -> (i64, u32) {
        match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
            Err(e) => (-(e.duration().as_secs() as i64), 0),
        }
    }

    fn timezone(&self) -> (i32, bool) {
        let t: libc::time_t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as libc::time_t)
            .unwrap_or(0);
        // SAFETY: an all-zero tm is a valid value to be overwritten.
        let mut tm: libc::tm = unsafe { std::mem::zeroed() };
        // SAFETY: localtime_r writes only the tm we pass and reads t.
        if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
            return (0, false);
        }
        ((tm.tm_gmtoff / 60) as i32, tm.tm_isdst > 0)
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }

    fn yield_now(&self) {
        std::thread::yield_now();
    }

    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn File>, PlatformError> {
        let file = std::fs::OpenOptions::new()
            .read(mode.read)
            .write(mode.write || mode.append)
            .append(mode.append)
            .truncate(mode.truncate)
            .create(mode.create && !mode.exclusive)
            .create_new(mode.create && mode.exclusive)
            .open(path)
            .map_err(|e| io_err("open", path, e))?;
        Ok(Box::new(HostFile {
            file,
            path: path.display().to_string(),
        }))
    }

    fn stat(&self, path: &Path) -> Result<FileStat, PlatformError> {
        let md = std::fs::metadata(path).map_err(|e| io_err("stat", path, e))?;
        Ok(stat_of(&md))
    }

    fn mkdir(&self, path: &Path) -> Result<(), PlatformError> {
        std::fs::create_dir(path).map_err(|e| io_err("mkdir", path, e))
    }

    fn mkdir_all(&self, path: &Path) -> Result<(), PlatformError> {
        std::fs::create_dir_all(path).map_err(|e| io_err("mkdir", path, e))
    }

    fn rmdir(&self, path: &Path) -> Result<(), PlatformError> {
        std::fs::remove_dir(path).map_err(|e| io_err("rmdir", path, e))
    }

    fn unlink(&self, path: &Path) -> Result<(), PlatformError> {
        std::fs::remove_file(path).map_err(|e| io_err("unlink", path, e))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<(), PlatformError> {
        std::fs::rename(from, to).map_err(|e| io_err("rename", from, e))
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, PlatformError> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(path).map_err(|e| io_err("opendir", path, e))? {
            let e = e.map_err(|e| io_err("readdir", path, e))?;
            let kind = e.file_type().map(kind_of).unwrap_or(FileKind::Other);
            out.push(DirEntry {
                name: e.file_name().to_string_lossy().into_owned(),
                kind,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    fn pads(&self) -> &SharedPads {
        &self.pads
    }

    fn console_write(&self, _channel: u32, bytes: &[u8]) {
        match &self.console {
            ConsoleSink::Stdout => {
                let mut out = std::io::stdout().lock();
                if let Err(e) = out.write_all(bytes) {
                    log::warn!("console output lost: {e}");
                }
            }
            ConsoleSink::Capture(buf) => buf
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(bytes),
        }
    }

    fn console_flush(&self) {
        if let ConsoleSink::Stdout = self.console {
            let _ = std::io::stdout().lock().flush();
        }
    }
}
