//! The runtime's platform layer on the console ([`platform::Platform`]):
//! what LV2, the HLE modules and the RSX need from the system.
//!
//! - **Guest memory** ([`Ps5Vm`]): the 4 GiB reservation and its pages
//!   through the console's `mmap`, `mprotect` and `munmap` (libkernel's
//!   FreeBSD system-call wrappers). FreeBSD's `MADV_DONTNEED` keeps a
//!   page's contents, so giving pages back maps fresh anonymous memory over
//!   them (`MAP_FIXED`), which reads as zero, as guest-mem requires. No
//!   fault handler: guest memory runs in checked mode (see ps5/README.md).
//! - **Files** under one sandbox folder ([`Ps5Platform::sandbox`], under
//!   `/data/`; `/app0` is read-only): LV2 maps the guest's paths into it,
//!   and every path this layer is asked to touch must lie inside it, or
//!   the call fails with `PermissionDenied` naming the path.
//! - **Threads, time, sleeping**: the standard library's (pthreads,
//!   `clock_gettime`, `nanosleep` from libkernel, through the payload's
//!   FreeBSD 11 shims), the same code as the host's platform, which this
//!   one delegates them to.
//! - **Pads**: the shared pad state the HLE pad module reads; on the
//!   console a thread fills port 0 from the controller (`console::pad`,
//!   libScePad).
//! - **TTY**: the guest's console output goes to the log (standard error
//!   and the kernel log), a line at a time.
//!
//! Everything but the pad thread builds on the host too, where the tests
//! run it (the reservation, zero-filled recommits, the sandbox).

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use guest_mem::Prot;
use guest_mem::platform::{VirtualMemory, VmError};
use platform::host::HostPlatform;
use platform::{DirEntry, File, FileStat, OpenMode, Platform, PlatformError, SharedPads};

/// The default sandbox folder of the game's files.
pub const DEFAULT_SANDBOX: &str = "/data/cellport/ps3-fs";

/// Guest memory through the console's `mmap` family.
#[derive(Debug, Default, Clone, Copy)]
pub struct Ps5Vm;

fn vm_fail(call: &'static str, addr: *mut u8, len: usize) -> VmError {
    VmError {
        call,
        addr: addr as usize,
        len,
        reason: std::io::Error::last_os_error().to_string(),
    }
}

fn prot_bits(prot: Prot) -> libc::c_int {
    let mut p = libc::PROT_NONE;
    if prot.contains(Prot::READ) || prot.contains(Prot::EXEC) {
        // Guest code is read, never executed by the host.
        p |= libc::PROT_READ;
    }
    if prot.contains(Prot::WRITE) {
        p |= libc::PROT_READ | libc::PROT_WRITE;
    }
    p
}

/// Maps fresh inaccessible anonymous memory at `addr` (`MAP_FIXED` when
/// `addr` is not null): what the reservation starts as, and what pages
/// given back become.
fn map_none(addr: *mut u8, len: usize) -> *mut libc::c_void {
    let fixed = if addr.is_null() { 0 } else { libc::MAP_FIXED };
    // SAFETY: an anonymous private mapping; with MAP_FIXED only over pages
    // of the caller's own reservation (VirtualMemory's contract).
    unsafe {
        libc::mmap(
            addr.cast(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANON | fixed,
            -1,
            0,
        )
    }
}

// SAFETY: the reservation is a private anonymous mapping nobody else uses
// until `release`; committed pages are zero-filled on first commit after a
// decommit because decommit maps fresh anonymous memory over them.
unsafe impl VirtualMemory for Ps5Vm {
    fn reserve(&self, len: usize) -> Result<*mut u8, VmError> {
        let p = map_none(std::ptr::null_mut(), len);
        if p == libc::MAP_FAILED {
            return Err(vm_fail(
                "reserve (mmap PROT_NONE)",
                std::ptr::null_mut(),
                len,
            ));
        }
        Ok(p.cast())
    }

    fn commit(&self, addr: *mut u8, len: usize, prot: Prot) -> Result<(), VmError> {
        // SAFETY: a range inside the caller's reservation.
        if unsafe { libc::mprotect(addr.cast(), len, prot_bits(prot)) } != 0 {
            return Err(vm_fail("commit (mprotect)", addr, len));
        }
        Ok(())
    }

    fn protect(&self, addr: *mut u8, len: usize, prot: Prot) -> Result<(), VmError> {
        // SAFETY: as for commit.
        if unsafe { libc::mprotect(addr.cast(), len, prot_bits(prot)) } != 0 {
            return Err(vm_fail("protect (mprotect)", addr, len));
        }
        Ok(())
    }

    fn decommit(&self, addr: *mut u8, len: usize) -> Result<(), VmError> {
        if map_none(addr, len) == libc::MAP_FAILED {
            return Err(vm_fail("decommit (mmap MAP_FIXED)", addr, len));
        }
        Ok(())
    }

    fn release(&self, addr: *mut u8, len: usize) -> Result<(), VmError> {
        // SAFETY: the whole reservation, no longer used.
        if unsafe { libc::munmap(addr.cast(), len) } != 0 {
            return Err(vm_fail("release (munmap)", addr, len));
        }
        Ok(())
    }

    fn install_fault_handler(&self) -> bool {
        // Whether a payload may take SIGSEGV with a usable siginfo is
        // unproven: checked mode finds every bad access without one.
        false
    }
}

/// Whether `path` is inside `root` (both absolute, no `..` in `path`).
pub fn is_inside(root: &Path, path: &Path) -> bool {
    path.is_absolute()
        && path.starts_with(root)
        && !path.components().any(|c| matches!(c, Component::ParentDir))
}

/// The console's platform.
pub struct Ps5Platform {
    sandbox: PathBuf,
    std: HostPlatform,
    tty: Mutex<Vec<u8>>,
}

impl Ps5Platform {
    /// A platform whose files live under `sandbox` (created if missing).
    pub fn new(sandbox: &Path) -> Result<Ps5Platform, PlatformError> {
        std::fs::create_dir_all(sandbox).map_err(|source| PlatformError::Io {
            op: "mkdir",
            path: sandbox.display().to_string(),
            source,
        })?;
        Ok(Ps5Platform {
            sandbox: sandbox.to_path_buf(),
            std: HostPlatform::default(),
            tty: Mutex::new(Vec::new()),
        })
    }

    /// The folder the game's files live in.
    pub fn sandbox(&self) -> &Path {
        &self.sandbox
    }

    fn check(&self, op: &'static str, path: &Path) -> Result<(), PlatformError> {
        if is_inside(&self.sandbox, path) {
            Ok(())
        } else {
            Err(PlatformError::Io {
                op,
                path: path.display().to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!("outside the sandbox folder {}", self.sandbox.display()),
                ),
            })
        }
    }
}

impl Platform for Ps5Platform {
    fn name(&self) -> &'static str {
        "ps5"
    }

    fn virtual_memory(&self) -> Box<dyn VirtualMemory> {
        Box::new(Ps5Vm)
    }

    fn spawn(
        &self,
        name: &str,
        stack_size: usize,
        body: Box<dyn FnOnce() + Send>,
    ) -> Result<(), PlatformError> {
        self.std.spawn(name, stack_size, body)
    }

    fn monotonic_ns(&self) -> u64 {
        self.std.monotonic_ns()
    }

    fn wall_clock(&self) -> (i64, u32) {
        self.std.wall_clock()
    }

    fn timezone(&self) -> (i32, bool) {
        self.std.timezone()
    }

    fn sleep(&self, d: Duration) {
        self.std.sleep(d);
    }

    fn yield_now(&self) {
        self.std.yield_now();
    }

    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn File>, PlatformError> {
        self.check("open", path)?;
        self.std.open(path, mode)
    }

    fn stat(&self, path: &Path) -> Result<FileStat, PlatformError> {
        self.check("stat", path)?;
        self.std.stat(path)
    }

    fn mkdir(&self, path: &Path) -> Result<(), PlatformError> {
        self.check("mkdir", path)?;
        self.std.mkdir(path)
    }

    fn mkdir_all(&self, path: &Path) -> Result<(), PlatformError> {
        self.check("mkdir", path)?;
        self.std.mkdir_all(path)
    }

    fn rmdir(&self, path: &Path) -> Result<(), PlatformError> {
        self.check("rmdir", path)?;
        self.std.rmdir(path)
    }

    fn unlink(&self, path: &Path) -> Result<(), PlatformError> {
        self.check("unlink", path)?;
        self.std.unlink(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<(), PlatformError> {
        self.check("rename", from)?;
        self.check("rename", to)?;
        self.std.rename(from, to)
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, PlatformError> {
        self.check("opendir", path)?;
        self.std.read_dir(path)
    }

    fn pads(&self) -> &SharedPads {
        self.std.pads()
    }

    fn console_write(&self, channel: u32, bytes: &[u8]) {
        let mut buf = self.tty.lock().unwrap_or_else(|e| e.into_inner());
        buf.extend_from_slice(bytes);
        while let Some(n) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=n).collect();
            log::info!(target: "tty", "[{channel}] {}", String::from_utf8_lossy(&line[..n]));
        }
    }

    fn console_flush(&self) {
        let mut buf = self.tty.lock().unwrap_or_else(|e| e.into_inner());
        if !buf.is_empty() {
            log::info!(target: "tty", "{}", String::from_utf8_lossy(&buf));
            buf.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: usize = 64 << 10;

    #[test]
    fn reservation_commit_decommit_zeroes() {
        let vm = Ps5Vm;
        let len = 4 * PAGE;
        let base = vm.reserve(len).expect("reserve");
        vm.commit(base, PAGE, Prot::RW).unwrap();
        // SAFETY: the first page is committed read/write.
        unsafe {
            base.write(0xAB);
            base.add(PAGE - 1).write(0xCD);
        }
        vm.decommit(base, PAGE).unwrap();
        vm.commit(base, PAGE, Prot::RW).unwrap();
        // SAFETY: committed again.
        let (a, b) = unsafe { (base.read(), base.add(PAGE - 1).read()) };
        assert_eq!((a, b), (0, 0), "a recommitted page reads as zero");
        vm.protect(base, PAGE, Prot::READ).unwrap();
        vm.release(base, len).unwrap();
        assert!(!vm.install_fault_handler());
    }

    #[test]
    fn guest_memory_runs_on_it_in_checked_mode() {
        let mem =
            guest_mem::GuestMemory::with_platform(guest_mem::CheckMode::Checked, Box::new(Ps5Vm))
                .expect("a 4 GiB reservation");
        mem.map(0x1_0000, 0x2_0000, Prot::RW).unwrap();
        mem.write_u32(0x1_0010, 0x1234_5678);
        assert_eq!(mem.read_u32(0x1_0010), 0x1234_5678);
        assert!(
            mem.try_read_u32(0x5000_0000).is_err(),
            "unmapped is a fault"
        );
        // Trap mode needs a fault handler, which this platform has not.
        assert!(
            guest_mem::GuestMemory::with_platform(guest_mem::CheckMode::Trap, Box::new(Ps5Vm))
                .is_err()
        );
    }

    #[test]
    fn files_stay_in_the_sandbox() {
        let root =
            std::env::temp_dir().join(format!("cellport-ps5-sandbox-{}", std::process::id()));
        let p = Ps5Platform::new(&root).unwrap();
        let inside = root.join("dev_hdd0/game/save.bin");
        p.mkdir_all(inside.parent().unwrap()).unwrap();
        let mut f = p
            .open(
                &inside,
                OpenMode {
                    write: true,
                    create: true,
                    ..OpenMode::default()
                },
            )
            .unwrap();
        f.write(b"save").unwrap();
        assert_eq!(p.stat(&inside).unwrap().size, 4);
        for outside in [
            PathBuf::from("/etc/passwd"),
            root.join("../escape"),
            PathBuf::from("relative/file"),
        ] {
            let e = p
                .open(
                    &outside,
                    OpenMode {
                        read: true,
                        ..OpenMode::default()
                    },
                )
                .err()
                .expect("refused");
            assert_eq!(e.io_kind(), std::io::ErrorKind::PermissionDenied);
            assert!(
                e.to_string().contains(&outside.display().to_string()),
                "{e}"
            );
        }
        assert!(p.rename(&inside, Path::new("/tmp/x")).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn tty_lines_are_logged_whole() {
        let root = std::env::temp_dir().join(format!("cellport-ps5-tty-{}", std::process::id()));
        let p = Ps5Platform::new(&root).unwrap();
        p.console_write(0, b"demo: fra");
        p.console_write(0, b"me 1\npartial");
        assert_eq!(&*p.tty.lock().unwrap(), b"partial");
        p.console_flush();
        assert!(p.tty.lock().unwrap().is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
