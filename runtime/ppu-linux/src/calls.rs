//! The system calls.

use std::ffi::CString;

use guest_mem::{Access, GuestMemory, PAGE_SIZE, Prot};
use ppu_cpu::PpuContext;
use recomp_rt::{Outcome, Process};

use crate::abi::{self, AT_FDCWD, map};
use crate::sysno;
use crate::{Linux, MMAP_BASE, MMAP_END};

/// A call's result.
enum R {
    Ok(u64),
    Err(i32),
    Out(Outcome),
}

type Res = Result<u64, i32>;

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// A host call's `-1`/errno convention to ours.
fn host(r: i64) -> Res {
    if r < 0 { Err(errno()) } else { Ok(r as u64) }
}

fn page_up(x: u64) -> u64 {
    x.next_multiple_of(u64::from(PAGE_SIZE))
}

/// Guest bytes `addr..addr+len`, checked readable.
fn slice(mem: &GuestMemory, addr: u64, len: u64) -> Result<&[u8], i32> {
    if len == 0 {
        return Ok(&[]);
    }
    if addr >> 32 != 0 || len > u64::from(u32::MAX) {
        return Err(libc::EFAULT);
    }
    mem.check(addr as u32, len as u32, Access::Read)
        .map_err(|_| libc::EFAULT)?;
    // SAFETY: the page table says the range is mapped and readable, and
    // host pages of readable guest pages are readable; the guest thread is
    // stopped in this call.
    Ok(unsafe { std::slice::from_raw_parts(mem.base_ptr().add(addr as usize), len as usize) })
}

/// Guest bytes `addr..addr+len`, checked writable.
#[allow(clippy::mut_from_ref)]
fn slice_mut(mem: &GuestMemory, addr: u64, len: u64) -> Result<&mut [u8], i32> {
    if len == 0 {
        return Ok(&mut []);
    }
    if addr >> 32 != 0 || len > u64::from(u32::MAX) {
        return Err(libc::EFAULT);
    }
    mem.check(addr as u32, len as u32, Access::Write)
        .map_err(|_| libc::EFAULT)?;
    // SAFETY: as for `slice`, and writable guest pages are host-writable.
    Ok(unsafe { std::slice::from_raw_parts_mut(mem.base_ptr().add(addr as usize), len as usize) })
}

fn put(mem: &GuestMemory, addr: u64, bytes: &[u8]) -> Result<(), i32> {
    if addr >> 32 != 0 {
        return Err(libc::EFAULT);
    }
    mem.write_bytes(addr as u32, bytes)
        .map_err(|_| libc::EFAULT)
}

fn path(mem: &GuestMemory, addr: u64) -> Result<CString, i32> {
    if addr >> 32 != 0 {
        return Err(libc::EFAULT);
    }
    let b = mem.read_cstr(addr as u32, 4096).map_err(|_| libc::EFAULT)?;
    CString::new(b).map_err(|_| libc::EINVAL)
}

/// The bytes a readable guest range holds, clamped to where it stays mapped
/// (a read into a buffer larger than what follows it fills what there is).
fn writable_extent(mem: &GuestMemory, addr: u64, len: u64) -> u64 {
    let mut n = 0u64;
    while n < len {
        let a = addr + n;
        if a >> 32 != 0 || !mem.prot_at(a as u32).contains(Prot::WRITE) {
            break;
        }
        n += u64::from(PAGE_SIZE) - (a % u64::from(PAGE_SIZE));
    }
    n.min(len)
}

fn dirfd(v: u64) -> i32 {
    if v as i64 == AT_FDCWD {
        libc::AT_FDCWD
    } else {
        v as i32
    }
}

pub(crate) fn dispatch(lx: &Linux, p: &Process, ctx: &mut PpuContext, pc: u32) -> Outcome {
    let nr = ctx.gpr[0];
    let a = [
        ctx.gpr[3], ctx.gpr[4], ctx.gpr[5], ctx.gpr[6], ctx.gpr[7], ctx.gpr[8],
    ];
    let r = call(lx, p, nr, a, pc);
    log::trace!("syscall {nr} ({}) {a:x?} at {pc:#x}", sysno::name(nr));
    match r {
        R::Ok(v) => {
            ctx.gpr[3] = v;
            ctx.cr[3] = 0;
            Outcome::Continue
        }
        R::Err(e) => {
            ctx.gpr[3] = e as u64;
            ctx.cr[3] = 1;
            Outcome::Continue
        }
        R::Out(o) => o,
    }
}

fn unsupported(nr: u64, pc: u32, detail: &str) -> R {
    R::Out(Outcome::Fatal(format!(
        "unsupported Linux system call {nr} ({}){detail} at guest pc {pc:#010x}",
        sysno::name(nr)
    )))
}

fn res(r: Res) -> R {
    match r {
        Ok(v) => R::Ok(v),
        Err(e) => R::Err(e),
    }
}

fn call(lx: &Linux, p: &Process, nr: u64, a: [u64; 6], pc: u32) -> R {
    let mem = p.mem;
    let fd = a[0] as i32;
    match nr {
        // ------------------------------------------------------------ process
        1 | 234 => R::Out(Outcome::Exit(a[0] as i32)),
        20 => R::Ok(u64::from(
            lx.state.lock().unwrap_or_else(|e| e.into_inner()).pid,
        )),
        // SAFETY: the id getters have no preconditions.
        24 => R::Ok(unsafe { libc::getuid() }.into()),
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        47 => R::Ok(unsafe { libc::getgid() }.into()),
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        49 => R::Ok(unsafe { libc::geteuid() }.into()),
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        50 => R::Ok(unsafe { libc::getegid() }.into()),
        // SAFETY: getppid has no preconditions.
        64 => R::Ok(unsafe { libc::getppid() } as u64),
        207 | 232 => R::Ok(u64::from(
            lx.state.lock().unwrap_or_else(|e| e.into_inner()).pid,
        )),
        // set_robust_list, rseq: not provided (glibc goes on without them, as under qemu).
        300 | 387 => R::Err(libc::ENOSYS),
        158 => R::Ok(0), // sched_yield
        37 | 208 | 250 => {
            // kill(pid, sig), tkill(tid, sig), tgkill(tgid, tid, sig): to ourselves only.
            let sig = if nr == 250 { a[2] } else { a[1] } as i32;
            let me = u64::from(lx.state.lock().unwrap_or_else(|e| e.into_inner()).pid);
            if a[0] != me && !(nr == 37 && a[0] == 0) {
                return unsupported(nr, pc, &format!(" to another process ({})", a[0]));
            }
            if sig == 0 {
                return R::Ok(0);
            }
            let st = lx.state.lock().unwrap_or_else(|e| e.into_inner());
            let handler = st
                .sigactions
                .get(sig as usize)
                .map(|s| u64::from_be_bytes(s[..8].try_into().unwrap()));
            match handler {
                Some(0) | None => R::Out(Outcome::Signal(sig)),
                Some(1) => R::Ok(0), // SIG_IGN
                Some(_) => unsupported(
                    nr,
                    pc,
                    &format!(" delivering signal {sig} to a guest handler"),
                ),
            }
        }
        173 => {
            // rt_sigaction(sig, act, oldact, sigsetsize)
            let sig = a[0] as usize;
            if sig == 0 || sig > 64 {
                return R::Err(libc::EINVAL);
            }
            let mut st = lx.state.lock().unwrap_or_else(|e| e.into_inner());
            if a[2] != 0
                && let Err(e) = put(mem, a[2], &st.sigactions[sig])
            {
                return R::Err(e);
            }
            if a[1] != 0 {
                match slice(mem, a[1], 32) {
                    Ok(b) => st.sigactions[sig].copy_from_slice(b),
                    Err(e) => return R::Err(e),
                }
            }
            R::Ok(0)
        }
        174 => {
            // rt_sigprocmask(how, set, oldset, sigsetsize)
            let mut st = lx.state.lock().unwrap_or_else(|e| e.into_inner());
            if a[2] != 0
                && let Err(e) = put(mem, a[2], &st.sigmask.to_be_bytes())
            {
                return R::Err(e);
            }
            if a[1] != 0 {
                let set = match slice(mem, a[1], 8) {
                    Ok(b) => u64::from_be_bytes(b.try_into().unwrap()),
                    Err(e) => return R::Err(e),
                };
                st.sigmask = match a[0] {
                    0 => st.sigmask | set,
                    1 => st.sigmask & !set,
                    2 => set,
                    _ => return R::Err(libc::EINVAL),
                };
            }
            R::Ok(0)
        }
        185 => R::Ok(0), // sigaltstack: accepted (no signal is ever delivered to a handler)
        76 | 190 | 325 => {
            // getrlimit(res, rlim) / ugetrlimit / prlimit64(pid, res, new, old)
            let (resource, new, old) = if nr == 325 {
                (a[1], a[2], a[3])
            } else {
                (a[0], 0, a[1])
            };
            if nr == 325 && a[0] != 0 {
                return unsupported(nr, pc, " for another process");
            }
            let _ = new; // setting limits is accepted and ignored
            if old != 0 {
                let mut rl = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                // SAFETY: getrlimit writes the struct we pass.
                if unsafe { libc::getrlimit(resource as _, &mut rl) } != 0 {
                    return R::Err(errno());
                }
                if resource == libc::RLIMIT_STACK as u64 {
                    rl.rlim_cur = u64::from(crate::STACK_SIZE);
                }
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&rl.rlim_cur.to_be_bytes());
                b[8..].copy_from_slice(&rl.rlim_max.to_be_bytes());
                if let Err(e) = put(mem, old, &b) {
                    return R::Err(e);
                }
            }
            R::Ok(0)
        }
        75 => R::Ok(0), // setrlimit: accepted, ignored
        60 => R::Ok(unsafe_umask(a[0])),
        171 => R::Err(libc::EINVAL), // prctl: no options supported
        221 => {
            // futex: one thread, so WAKE wakes no one and WAIT on a changed value returns.
            let op = a[1] & 0x7F;
            match op {
                1 => R::Ok(0),
                0 | 9 => match mem.try_read_u32(a[0] as u32) {
                    Ok(v) if u64::from(v) != a[2] & 0xFFFF_FFFF => R::Err(libc::EAGAIN),
                    Ok(_) => unsupported(nr, pc, " (FUTEX_WAIT would block the only thread)"),
                    Err(_) => R::Err(libc::EFAULT),
                },
                _ => unsupported(nr, pc, &format!(" (op {op})")),
            }
        }
        // ------------------------------------------------------------ memory
        45 => R::Ok(brk(lx, mem, a[0])),
        90 => res(mmap(mem, a)),
        91 => res(munmap(mem, a[0], a[1])),
        125 => {
            if !a[0].is_multiple_of(u64::from(PAGE_SIZE)) {
                return R::Err(libc::EINVAL);
            }
            if a[1] == 0 {
                return R::Ok(0);
            }
            match mem.protect(a[0] as u32, page_up(a[1]), abi::prot(a[2])) {
                Ok(()) => R::Ok(0),
                Err(_) => R::Err(libc::ENOMEM),
            }
        }
        163 => res(mremap(mem, a)),
        205 | 150 | 151 | 152 | 153 => R::Ok(0), // madvise, mlock*: hints
        // ------------------------------------------------------------ files
        3 => res(read(mem, fd, a[1], a[2])),
        4 => res(slice(mem, a[1], a[2])
            // SAFETY: writing a checked guest range that stays valid for the call.
            .and_then(|b| host(unsafe { libc::write(fd, b.as_ptr().cast(), b.len()) } as i64))),
        145 | 146 => res(rw_vec(mem, fd, a[1], a[2], nr == 145)),
        179 => res(pread(mem, fd, a[1], a[2], a[3] as i64)),
        180 => res(slice(mem, a[1], a[2])
            // SAFETY: as for write.
            .and_then(|b| {
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                host(unsafe { libc::pwrite(fd, b.as_ptr().cast(), b.len(), a[3] as i64) } as i64)
            })),
        5 | 286 => {
            let (d, pa, fl, mode) = if nr == 5 {
                (AT_FDCWD as u64, a[0], a[1], a[2])
            } else {
                (a[0], a[1], a[2], a[3])
            };
            let flags = match abi::open_flags_to_host(fl) {
                Ok(f) => f,
                Err(bits) => return unsupported(nr, pc, &format!(" with open flags {bits:#o}")),
            };
            res(path(mem, pa)
                // SAFETY: a NUL-terminated path.
                .and_then(|p| {
                    host(
                        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                        unsafe { libc::openat(dirfd(d), p.as_ptr(), flags, mode as libc::c_uint) }
                            .into(),
                    )
                }))
        }
        // SAFETY: closing a descriptor the guest names (the guest owns its descriptors).
        6 => res(host(unsafe { libc::close(fd) }.into())),
        // SAFETY: dup/dup2/dup3 on guest-named descriptors.
        41 => res(host(unsafe { libc::dup(fd) }.into())),
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        63 => res(host(unsafe { libc::dup2(fd, a[1] as i32) }.into())),
        316 => res(host(
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            unsafe { libc::dup3(fd, a[1] as i32, a[2] as i32 & libc::O_CLOEXEC) }.into(),
        )),
        // SAFETY: lseek on a guest-named descriptor.
        19 => res(host(unsafe { libc::lseek(fd, a[1] as i64, a[2] as i32) })),
        140 => {
            // _llseek(fd, offset_high, offset_low, loff_t *result, whence): what
            // glibc's lseek uses on ppc64 too.
            let off = ((a[1] & 0xFFFF_FFFF) << 32 | (a[2] & 0xFFFF_FFFF)) as i64;
            // SAFETY: lseek on a guest-named descriptor.
            match host(unsafe { libc::lseek(fd, off, a[4] as i32) }) {
                Ok(pos) => res(put(mem, a[3], &pos.to_be_bytes()).map(|()| 0)),
                Err(e) => R::Err(e),
            }
        }
        55 => fcntl(fd, a, nr, pc),
        54 => ioctl(mem, fd, a, nr, pc),
        106 | 107 | 108 | 291 => {
            let (d, pa, buf, flags) = match nr {
                106 => (AT_FDCWD as u64, Some(a[0]), a[1], 0),
                107 => (AT_FDCWD as u64, Some(a[0]), a[1], libc::AT_SYMLINK_NOFOLLOW),
                108 => (a[0], None, a[1], libc::AT_EMPTY_PATH),
                _ => (a[0], Some(a[1]), a[2], a[3] as i32),
            };
            let p = match pa.map(|x| path(mem, x)).transpose() {
                Ok(p) => p.unwrap_or_default(),
                Err(e) => return R::Err(e),
            };
            // SAFETY: fstatat fills the zeroed struct we pass.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: a NUL-terminated path (possibly empty with AT_EMPTY_PATH).
            let r = unsafe { libc::fstatat(dirfd(d), p.as_ptr(), &mut st, flags) };
            if r != 0 {
                return R::Err(errno());
            }
            res(put(mem, buf, &abi::stat_to_guest(&st)).map(|()| 0))
        }
        383 => R::Err(libc::ENOSYS), // statx: absent, glibc falls back to newfstatat
        33 | 298 | 439 => {
            let (d, pa, mode, flags) = if nr == 33 {
                (AT_FDCWD as u64, a[0], a[1], 0)
            } else {
                (a[0], a[1], a[2], a[3])
            };
            let flags = if nr == 298 { 0 } else { flags as i32 };
            // SAFETY: a NUL-terminated path.
            res(path(mem, pa).and_then(|p| {
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                host(unsafe { libc::faccessat(dirfd(d), p.as_ptr(), mode as i32, flags) }.into())
            }))
        }
        // SAFETY: a NUL-terminated path read from guest memory.
        10 => res(path(mem, a[0]).and_then(|p| host(unsafe { libc::unlink(p.as_ptr()) }.into()))),
        292 => res(path(mem, a[1]).and_then(|p| {
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            host(unsafe { libc::unlinkat(dirfd(a[0]), p.as_ptr(), a[2] as i32) }.into())
        })),
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        40 => res(path(mem, a[0]).and_then(|p| host(unsafe { libc::rmdir(p.as_ptr()) }.into()))),
        39 => res(path(mem, a[0])
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            .and_then(|p| host(unsafe { libc::mkdir(p.as_ptr(), a[1] as u32) }.into()))),
        287 => res(path(mem, a[1]).and_then(|p| {
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            host(unsafe { libc::mkdirat(dirfd(a[0]), p.as_ptr(), a[2] as u32) }.into())
        })),
        38 => res(path(mem, a[0]).and_then(|f| {
            path(mem, a[1])
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                .and_then(|t| host(unsafe { libc::rename(f.as_ptr(), t.as_ptr()) }.into()))
        })),
        293 => res(path(mem, a[1]).and_then(|f| {
            path(mem, a[3]).and_then(|t| {
                host(
                    // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                    unsafe { libc::renameat(dirfd(a[0]), f.as_ptr(), dirfd(a[2]), t.as_ptr()) }
                        .into(),
                )
            })
        })),
        15 => res(path(mem, a[0])
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            .and_then(|p| host(unsafe { libc::chmod(p.as_ptr(), a[1] as u32) }.into()))),
        297 => res(path(mem, a[1]).and_then(|p| {
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            host(unsafe { libc::fchmodat(dirfd(a[0]), p.as_ptr(), a[2] as u32, 0) }.into())
        })),
        // SAFETY: fchmod/fchown/fsync/ftruncate on guest-named descriptors.
        94 => res(host(unsafe { libc::fchmod(fd, a[1] as u32) }.into())),
        95 => res(host(
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            unsafe { libc::fchown(fd, a[1] as u32, a[2] as u32) }.into(),
        )),
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        118 | 148 => res(host(unsafe { libc::fsync(fd) }.into())),
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        93 => res(host(unsafe { libc::ftruncate(fd, a[1] as i64) }.into())),
        181 | 16 => res(path(mem, a[0]).and_then(|p| {
            let f = if nr == 16 { libc::lchown } else { libc::chown };
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            host(unsafe { f(p.as_ptr(), a[1] as u32, a[2] as u32) }.into())
        })),
        289 => res(path(mem, a[1]).and_then(|p| {
            host(
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                unsafe {
                    libc::fchownat(
                        dirfd(a[0]),
                        p.as_ptr(),
                        a[2] as u32,
                        a[3] as u32,
                        a[4] as i32,
                    )
                }
                .into(),
            )
        })),
        30 => {
            // utime(path, times): struct utimbuf { actime, modtime } (two longs).
            let times = if a[1] == 0 {
                None
            } else {
                match slice(mem, a[1], 16) {
                    Ok(b) => Some([
                        i64::from_be_bytes(b[..8].try_into().unwrap()),
                        i64::from_be_bytes(b[8..].try_into().unwrap()),
                    ]),
                    Err(e) => return R::Err(e),
                }
            };
            res(path(mem, a[0]).and_then(|p| {
                let ts = times.map(|t| {
                    [
                        libc::timespec {
                            tv_sec: t[0],
                            tv_nsec: 0,
                        },
                        libc::timespec {
                            tv_sec: t[1],
                            tv_nsec: 0,
                        },
                    ]
                });
                let tp = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                host(unsafe { libc::utimensat(libc::AT_FDCWD, p.as_ptr(), tp, 0) }.into())
            }))
        }
        304 => {
            // utimensat(dirfd, path, times[2], flags)
            let ts = if a[2] == 0 {
                None
            } else {
                match slice(mem, a[2], 32) {
                    Ok(b) => {
                        let w = |k: usize| i64::from_be_bytes(b[k..k + 8].try_into().unwrap());
                        Some([
                            libc::timespec {
                                tv_sec: w(0),
                                tv_nsec: w(8),
                            },
                            libc::timespec {
                                tv_sec: w(16),
                                tv_nsec: w(24),
                            },
                        ])
                    }
                    Err(e) => return R::Err(e),
                }
            };
            let tp = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
            if a[1] == 0 {
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                return res(host(unsafe { libc::futimens(fd, tp) }.into()));
            }
            res(path(mem, a[1]).and_then(|p| {
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                host(unsafe { libc::utimensat(dirfd(a[0]), p.as_ptr(), tp, a[3] as i32) }.into())
            }))
        }
        85 | 296 => {
            let (d, pa, buf, n) = if nr == 85 {
                (AT_FDCWD as u64, a[0], a[1], a[2])
            } else {
                (a[0], a[1], a[2], a[3])
            };
            let p = match path(mem, pa) {
                Ok(p) => p,
                Err(e) => return R::Err(e),
            };
            let mut out = vec![0u8; n.min(4096) as usize];
            // SAFETY: readlinkat writes at most out.len() bytes.
            let r = unsafe {
                libc::readlinkat(dirfd(d), p.as_ptr(), out.as_mut_ptr().cast(), out.len())
            };
            if r < 0 {
                return R::Err(errno());
            }
            res(put(mem, buf, &out[..r as usize]).map(|()| r as u64))
        }
        183 => {
            // getcwd(buf, size): returns the length including the NUL.
            let cwd = match std::env::current_dir() {
                Ok(c) => c,
                Err(e) => return R::Err(e.raw_os_error().unwrap_or(libc::EIO)),
            };
            let mut b = std::os::unix::ffi::OsStrExt::as_bytes(cwd.as_os_str()).to_vec();
            b.push(0);
            if b.len() as u64 > a[1] {
                return R::Err(libc::ERANGE);
            }
            res(put(mem, a[0], &b).map(|()| b.len() as u64))
        }
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        12 => res(path(mem, a[0]).and_then(|p| host(unsafe { libc::chdir(p.as_ptr()) }.into()))),
        42 | 317 => {
            let mut fds = [0i32; 2];
            let flags = if nr == 317 {
                abi::open_flags_to_host(a[1]).unwrap_or(0)
            } else {
                0
            };
            // SAFETY: pipe2 writes two descriptors.
            if unsafe { libc::pipe2(fds.as_mut_ptr(), flags) } != 0 {
                return R::Err(errno());
            }
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&fds[0].to_be_bytes());
            b[4..].copy_from_slice(&fds[1].to_be_bytes());
            res(put(mem, a[0], &b).map(|()| 0))
        }
        202 => res(getdents64(mem, fd, a[1], a[2])),
        36 => R::Ok(0), // sync
        // ------------------------------------------------------------ time
        13 => {
            // SAFETY: time(NULL) has no preconditions.
            let t = unsafe { libc::time(std::ptr::null_mut()) };
            if a[0] != 0
                && let Err(e) = put(mem, a[0], &t.to_be_bytes())
            {
                return R::Err(e);
            }
            R::Ok(t as u64)
        }
        78 => {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: clock_gettime writes the struct.
            unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
            if a[0] != 0
                && let Err(e) = put(mem, a[0], &abi::timespec(ts.tv_sec, ts.tv_nsec / 1000))
            {
                return R::Err(e);
            }
            if a[1] != 0
                && let Err(e) = put(mem, a[1], &[0u8; 8])
            {
                return R::Err(e);
            }
            R::Ok(0)
        }
        246 | 247 => {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: clock_gettime/getres write the struct.
            let r = unsafe {
                if nr == 246 {
                    libc::clock_gettime(a[0] as i32, &mut ts)
                } else {
                    libc::clock_getres(a[0] as i32, &mut ts)
                }
            };
            if r != 0 {
                return R::Err(errno());
            }
            if a[1] == 0 {
                return R::Ok(0);
            }
            res(put(mem, a[1], &abi::timespec(ts.tv_sec, ts.tv_nsec)).map(|()| 0))
        }
        162 | 248 => {
            let req = if nr == 162 { a[0] } else { a[2] };
            let t = match slice(mem, req, 16) {
                Ok(b) => libc::timespec {
                    tv_sec: i64::from_be_bytes(b[..8].try_into().unwrap()),
                    tv_nsec: i64::from_be_bytes(b[8..].try_into().unwrap()),
                },
                Err(e) => return R::Err(e),
            };
            // SAFETY: nanosleep reads the struct.
            res(host(
                // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
                unsafe { libc::nanosleep(&t, std::ptr::null_mut()) }.into(),
            ))
        }
        43 => {
            // times(buf): struct tms is four longs.
            // SAFETY: times fills the struct.
            let mut t: libc::tms = unsafe { std::mem::zeroed() };
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            let r = unsafe { libc::times(&mut t) };
            if a[0] != 0 {
                let mut b = [0u8; 32];
                for (k, v) in [t.tms_utime, t.tms_stime, t.tms_cutime, t.tms_cstime]
                    .into_iter()
                    .enumerate()
                {
                    b[8 * k..8 * k + 8].copy_from_slice(&(v as u64).to_be_bytes());
                }
                if let Err(e) = put(mem, a[0], &b) {
                    return R::Err(e);
                }
            }
            R::Ok(r as u64)
        }
        77 => {
            // getrusage(who, usage): 144 bytes; times only, the rest zero.
            // SAFETY: getrusage fills the struct.
            let mut u: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            if unsafe { libc::getrusage(a[0] as i32, &mut u) } != 0 {
                return R::Err(errno());
            }
            let mut b = [0u8; 144];
            for (k, v) in [
                u.ru_utime.tv_sec,
                u.ru_utime.tv_usec,
                u.ru_stime.tv_sec,
                u.ru_stime.tv_usec,
            ]
            .into_iter()
            .enumerate()
            {
                b[8 * k..8 * k + 8].copy_from_slice(&(v as u64).to_be_bytes());
            }
            res(put(mem, a[1], &b).map(|()| 0))
        }
        // ------------------------------------------------------------ system
        122 => {
            // SAFETY: uname fills the struct.
            let mut u: libc::utsname = unsafe { std::mem::zeroed() };
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            unsafe { libc::uname(&mut u) };
            let mut b = [0u8; 390];
            let field = |b: &mut [u8; 390], k: usize, s: &[u8]| {
                let n = s.len().min(64);
                b[65 * k..65 * k + n].copy_from_slice(&s[..n]);
            };
            let cs = |f: &[libc::c_char]| {
                f.iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| c as u8)
                    .collect::<Vec<u8>>()
            };
            field(&mut b, 0, b"Linux");
            field(&mut b, 1, &cs(&u.nodename));
            field(&mut b, 2, &cs(&u.release));
            field(&mut b, 3, &cs(&u.version));
            field(&mut b, 4, b"ppc64");
            field(&mut b, 5, &cs(&u.domainname));
            res(put(mem, a[0], &b).map(|()| 0))
        }
        116 => {
            // sysinfo: struct sysinfo (ppc64: 112 bytes).
            // SAFETY: sysinfo fills the struct.
            let mut s: libc::sysinfo = unsafe { std::mem::zeroed() };
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            if unsafe { libc::sysinfo(&mut s) } != 0 {
                return R::Err(errno());
            }
            let mut b = [0u8; 112];
            let w = |b: &mut [u8; 112], off: usize, v: u64| {
                b[off..off + 8].copy_from_slice(&v.to_be_bytes())
            };
            w(&mut b, 0, s.uptime as u64);
            for k in 0..3 {
                w(&mut b, 8 + 8 * k, s.loads[k]);
            }
            w(&mut b, 32, s.totalram);
            w(&mut b, 40, s.freeram);
            w(&mut b, 48, s.sharedram);
            w(&mut b, 56, s.bufferram);
            w(&mut b, 64, s.totalswap);
            w(&mut b, 72, s.freeswap);
            b[80..82].copy_from_slice(&s.procs.to_be_bytes());
            w(&mut b, 88, s.totalhigh);
            w(&mut b, 96, s.freehigh);
            b[104..108].copy_from_slice(&s.mem_unit.to_be_bytes());
            res(put(mem, a[0], &b).map(|()| 0))
        }
        359 => {
            // getrandom(buf, len, flags)
            let n = a[1].min(1 << 20);
            let mut v = vec![0u8; n as usize];
            // SAFETY: getrandom writes at most v.len() bytes.
            let r = unsafe { libc::getrandom(v.as_mut_ptr().cast(), v.len(), a[2] as u32) };
            if r < 0 {
                return R::Err(errno());
            }
            res(put(mem, a[0], &v[..r as usize]).map(|()| r as u64))
        }
        _ => unsupported(nr, pc, ""),
    }
}

fn unsafe_umask(m: u64) -> u64 {
    // SAFETY: umask has no preconditions.
    u64::from(unsafe { libc::umask(m as libc::mode_t) })
}

fn read(mem: &GuestMemory, fd: i32, buf: u64, len: u64) -> Res {
    let n = writable_extent(mem, buf, len.min(1 << 30));
    if n == 0 && len != 0 {
        return Err(libc::EFAULT);
    }
    let b = slice_mut(mem, buf, n)?;
    // SAFETY: reading into a checked, writable guest range.
    host(unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) } as i64)
}

fn pread(mem: &GuestMemory, fd: i32, buf: u64, len: u64, off: i64) -> Res {
    let n = writable_extent(mem, buf, len.min(1 << 30));
    let b = slice_mut(mem, buf, n)?;
    // SAFETY: as for read.
    host(unsafe { libc::pread(fd, b.as_mut_ptr().cast(), b.len(), off) } as i64)
}

fn rw_vec(mem: &GuestMemory, fd: i32, iov: u64, count: u64, reading: bool) -> Res {
    if count > 1024 {
        return Err(libc::EINVAL);
    }
    let raw = slice(mem, iov, 16 * count)?;
    let mut host_iov = Vec::with_capacity(count as usize);
    for k in 0..count as usize {
        let base = u64::from_be_bytes(raw[16 * k..16 * k + 8].try_into().unwrap());
        let len = u64::from_be_bytes(raw[16 * k + 8..16 * k + 16].try_into().unwrap());
        let s = if reading {
            slice_mut(mem, base, len)?.as_mut_ptr()
        } else {
            slice(mem, base, len)?.as_ptr().cast_mut()
        };
        host_iov.push(libc::iovec {
            iov_base: s.cast(),
            iov_len: len as usize,
        });
    }
    // SAFETY: every iovec points at a checked guest range.
    let r = unsafe {
        if reading {
            libc::readv(fd, host_iov.as_ptr(), host_iov.len() as i32)
        } else {
            libc::writev(fd, host_iov.as_ptr(), host_iov.len() as i32)
        }
    };
    host(r as i64)
}

fn fcntl(fd: i32, a: [u64; 6], nr: u64, pc: u32) -> R {
    let cmd = a[1] as i32;
    // SAFETY (every arm): fcntl on a guest-named descriptor with an integer argument.
    match cmd {
        libc::F_DUPFD | libc::F_DUPFD_CLOEXEC | libc::F_GETFD | libc::F_SETFD => {
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            res(host(unsafe { libc::fcntl(fd, cmd, a[2] as i32) }.into()))
        }
        // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
        libc::F_GETFL => res(host(unsafe { libc::fcntl(fd, cmd) }.into())
            .map(|f| abi::open_flags_to_guest(f as i32))),
        libc::F_SETFL => match abi::open_flags_to_host(a[2]) {
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            Ok(f) => res(host(unsafe { libc::fcntl(fd, cmd, f) }.into())),
            Err(_) => R::Err(libc::EINVAL),
        },
        _ => unsupported(nr, pc, &format!(" (fcntl command {cmd})")),
    }
}

fn ioctl(mem: &GuestMemory, fd: i32, a: [u64; 6], nr: u64, pc: u32) -> R {
    match a[1] {
        abi::TCGETS => {
            // SAFETY: tcgetattr fills the struct.
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            if unsafe { libc::tcgetattr(fd, &mut t) } != 0 {
                return R::Err(errno());
            }
            // The four flag words; control characters and speeds left zero
            // (their layout differs between ppc64 and the host).
            let mut b = [0u8; 44];
            for (k, v) in [t.c_iflag, t.c_oflag, t.c_cflag, t.c_lflag]
                .into_iter()
                .enumerate()
            {
                b[4 * k..4 * k + 4].copy_from_slice(&v.to_be_bytes());
            }
            res(put(mem, a[2], &b).map(|()| 0))
        }
        abi::TIOCGWINSZ => {
            // SAFETY: TIOCGWINSZ fills a winsize.
            let mut w: libc::winsize = unsafe { std::mem::zeroed() };
            // SAFETY: a host call on a guest-named descriptor, a NUL-terminated path or a checked guest buffer; it touches only what its arguments name.
            if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut w) } != 0 {
                return R::Err(errno());
            }
            let mut b = [0u8; 8];
            for (k, v) in [w.ws_row, w.ws_col, w.ws_xpixel, w.ws_ypixel]
                .into_iter()
                .enumerate()
            {
                b[2 * k..2 * k + 2].copy_from_slice(&v.to_be_bytes());
            }
            res(put(mem, a[2], &b).map(|()| 0))
        }
        abi::FIONREAD => {
            let mut n: libc::c_int = 0;
            // SAFETY: FIONREAD writes an int.
            if unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) } != 0 {
                return R::Err(errno());
            }
            res(put(mem, a[2], &n.to_be_bytes()).map(|()| 0))
        }
        req => unsupported(nr, pc, &format!(" (ioctl request {req:#x} on fd {fd})")),
    }
}

fn getdents64(mem: &GuestMemory, fd: i32, buf: u64, len: u64) -> Res {
    let mut host_buf = vec![0u8; len.min(1 << 20) as usize];
    // SAFETY: the raw getdents64 call writes at most host_buf.len() bytes.
    let n = unsafe {
        libc::syscall(
            libc::SYS_getdents64,
            fd,
            host_buf.as_mut_ptr(),
            host_buf.len(),
        )
    };
    if n < 0 {
        return Err(errno());
    }
    // linux_dirent64 { u64 d_ino; i64 d_off; u16 d_reclen; u8 d_type; name }: swap the numbers.
    let mut k = 0usize;
    while k < n as usize {
        let reclen = u16::from_ne_bytes([host_buf[k + 16], host_buf[k + 17]]) as usize;
        let ino = u64::from_ne_bytes(host_buf[k..k + 8].try_into().unwrap());
        let off = u64::from_ne_bytes(host_buf[k + 8..k + 16].try_into().unwrap());
        host_buf[k..k + 8].copy_from_slice(&ino.to_be_bytes());
        host_buf[k + 8..k + 16].copy_from_slice(&off.to_be_bytes());
        host_buf[k + 16..k + 18].copy_from_slice(&(reclen as u16).to_be_bytes());
        k += reclen.max(1);
    }
    put(mem, buf, &host_buf[..n as usize])?;
    Ok(n as u64)
}

fn brk(lx: &Linux, mem: &GuestMemory, want: u64) -> u64 {
    let mut st = lx.state.lock().unwrap_or_else(|e| e.into_inner());
    if want < u64::from(st.brk_start) || want > u64::from(MMAP_BASE) {
        return u64::from(st.brk);
    }
    let want = want as u32;
    let need = page_up(u64::from(want)) as u32;
    if need > st.brk_mapped {
        if mem.find_free(
            u64::from(need - st.brk_mapped),
            PAGE_SIZE,
            st.brk_mapped,
            u64::from(need),
        ) != Some(st.brk_mapped)
        {
            return u64::from(st.brk);
        }
        if mem
            .map(st.brk_mapped, u64::from(need - st.brk_mapped), Prot::RW)
            .is_err()
        {
            return u64::from(st.brk);
        }
        st.brk_mapped = need;
    } else if need < st.brk_mapped && need >= page_up(u64::from(st.brk_start)) as u32 {
        let _ = mem.unmap(need, u64::from(st.brk_mapped - need));
        st.brk_mapped = need;
    }
    st.brk = want;
    u64::from(want)
}

fn mmap(mem: &GuestMemory, a: [u64; 6]) -> Res {
    let (addr, len, prot, flags, fd, off) = (a[0], a[1], a[2], a[3], a[4] as i32, a[5]);
    if len == 0 || len > 0xC000_0000 {
        return Err(libc::EINVAL);
    }
    let known = map::SHARED
        | map::PRIVATE
        | map::FIXED
        | map::ANONYMOUS
        | map::FIXED_NOREPLACE
        | map::HINTS;
    if flags & !known != 0 {
        return Err(libc::EINVAL);
    }
    let anon = flags & map::ANONYMOUS != 0;
    if flags & map::SHARED != 0 && !anon && prot & 2 != 0 {
        // A shared writable file mapping would need writes to reach the file.
        return Err(libc::ENODEV);
    }
    let size = page_up(len);
    let fixed = flags & (map::FIXED | map::FIXED_NOREPLACE) != 0;
    let at = if fixed {
        if !addr.is_multiple_of(u64::from(PAGE_SIZE))
            || addr + size > u64::from(MMAP_END)
            || addr < u64::from(PAGE_SIZE)
        {
            return Err(libc::EINVAL);
        }
        if flags & map::FIXED_NOREPLACE != 0
            && mem.find_free(size, PAGE_SIZE, addr as u32, addr + size) != Some(addr as u32)
        {
            return Err(libc::EEXIST);
        }
        addr as u32
    } else {
        mem.find_free(size, PAGE_SIZE, MMAP_BASE, u64::from(MMAP_END))
            .ok_or(libc::ENOMEM)?
    };
    if fixed {
        let _ = mem.unmap(at, size);
    }
    mem.map(at, size, Prot::RW).map_err(|_| libc::ENOMEM)?;
    if !anon {
        let data = slice_mut(mem, u64::from(at), len)?;
        let mut done = 0usize;
        while done < data.len() {
            // SAFETY: pread into a checked guest range.
            let r = unsafe {
                libc::pread(
                    fd,
                    data[done..].as_mut_ptr().cast(),
                    data.len() - done,
                    off as i64 + done as i64,
                )
            };
            if r < 0 {
                let e = errno();
                let _ = mem.unmap(at, size);
                return Err(e);
            }
            if r == 0 {
                break;
            }
            done += r as usize;
        }
    }
    mem.protect(at, size, abi::prot(prot))
        .map_err(|_| libc::ENOMEM)?;
    Ok(u64::from(at))
}

fn munmap(mem: &GuestMemory, addr: u64, len: u64) -> Res {
    if !addr.is_multiple_of(u64::from(PAGE_SIZE))
        || len == 0
        || addr + len > 1 << 32
        || addr < u64::from(PAGE_SIZE)
    {
        return Err(libc::EINVAL);
    }
    let size = page_up(len);
    // Unmapping pages that are not mapped is not an error.
    let _ = mem.unmap(addr as u32, size);
    Ok(0)
}

fn mremap(mem: &GuestMemory, a: [u64; 6]) -> Res {
    let (old, old_len, new_len, flags) = (a[0], a[1], a[2], a[3]);
    const MAYMOVE: u64 = 1;
    if old % u64::from(PAGE_SIZE) != 0 || new_len == 0 || flags & !MAYMOVE != 0 {
        return Err(libc::EINVAL);
    }
    let (olds, news) = (page_up(old_len), page_up(new_len));
    if news <= olds {
        if news < olds {
            munmap(mem, old + news, olds - news)?;
        }
        return Ok(old);
    }
    // Grow in place when the pages after it are free.
    if mem.find_free(news - olds, PAGE_SIZE, (old + olds) as u32, old + news)
        == Some((old + olds) as u32)
        && old + news <= u64::from(MMAP_END)
    {
        let prot = mem.prot_at(old as u32) & !Prot::MAPPED;
        mem.map((old + olds) as u32, news - olds, prot)
            .map_err(|_| libc::ENOMEM)?;
        return Ok(old);
    }
    if flags & MAYMOVE == 0 {
        return Err(libc::ENOMEM);
    }
    let prot = mem.prot_at(old as u32) & !Prot::MAPPED;
    let to = mem
        .find_free(news, PAGE_SIZE, MMAP_BASE, u64::from(MMAP_END))
        .ok_or(libc::ENOMEM)?;
    mem.map(to, news, Prot::RW).map_err(|_| libc::ENOMEM)?;
    let data = slice(mem, old, olds)?.to_vec();
    mem.host_write(to, &data).map_err(|_| libc::ENOMEM)?;
    let _ = mem.protect(to, news, prot);
    munmap(mem, old, olds)?;
    Ok(u64::from(to))
}
