//! Guest memory faults: what they say, how they travel, where the guest PC
//! comes from.
//!
//! A checked access that fails ([`crate::CheckMode::Checked`], and every
//! `try_*` accessor) produces a [`GuestFault`]. The `try_*` accessors return
//! it; the plain accessors (the ones lifted code calls) raise it as a panic
//! whose payload is the `GuestFault`, from a cold out-of-line function, so the
//! fast path carries no error plumbing. The thread that runs guest code
//! catches it with [`catch_fault`] and gets the `GuestFault` back.
//!
//! In trap mode ([`crate::CheckMode::Trap`]) the accessors do no page check;
//! a fault in the reservation reaches the `SIGSEGV` handler, which writes the
//! same report (guest address, access, guest PC, host PC) to stderr and ends
//! the process with [`TRAP_EXIT_CODE`]: a fault cannot be resumed there.
//!
//! The guest PC is read from the slot a thread registers with
//! [`set_pc_slot`] (the interpreter and lifted code keep their current
//! instruction address there).

use std::cell::Cell;
use std::fmt;

/// The exit status of a process ended by a guest fault in trap mode.
pub const TRAP_EXIT_CODE: i32 = 0x4D; // 'M'

/// What the faulting access was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// A data load.
    Read,
    /// A data store (including `dcbz` and store-conditional).
    Write,
    /// An instruction fetch.
    Fetch,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Fetch => "instruction fetch",
        })
    }
}

/// Why the access faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// Nothing is mapped there (page 0 never is).
    Unmapped,
    /// The page is mapped but not writable.
    ReadOnly,
    /// The access crosses the end of the 4 GiB address space.
    Wraps,
    /// A reservation access (`lwarx`, `stwcx.`, ...) that is not naturally
    /// aligned; the hardware raises an alignment interrupt.
    Unaligned,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FaultKind::Unmapped => "unmapped",
            FaultKind::ReadOnly => "read-only page",
            FaultKind::Wraps => "crosses the end of the address space",
            FaultKind::Unaligned => "unaligned reservation access",
        })
    }
}

/// A guest memory access that the guest's address space does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GuestFault {
    /// The guest effective address of the access (its first byte).
    pub addr: u32,
    /// The access size in bytes.
    pub size: u32,
    /// Read, write or fetch.
    pub access: Access,
    /// Why it failed.
    pub kind: FaultKind,
    /// The guest PC of the instruction, when the thread registered a PC slot
    /// (see [`set_pc_slot`]) or the caller filled it in.
    pub pc: Option<u32>,
}

impl fmt::Display for GuestFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "guest memory fault: {} of {} byte{} at guest address {:#010x} ({})",
            self.access,
            self.size,
            if self.size == 1 { "" } else { "s" },
            self.addr,
            self.kind
        )?;
        match self.pc {
            Some(pc) => write!(f, ", guest pc {pc:#010x}"),
            None => write!(f, ", guest pc unknown"),
        }
    }
}

impl std::error::Error for GuestFault {}

thread_local! {
    static PC_SLOT: Cell<*const u32> = const { Cell::new(std::ptr::null()) };
}

/// Registers where this thread keeps its current guest PC (the context's
/// instruction address), so faults can name it. Pass null to unregister.
///
/// # Safety
///
/// `slot` must stay valid (and be written only by this thread) until it is
/// unregistered; faults read it with a volatile load.
pub unsafe fn set_pc_slot(slot: *const u32) {
    PC_SLOT.with(|s| s.set(slot));
}

/// The guest PC in this thread's registered slot, if any.
pub fn current_pc() -> Option<u32> {
    let p = PC_SLOT.with(|s| s.get());
    if p.is_null() {
        None
    } else {
        // SAFETY: set_pc_slot's contract keeps the slot valid while registered.
        Some(unsafe { std::ptr::read_volatile(p) })
    }
}

/// Raises `fault` as a panic carrying the `GuestFault` (filling in the PC from
/// the registered slot when it has none). Catch it with [`catch_fault`].
#[cold]
#[inline(never)]
pub fn raise(mut fault: GuestFault) -> ! {
    if fault.pc.is_none() {
        fault.pc = current_pc();
    }
    install_quiet_panic_hook();
    std::panic::panic_any(fault)
}

/// Runs `f`, turning a guest fault raised inside it (by [`raise`], i.e. by a
/// plain accessor in checked mode) into `Err`. Other panics continue.
pub fn catch_fault<R>(f: impl FnOnce() -> R) -> Result<R, GuestFault> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => Ok(r),
        Err(payload) => match payload.downcast::<GuestFault>() {
            Ok(fault) => Err(*fault),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// Makes panics whose payload is a `GuestFault` silent (they are reported by
/// whoever catches them); other panics go to the hook that was there before.
fn install_quiet_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(fault) = info.payload().downcast_ref::<GuestFault>() {
                if cfg!(panic = "abort") {
                    // Nothing can catch it (the PS5 build aborts on panic):
                    // this is the only report the fault gets.
                    log::error!("{fault} (the process ends: this build cannot unwind)");
                } else {
                    log::debug!(
                        "{fault} (raised as a panic, to be caught by the guest thread's runner)"
                    );
                }
            } else {
                previous(info);
            }
        }));
    });
}

/// The trap-mode handler: host faults inside a registered reservation become
/// guest-fault reports.
#[cfg(unix)]
pub(crate) mod trap {
    use std::sync::atomic::{AtomicUsize, Ordering};

    const MAX_REGIONS: usize = 64;
    /// (base, len) of each live reservation; 0 = free slot.
    static REGIONS: [(AtomicUsize, AtomicUsize); MAX_REGIONS] =
        [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; MAX_REGIONS];
    static PREV_SEGV: AtomicUsize = AtomicUsize::new(0);
    static PREV_BUS: AtomicUsize = AtomicUsize::new(0);

    /// Registers a reservation so the handler recognises its faults.
    pub(crate) fn register(base: usize, len: usize) -> bool {
        for (b, l) in &REGIONS {
            if b.compare_exchange(0, base, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                l.store(len, Ordering::Release);
                return true;
            }
        }
        false
    }

    /// Forgets a reservation.
    pub(crate) fn unregister(base: usize) {
        for (b, l) in &REGIONS {
            if b.load(Ordering::Acquire) == base {
                l.store(0, Ordering::Release);
                b.store(0, Ordering::Release);
            }
        }
    }

    fn find(addr: usize) -> Option<usize> {
        for (b, l) in &REGIONS {
            let base = b.load(Ordering::Acquire);
            let len = l.load(Ordering::Acquire);
            if base != 0 && addr >= base && addr - base < len {
                return Some(base);
            }
        }
        None
    }

    /// Installs the SIGSEGV/SIGBUS handler once. Returns whether it is in place.
    pub(crate) fn install() -> bool {
        static ONCE: std::sync::Once = std::sync::Once::new();
        static OK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        ONCE.call_once(|| {
            // SAFETY: installing a signal handler with a zeroed, then filled,
            // sigaction; the previous one is kept for chaining.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = handler as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                libc::sigemptyset(&mut sa.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                let a = libc::sigaction(libc::SIGSEGV, &sa, &mut old);
                PREV_SEGV.store(Box::into_raw(Box::new(old)) as usize, Ordering::Release);
                let mut old_bus: libc::sigaction = std::mem::zeroed();
                let b = libc::sigaction(libc::SIGBUS, &sa, &mut old_bus);
                PREV_BUS.store(Box::into_raw(Box::new(old_bus)) as usize, Ordering::Release);
                OK.store(a == 0 && b == 0, Ordering::Release);
            }
        });
        OK.load(Ordering::Acquire)
    }

    /// Appends `s` to `buf` at `*n`.
    fn put(buf: &mut [u8], n: &mut usize, s: &[u8]) {
        for &c in s {
            if *n < buf.len() {
                buf[*n] = c;
                *n += 1;
            }
        }
    }

    fn put_hex(buf: &mut [u8], n: &mut usize, v: u64, digits: u32) {
        put(buf, n, b"0x");
        for i in (0..digits).rev() {
            let d = ((v >> (i * 4)) & 0xF) as u8;
            put(buf, n, &[if d < 10 { b'0' + d } else { b'a' + d - 10 }]);
        }
    }

    extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
        let fault_addr = unsafe { (*info).si_addr() } as usize;
        let Some(base) = find(fault_addr) else {
            chain(sig, info, uctx);
            return;
        };
        let guest = (fault_addr - base) as u64;
        let (write, host_pc) = host_details(uctx);
        let pc = super::current_pc();
        let mut buf = [0u8; 256];
        let mut n = 0;
        put(&mut buf, &mut n, b"guest memory fault: ");
        put(
            &mut buf,
            &mut n,
            match write {
                Some(true) => b"write",
                Some(false) => b"read",
                None => b"access",
            },
        );
        put(&mut buf, &mut n, b" at guest address ");
        put_hex(&mut buf, &mut n, guest & 0xFFFF_FFFF, 8);
        if guest >= 1 << 32 {
            put(&mut buf, &mut n, b" (past the end of the address space)");
        } else {
            put(&mut buf, &mut n, b" (unmapped or protected)");
        }
        put(&mut buf, &mut n, b", guest pc ");
        match pc {
            Some(pc) => put_hex(&mut buf, &mut n, u64::from(pc), 8),
            None => put(&mut buf, &mut n, b"unknown"),
        }
        put(&mut buf, &mut n, b", host pc ");
        put_hex(&mut buf, &mut n, host_pc as u64, 16);
        put(
            &mut buf,
            &mut n,
            b" [trap mode: set CELLPORT_MEM_CHECK=checked to get a recoverable fault]\n",
        );
        // SAFETY: write(2) and _exit(2) are async-signal-safe.
        unsafe {
            libc::write(2, buf.as_ptr().cast(), n);
            libc::_exit(super::TRAP_EXIT_CODE);
        }
    }

    /// (is a write, host pc) from the signal context, where the platform says.
    fn host_details(uctx: *mut libc::c_void) -> (Option<bool>, usize) {
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        {
            // SAFETY: on x86-64 Linux the third handler argument is a ucontext_t.
            let uc = unsafe { &*(uctx as *const libc::ucontext_t) };
            let err = uc.uc_mcontext.gregs[libc::REG_ERR as usize] as u64;
            let rip = uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize;
            (Some(err & 2 != 0), rip)
        }
        #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
        {
            let _ = uctx;
            (None, 0)
        }
    }

    /// Passes a fault that is not ours to the handler that was installed before.
    fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
        let prev = if sig == libc::SIGBUS {
            &PREV_BUS
        } else {
            &PREV_SEGV
        };
        let p = prev.load(Ordering::Acquire) as *const libc::sigaction;
        // SAFETY: set once in install() and never freed.
        let old = unsafe { &*p };
        let h = old.sa_sigaction;
        if h == libc::SIG_DFL || h == libc::SIG_IGN {
            // Restore the default and return: the access faults again and the
            // process dies the usual way (core dump), as a host bug should.
            // SAFETY: resetting a signal disposition.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
            }
        } else if old.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: the previous handler was installed with this signature.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(h) };
            f(sig, info, uctx);
        } else {
            // SAFETY: a plain handler takes the signal number.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
            f(sig);
        }
    }
}
