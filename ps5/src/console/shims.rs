//! FreeBSD 11 ABI shims: the functions the standard library calls with
//! FreeBSD 12 structures, defined here on top of the console's FreeBSD 11
//! ones (see [`crate::fbsd11`]), and `pthread_setname_np`, which FreeBSD 11
//! does not have.
//!
//! The console functions are imported under FreeBSD's own names for the old
//! ABI (`fstat@FBSD_1.0`, ...), which only the stub libraries define: a plain
//! `fstat` reference can only bind to the shim here, so a missing shim is a
//! link error, never a silent structure mismatch.

use crate::fbsd11::{Dirent11, Dirent12, Stat11, Stat12, dirent_11_to_12, stat_11_to_12};
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int, c_void};
use core::mem::{offset_of, size_of};

// The standard library's view of the structures is libc's FreeBSD 12 one.
const _: () = assert!(size_of::<libc::stat>() == size_of::<Stat12>());
const _: () = assert!(offset_of!(libc::stat, st_size) == offset_of!(Stat12, st_size));
const _: () = assert!(offset_of!(libc::stat, st_mode) == offset_of!(Stat12, st_mode));
const _: () = assert!(size_of::<libc::dirent>() == size_of::<Dirent12>());
const _: () = assert!(offset_of!(libc::dirent, d_name) == offset_of!(Dirent12, d_name));

unsafe extern "C" {
    #[link_name = "fstat@FBSD_1.0"]
    fn fstat_fbsd11(fd: c_int, buf: *mut Stat11) -> c_int;
    #[link_name = "stat@FBSD_1.0"]
    fn stat_fbsd11(path: *const c_char, buf: *mut Stat11) -> c_int;
    #[link_name = "lstat@FBSD_1.0"]
    fn lstat_fbsd11(path: *const c_char, buf: *mut Stat11) -> c_int;
    #[link_name = "fstatat@FBSD_1.1"]
    fn fstatat_fbsd11(fd: c_int, path: *const c_char, buf: *mut Stat11, flag: c_int) -> c_int;
    #[link_name = "readdir@FBSD_1.0"]
    fn readdir_fbsd11(dir: *mut c_void) -> *mut Dirent11;
    fn pthread_set_name_np(thread: libc::pthread_t, name: *const c_char);
}

/// Runs a FreeBSD 11 stat-like call and converts its result into `buf`.
///
/// # Safety
/// `buf` must be valid for writing a FreeBSD 12 `struct stat`.
unsafe fn converted(buf: *mut Stat12, call: impl FnOnce(*mut Stat11) -> c_int) -> c_int {
    let mut old = Stat11::default();
    let r = call(&raw mut old);
    if r == 0 {
        // SAFETY: the caller guarantees `buf` is writable.
        unsafe { buf.write(stat_11_to_12(&old)) };
    }
    r
}

/// `fstat` with the FreeBSD 12 `struct stat`.
///
/// # Safety
/// As C's `fstat`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fstat(fd: c_int, buf: *mut Stat12) -> c_int {
    // SAFETY: forwarded with a valid FreeBSD 11 buffer.
    unsafe { converted(buf, |b| fstat_fbsd11(fd, b)) }
}

/// `stat` with the FreeBSD 12 `struct stat`.
///
/// # Safety
/// As C's `stat`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stat(path: *const c_char, buf: *mut Stat12) -> c_int {
    // SAFETY: forwarded with a valid FreeBSD 11 buffer.
    unsafe { converted(buf, |b| stat_fbsd11(path, b)) }
}

/// `lstat` with the FreeBSD 12 `struct stat`.
///
/// # Safety
/// As C's `lstat`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lstat(path: *const c_char, buf: *mut Stat12) -> c_int {
    // SAFETY: forwarded with a valid FreeBSD 11 buffer.
    unsafe { converted(buf, |b| lstat_fbsd11(path, b)) }
}

/// `fstatat` with the FreeBSD 12 `struct stat`.
///
/// # Safety
/// As C's `fstatat`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fstatat(
    fd: c_int,
    path: *const c_char,
    buf: *mut Stat12,
    flag: c_int,
) -> c_int {
    // SAFETY: forwarded with a valid FreeBSD 11 buffer.
    unsafe { converted(buf, |b| fstatat_fbsd11(fd, path, b, flag)) }
}

std::thread_local! {
    static DIRENT: UnsafeCell<Dirent12> = UnsafeCell::new(Dirent12::default());
}

/// `readdir` returning the FreeBSD 12 `struct dirent`. The entry lives in a
/// per-thread buffer until this thread's next `readdir` (POSIX allows less).
///
/// # Safety
/// As C's `readdir`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn readdir(dir: *mut c_void) -> *mut Dirent12 {
    // SAFETY: `dir` is the caller's open directory stream.
    let old = unsafe { readdir_fbsd11(dir) };
    if old.is_null() {
        return core::ptr::null_mut();
    }
    DIRENT.with(|cell| {
        // SAFETY: `old` points to the entry the console's readdir returned;
        // the cell is this thread's and no reference to it is alive.
        unsafe { dirent_11_to_12(&*old, &mut *cell.get()) };
        cell.get()
    })
}

/// `pthread_setname_np` (FreeBSD 12.2) on top of FreeBSD 11's
/// `pthread_set_name_np`.
///
/// # Safety
/// As C's `pthread_setname_np`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pthread_setname_np(thread: libc::pthread_t, name: *const c_char) -> c_int {
    // SAFETY: same arguments, same contract.
    unsafe { pthread_set_name_np(thread, name) };
    0
}

/// `CTL_KERN`, `KERN_ARND`: the kernel's random bytes (FreeBSD sysctl).
const KERN_ARND: [c_int; 2] = [1, 37];
/// The most bytes one `KERN_ARND` read returns.
const ARND_CHUNK: usize = 256;

/// `arc4random_buf` (the standard library seeds its hash maps with it),
/// read from the kernel's `kern.arandom` with `sysctl`, as FreeBSD 11's C
/// library does, so it needs no C-library export of its own. The call
/// cannot fail in a way the caller could report: on an error it aborts.
///
/// # Safety
/// `buf` must be valid for writing `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arc4random_buf(buf: *mut c_void, n: usize) {
    let mut done = 0;
    while done < n {
        let mut len = (n - done).min(ARND_CHUNK);
        // SAFETY: the MIB is two ints; `buf + done` has `len` writable bytes.
        let r = unsafe {
            libc::sysctl(
                KERN_ARND.as_ptr(),
                2,
                buf.cast::<u8>().add(done).cast(),
                &raw mut len,
                core::ptr::null(),
                0,
            )
        };
        if r != 0 || len == 0 {
            super::rt::klog("cellport: sysctl(kern.arandom) failed");
            std::process::abort();
        }
        done += len;
    }
}

/// `TIMER_ABSTIME` (FreeBSD).
const TIMER_ABSTIME: c_int = 1;

/// `clock_nanosleep` (the standard library's `thread::sleep` on FreeBSD;
/// FreeBSD 11.0 lacks it) on top of `nanosleep` and `clock_gettime`. Returns
/// an error number, as POSIX says, not -1.
///
/// # Safety
/// As C's `clock_nanosleep`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clock_nanosleep(
    clock: libc::clockid_t,
    flags: c_int,
    request: *const libc::timespec,
    remain: *mut libc::timespec,
) -> c_int {
    // SAFETY: libc's errno location for this thread.
    let errno = || unsafe { *libc::__error() };
    if flags & TIMER_ABSTIME == 0 {
        // SAFETY: the caller's request and remainder.
        return if unsafe { libc::nanosleep(request, remain) } == 0 {
            0
        } else {
            errno()
        };
    }
    loop {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock id from the caller and a local timespec.
        if unsafe { libc::clock_gettime(clock, &raw mut now) } != 0 {
            return errno();
        }
        // SAFETY: the caller's request.
        let target = unsafe { *request };
        let left = crate::fbsd11::timespec_until(
            (now.tv_sec, now.tv_nsec),
            (target.tv_sec, target.tv_nsec),
        );
        let Some((sec, nsec)) = left else {
            return 0;
        };
        let delta = libc::timespec {
            tv_sec: sec,
            tv_nsec: nsec,
        };
        // SAFETY: a local timespec, no remainder wanted.
        if unsafe { libc::nanosleep(&raw const delta, core::ptr::null_mut()) } != 0 {
            return errno();
        }
    }
}

/// `dirfd`: the descriptor of an open directory stream. FreeBSD's `DIR`
/// (`struct _dirdesc`, the same in FreeBSD 11 and 12) starts with it
/// (`int dd_fd`); defined here rather than imported, so the payload does
/// not depend on the console's C library exporting it.
///
/// # Safety
/// `dir` must be a stream `opendir`/`fdopendir` returned and not yet closed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dirfd(dir: *mut c_void) -> c_int {
    // SAFETY: the caller's open stream; its first member is the descriptor.
    unsafe { *dir.cast::<c_int>() }
}
