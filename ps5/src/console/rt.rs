//! The payload's start-up code: what runs between the loader's jump to
//! `_start` and the application's `main`.
//!
//! 1. clear `.bss` (the loader copies file bytes only; the rest of the
//!    mapping holds whatever its buffer held);
//! 2. work out how to call `sys_dynlib_dlsym` (see [`PayloadArgs`]), find
//!    libkernel's handle and the kernel-log function;
//! 3. link the image ([`crate::link::link`]): open every `DT_NEEDED`
//!    module (by handle, by sysmodule id or by path), apply every
//!    relocation, resolve every import by NID;
//! 4. run the init array;
//! 5. call `main`, run the fini array, and end the process with `exit`
//!    (or return to the caller inside a hijacked process, as the public SDK
//!    does).
//!
//! Until step 3 is done no library function may be called: nothing before
//! it allocates, panics on purpose, or uses the standard library. (The
//! memory functions are the compiler-builtins ones linked into the payload,
//! so a loop the compiler turns into `memset` is safe.)

use crate::elf::{Dynamic, EHDR_SIZE, Image, Layout, PHDR_SIZE};
use crate::link::{self, Handle, LinkEvent, SymbolSource};
use crate::modules::{self, LoadMethod, ModuleSpec};
use core::ffi::{CStr, c_char, c_int, c_void};
use core::fmt::Write as _;
use core::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};

/// A `sys_dynlib_dlsym(handle, name, &address)` function: 0 on success.
pub type DlsymFn = unsafe extern "C" fn(c_int, *const c_char, *mut c_void) -> c_int;

/// `sys_dynlib_dlsym`'s system call number (PS4/PS5).
pub const SYS_DYNLIB_DLSYM: u64 = 591;
/// Offset of the `syscall` instruction in libkernel's `getpid` (the public
/// SDK's `crt/syscall.c` jumps there).
pub const GETPID_SYSCALL_OFFSET: usize = 0xA;

/// What the loader passes to `_start` in `rdi` (the public SDK's
/// `payload_args_t`).
///
/// The first member depends on the loader's generation. Older loaders (and
/// payloads run inside the browser) pass `sceKernelDlsym`; the current
/// elfldr passes the address of libkernel's `getpid` instead, whose
/// `syscall` instruction the payload jumps to for system calls (the public
/// SDK's start-up code handles both the same way). The start-up code calls
/// it as a `dlsym`: a real one answers, `getpid` only returns the process
/// id; then it calls the `sys_dynlib_dlsym` system call through that
/// `syscall` instruction.
#[repr(C)]
pub struct PayloadArgs {
    /// `sceKernelDlsym`, or libkernel's `getpid` (see above).
    pub dlsym_or_getpid: usize,
    /// The loader's kernel read/write pipe (unused by cellport).
    pub rwpipe: *mut c_int,
    /// The loader's kernel read/write socket pair (unused by cellport).
    pub rwpair: *mut c_int,
    /// Kernel address of the pipe (unused by cellport).
    pub kpipe_addr: i64,
    /// Kernel data base address (unused by cellport).
    pub kdata_base_addr: i64,
    /// Where the payload's exit code goes.
    pub payloadout: *mut c_int,
}

/// How the payload calls `sys_dynlib_dlsym`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DlsymVia {
    /// Not worked out yet.
    Unknown,
    /// The loader passed a `dlsym` function.
    Function(usize),
    /// The system call, through the `syscall` instruction at this address.
    Syscall(usize),
}

/// Calls system call `number` with three arguments through the `syscall`
/// instruction at `gadget` (inside libkernel, where the console allows
/// system calls from). Called like a function, so the code after the
/// instruction (libkernel's error path, its `ret`) runs as it expects.
#[unsafe(naked)]
unsafe extern "C" fn syscall3(number: u64, a1: u64, a2: u64, a3: u64, gadget: usize) -> i64 {
    core::arch::naked_asm!(
        "sub rsp, 8",   // the gadget sees the stack as a called function does
        "mov rax, rdi", // system call number
        "mov rdi, rsi",
        "mov rsi, rdx",
        "mov rdx, rcx",
        "call r8",
        "add rsp, 8",
        "ret",
    )
}

static ARGS: AtomicPtr<PayloadArgs> = AtomicPtr::new(core::ptr::null_mut());
static DLSYM_KIND: AtomicI32 = AtomicI32::new(0);
static DLSYM_ADDR: AtomicUsize = AtomicUsize::new(0);
static LIBKERNEL: AtomicI32 = AtomicI32::new(modules::LIBKERNEL_HANDLE);
static DEBUG_OUT: AtomicUsize = AtomicUsize::new(0);
static IMAGE_BASE: AtomicUsize = AtomicUsize::new(0);

type DebugOutFn = unsafe extern "C" fn(c_int, *const c_char) -> c_int;
type LoadStartModuleFn = unsafe extern "C" fn(
    *const c_char,
    usize,
    *const c_void,
    u32,
    *mut c_void,
    *mut c_int,
) -> c_int;
type SysmoduleLoadFn = unsafe extern "C" fn(u32) -> c_int;
type ExitFn = unsafe extern "C" fn(c_int) -> !;

/// The image's base address (where the loader mapped the payload), for
/// turning addresses into offsets a host tool can look up.
pub fn image_base() -> usize {
    IMAGE_BASE.load(Ordering::Relaxed)
}

/// libkernel's handle in this process (0x1, or 0x2001 in a hijacked one).
pub fn libkernel_handle() -> Handle {
    LIBKERNEL.load(Ordering::Relaxed)
}

/// How `sys_dynlib_dlsym` is called in this process.
pub fn dlsym_via() -> DlsymVia {
    let a = DLSYM_ADDR.load(Ordering::Relaxed);
    match DLSYM_KIND.load(Ordering::Relaxed) {
        1 => DlsymVia::Function(a),
        2 => DlsymVia::Syscall(a),
        _ => DlsymVia::Unknown,
    }
}

fn set_dlsym_via(via: DlsymVia) {
    let (kind, addr) = match via {
        DlsymVia::Unknown => (0, 0),
        DlsymVia::Function(a) => (1, a),
        DlsymVia::Syscall(a) => (2, a),
    };
    DLSYM_ADDR.store(addr, Ordering::Relaxed);
    DLSYM_KIND.store(kind, Ordering::Relaxed);
}

fn dlsym_with(via: DlsymVia, handle: Handle, name: &CStr) -> Option<usize> {
    let mut addr: usize = 0;
    let out = (&raw mut addr).cast::<c_void>();
    let r = match via {
        DlsymVia::Unknown => return None,
        // SAFETY: a `dlsym(handle, name, &addr)` function the loader passed
        // (or libkernel's getpid, which ignores its arguments: the probe in
        // `start` tells them apart by the answer).
        DlsymVia::Function(f) => unsafe {
            i64::from(core::mem::transmute::<usize, DlsymFn>(f)(
                handle,
                name.as_ptr(),
                out,
            ))
        },
        // SAFETY: `g` is the syscall instruction in libkernel's getpid;
        // sys_dynlib_dlsym takes a handle, a NUL-terminated name and a
        // pointer to one address it writes.
        DlsymVia::Syscall(g) => unsafe {
            syscall3(
                SYS_DYNLIB_DLSYM,
                handle as u64,
                name.as_ptr() as u64,
                out as u64,
                g,
            )
        },
    };
    (r == 0 && addr != 0).then_some(addr)
}

/// Looks `name` up in module `handle` with `sys_dynlib_dlsym` (the kernel
/// hashes the name into its NID). `None` before start-up or when the module
/// lacks it.
pub fn dlsym(handle: Handle, name: &CStr) -> Option<usize> {
    dlsym_with(dlsym_via(), handle, name)
}

/// Opens the module at `path` with `sceKernelLoadStartModule` and returns
/// its handle (for symbols the payload takes by NID at run time, such as a
/// Vulkan driver built as a module), or the console's error code.
pub fn load_module(path: &CStr) -> Result<Handle, i32> {
    let load = dlsym(libkernel_handle(), c"sceKernelLoadStartModule").ok_or(-1)?;
    // SAFETY: the symbol is sceKernelLoadStartModule(path, argc, argv,
    // flags, option, result); a NUL-terminated path, no arguments.
    let h = unsafe {
        core::mem::transmute::<usize, LoadStartModuleFn>(load)(
            path.as_ptr(),
            0,
            core::ptr::null(),
            0,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        )
    };
    if h >= 0 { Ok(h) } else { Err(h) }
}

/// Writes `text` to the kernel log (`sceKernelDebugOutText`), if resolved.
pub fn klog(text: &str) {
    let f = DEBUG_OUT.load(Ordering::Relaxed);
    if f == 0 {
        return;
    }
    // SAFETY: `f` was resolved from libkernel as sceKernelDebugOutText,
    // which takes a channel and a NUL-terminated string.
    let out: DebugOutFn = unsafe { core::mem::transmute::<usize, DebugOutFn>(f) };
    let mut buf = LineBuf::new();
    let _ = buf.write_str(text);
    // SAFETY: `buf.c_str()` is NUL-terminated and lives across the call.
    unsafe { out(0, buf.c_str()) };
}

/// A fixed buffer for one kernel-log line (no allocation).
struct LineBuf {
    buf: [u8; 512],
    len: usize,
}

impl LineBuf {
    fn new() -> Self {
        LineBuf {
            buf: [0; 512],
            len: 0,
        }
    }
    fn c_str(&mut self) -> *const c_char {
        let end = self.len.min(self.buf.len() - 2);
        self.buf[end] = b'\n';
        self.buf[end + 1] = 0;
        self.buf.as_ptr().cast()
    }
}

impl core::fmt::Write for LineBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for &b in s.as_bytes() {
            if self.len < self.buf.len() - 2 {
                self.buf[self.len] = if b == 0 { b'?' } else { b };
                self.len += 1;
            }
        }
        Ok(())
    }
}

fn klog_fmt(args: core::fmt::Arguments<'_>) {
    let mut buf = LineBuf::new();
    let _ = buf.write_str("cellport: ");
    let _ = buf.write_fmt(args);
    let f = DEBUG_OUT.load(Ordering::Relaxed);
    if f != 0 {
        // SAFETY: as in `klog`.
        let out: DebugOutFn = unsafe { core::mem::transmute::<usize, DebugOutFn>(f) };
        // SAFETY: NUL-terminated buffer alive across the call.
        unsafe { out(0, buf.c_str()) };
    }
}

/// The console side of the linker: module handles and `sys_dynlib_dlsym`.
struct ConsoleSource {
    load_start_module: Option<LoadStartModuleFn>,
    sysmodule_load: Option<SysmoduleLoadFn>,
    sysmodule_tried: bool,
}

impl ConsoleSource {
    fn open_by_path(&mut self, soname: &str) -> Result<Handle, i32> {
        let Some(load) = self.load_start_module else {
            return Err(-1);
        };
        let mut last = -1;
        for dir in modules::LIBRARY_DIRS {
            let mut buf = [0u8; 256];
            let Some(path) = modules::module_path(dir, soname, &mut buf) else {
                return Err(-1);
            };
            // SAFETY: sceKernelLoadStartModule(path, argc, argv, flags,
            // option, result): a NUL-terminated path and no arguments.
            let h = unsafe {
                load(
                    path.as_ptr(),
                    0,
                    core::ptr::null(),
                    0,
                    core::ptr::null_mut(),
                    core::ptr::null_mut(),
                )
            };
            if h >= 0 {
                return Ok(h);
            }
            last = h;
        }
        Err(last)
    }

    fn sysmodule(&mut self) -> Option<SysmoduleLoadFn> {
        if !self.sysmodule_tried {
            self.sysmodule_tried = true;
            let load = self.load_start_module?;
            // SAFETY: as in `open_by_path`.
            let h = unsafe {
                load(
                    modules::SYSMODULE_PATH.as_ptr(),
                    0,
                    core::ptr::null(),
                    0,
                    core::ptr::null_mut(),
                    core::ptr::null_mut(),
                )
            };
            if h < 0 {
                klog_fmt(format_args!("cannot open libSceSysmodule: {h:#010x}"));
                return None;
            }
            self.sysmodule_load = dlsym(h, c"sceSysmoduleLoadModuleInternal")
                // SAFETY: the symbol is sceSysmoduleLoadModuleInternal(u32) -> int.
                .map(|a| unsafe { core::mem::transmute::<usize, SysmoduleLoadFn>(a) });
        }
        self.sysmodule_load
    }
}

impl SymbolSource for ConsoleSource {
    fn open(&mut self, module: &ModuleSpec) -> Result<Handle, i32> {
        match module.method {
            LoadMethod::Libkernel => Ok(libkernel_handle()),
            LoadMethod::LibcInternal => Ok(modules::LIBC_HANDLE),
            LoadMethod::Sysmodule(id) => {
                match self.sysmodule() {
                    // SAFETY: sceSysmoduleLoadModuleInternal takes the module id.
                    Some(f) => match unsafe { f(id) } {
                        0 => {}
                        e => klog_fmt(format_args!(
                            "sceSysmoduleLoadModuleInternal({id:#x}) for {}: {e:#010x}",
                            module.soname
                        )),
                    },
                    None => klog_fmt(format_args!("no sysmodule loader for {}", module.soname)),
                }
                self.open_by_path(module.soname)
            }
            LoadMethod::Path => self.open_by_path(module.soname),
        }
    }

    fn lookup(&mut self, handle: Handle, name: &CStr) -> Option<u64> {
        dlsym(handle, name).map(|a| a as u64)
    }

    fn event(&mut self, event: LinkEvent<'_>) {
        match event {
            LinkEvent::Opened { .. } => {}
            LinkEvent::ElsewhereThanDeclared {
                name,
                declared,
                found_in,
            } => klog_fmt(format_args!(
                "{name:?} is in {found_in:?}, not {declared:?}: correct ps5/sysmap.txt"
            )),
            LinkEvent::Unresolved {
                name,
                declared,
                weak,
            } => klog_fmt(format_args!(
                "unresolved {}import {name:?} (module {declared:?})",
                if weak { "weak " } else { "" }
            )),
        }
    }
}

/// Address of the ELF header (the image base) and of `_DYNAMIC`, taken
/// PC-relative so they are right before any relocation is applied.
fn image_addresses() -> (*mut u8, *const u8, *mut u8, *mut u8) {
    let (base, dynamic, bss_start, bss_end): (usize, usize, usize, usize);
    // SAFETY: `lea` of linker-defined symbols; no memory is accessed.
    unsafe {
        core::arch::asm!(
            "lea {0}, [rip + __ehdr_start]",
            "lea {1}, [rip + _DYNAMIC]",
            "lea {2}, [rip + __bss_start]",
            "lea {3}, [rip + __bss_end]",
            out(reg) base, out(reg) dynamic, out(reg) bss_start, out(reg) bss_end,
            options(nostack, pure, nomem, preserves_flags)
        );
    }
    (
        base as *mut u8,
        dynamic as *const u8,
        bss_start as *mut u8,
        bss_end as *mut u8,
    )
}

/// The payload's start: called by the binary's `_start` with the loader's
/// argument block; returns the exit code where the process goes on.
///
/// # Safety
/// Must be called exactly once, first thing in `_start`, with the pointer
/// the loader passed in `rdi`.
pub unsafe fn start(args: *mut PayloadArgs, main: fn() -> i32) -> i32 {
    let (base, dynamic_at, bss_start, bss_end) = image_addresses();
    // 1. Clear .bss with `rep stosb` (not a call: nothing is linked yet).
    let bss_len = (bss_end as usize).saturating_sub(bss_start as usize);
    // SAFETY: __bss_start..__bss_end is this image's writable bss
    // (targets/ps5-payload.ld); `rep stosb` writes exactly bss_len bytes.
    unsafe {
        core::arch::asm!(
            "rep stosb",
            inout("rdi") bss_start => _, inout("rcx") bss_len => _, in("al") 0u8,
            options(nostack, preserves_flags)
        );
    }
    if args.is_null() {
        return -1;
    }
    ARGS.store(args, Ordering::Relaxed);
    IMAGE_BASE.store(base as usize, Ordering::Relaxed);

    // 2. How to call sys_dynlib_dlsym, and libkernel's handle (0x1 in a
    //    process the loader spawned, else 0x2001).
    // SAFETY: `args` is the loader's argument block.
    let first = unsafe { (*args).dlsym_or_getpid };
    let as_function = DlsymVia::Function(first);
    let via = if dlsym_with(as_function, modules::LIBKERNEL_HANDLE, c"sceKernelDlsym").is_some()
        || dlsym_with(
            as_function,
            modules::LIBKERNEL_HANDLE_ALT,
            c"sceKernelDlsym",
        )
        .is_some()
    {
        as_function
    } else {
        DlsymVia::Syscall(first.wrapping_add(GETPID_SYSCALL_OFFSET))
    };
    set_dlsym_via(via);
    if dlsym(modules::LIBKERNEL_HANDLE, c"sceKernelDlsym").is_none()
        && dlsym(modules::LIBKERNEL_HANDLE_ALT, c"sceKernelDlsym").is_some()
    {
        LIBKERNEL.store(modules::LIBKERNEL_HANDLE_ALT, Ordering::Relaxed);
    }
    if let Some(f) = dlsym(libkernel_handle(), c"sceKernelDebugOutText") {
        DEBUG_OUT.store(f, Ordering::Relaxed);
    }

    // 3. Link.
    klog_fmt(format_args!(
        "sys_dynlib_dlsym via {:?}, libkernel handle {:#x}",
        dlsym_via(),
        libkernel_handle()
    ));
    let code = match link_image(base, dynamic_at) {
        Ok(img_dyn) => {
            // 4. Init array.
            for f in link::init_functions(&img_dyn.0, &img_dyn.1).flatten() {
                // SAFETY: the init array holds relocated addresses of
                // `extern "C" fn()` initialisers of this image.
                unsafe { core::mem::transmute::<usize, extern "C" fn()>(f as usize)() };
            }
            // 5. Main, then the fini array.
            let code = main();
            for f in link::fini_functions(&img_dyn.0, &img_dyn.1).flatten() {
                // SAFETY: as for the init array.
                unsafe { core::mem::transmute::<usize, extern "C" fn()>(f as usize)() };
            }
            code
        }
        Err(code) => code,
    };
    // SAFETY: `payloadout` points into the loader's argument page.
    unsafe {
        if !(*args).payloadout.is_null() {
            *(*args).payloadout = code;
        }
    }
    if libkernel_handle() == modules::LIBKERNEL_HANDLE_ALT {
        // Inside a hijacked process: hand control back, as the public SDK does.
        return code;
    }
    if let Some(exit) = dlsym(modules::LIBC_HANDLE, c"exit") {
        // SAFETY: libc's exit(int), which does not return.
        unsafe { core::mem::transmute::<usize, ExitFn>(exit)(code) };
    }
    code
}

fn link_image(base: *mut u8, dynamic_at: *const u8) -> Result<(Image, Dynamic), i32> {
    // The ELF and program headers are in the first loadable segment.
    // SAFETY: the first EHDR_SIZE bytes at the base are the ELF header.
    let ehdr = unsafe { core::slice::from_raw_parts(base, EHDR_SIZE) };
    let phoff = u64::from_le_bytes(ehdr[32..40].try_into().unwrap_or([0; 8])) as usize;
    let phnum = usize::from(u16::from_le_bytes([ehdr[56], ehdr[57]]));
    let header_len = phoff
        .saturating_add(phnum.saturating_mul(PHDR_SIZE))
        .min(0x4000);
    // SAFETY: the program headers follow the ELF header in the same
    // (loaded, readable) first segment, which is at least a page long.
    let header = unsafe { core::slice::from_raw_parts(base, header_len) };
    let layout = match Layout::parse(header) {
        Ok(l) => l,
        Err(e) => {
            klog_fmt(format_args!("bad program headers: {e}"));
            return Err(-2);
        }
    };
    // SAFETY: the loader mapped every loadable segment, base..base+extent.
    let img = unsafe { Image::new(base, layout.extent() as usize) };
    let dyn_off = (dynamic_at as u64).wrapping_sub(base as u64);
    let dyn_size = layout.dynamic.map_or(0, |d| d.memsz);
    let dynamic = match Dynamic::parse(&img, dyn_off, dyn_size) {
        Ok(d) => d,
        Err(e) => {
            klog_fmt(format_args!("bad dynamic section: {e}"));
            return Err(-3);
        }
    };
    let mut source = ConsoleSource {
        load_start_module: dlsym(libkernel_handle(), c"sceKernelLoadStartModule")
            // SAFETY: the symbol is sceKernelLoadStartModule.
            .map(|a| unsafe { core::mem::transmute::<usize, LoadStartModuleFn>(a) }),
        sysmodule_load: None,
        sysmodule_tried: false,
    };
    let stats = link::link(&img, &layout, &dynamic, &mut source).map_err(|e| {
        klog_fmt(format_args!("cannot start: {e}"));
        -4
    })?;
    klog_fmt(format_args!(
        "linked at {base:p}: {} modules, {} imports, {} relative, {} local, {} weak missing",
        stats.modules, stats.imported, stats.relative, stats.local, stats.weak_unresolved
    ));
    Ok((img, dynamic))
}
