//! `_Unwind_Backtrace`, `_Unwind_GetIP`, `_Unwind_GetCFA` and
//! `_Unwind_FindEnclosingFunction` for the standard library's backtraces
//! (panics, `std::backtrace::Backtrace`, which anyhow captures), by walking
//! frame pointers (the target keeps them: see targets/README.md). The
//! console has no unwinder library for payloads; panics abort, so only
//! tracing is needed.

use core::ffi::{c_int, c_void};

/// The context handed to the trace callback: one frame's return address.
#[repr(C)]
pub struct UnwindContext {
    ip: usize,
    cfa: usize,
}

/// `_URC_NO_REASON`: the callback asks for the next frame.
const URC_NO_REASON: c_int = 0;
/// `_URC_END_OF_STACK`.
const URC_END_OF_STACK: c_int = 5;
/// Frames deeper than this are not walked.
const MAX_FRAMES: usize = 256;
/// A frame pointer moving further than this is taken as the end of the chain.
const MAX_FRAME_SIZE: usize = 16 << 20;

type TraceFn = unsafe extern "C" fn(*mut UnwindContext, *mut c_void) -> c_int;

/// Calls `trace` once per frame, innermost first.
///
/// # Safety
/// As libgcc's: `trace` must be a valid callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_Backtrace(trace: TraceFn, arg: *mut c_void) -> c_int {
    let mut fp: usize;
    // SAFETY: reads the frame pointer register.
    unsafe {
        core::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags))
    };
    let mut ctx = UnwindContext { ip: 0, cfa: 0 };
    for _ in 0..MAX_FRAMES {
        if fp == 0 || !fp.is_multiple_of(8) {
            break;
        }
        // SAFETY: `fp` is a frame pointer of the chain starting at this
        // function's frame: [fp] is the caller's frame pointer and [fp + 8]
        // the return address. The chain is checked to grow upwards within
        // MAX_FRAME_SIZE per step, so it stays on this thread's stack.
        let (next, ret) = unsafe { (*(fp as *const usize), *((fp + 8) as *const usize)) };
        if ret == 0 {
            break;
        }
        ctx.ip = ret;
        // The caller's stack pointer before its call: above the saved frame
        // pointer and return address.
        ctx.cfa = fp + 16;
        // SAFETY: the caller's callback with its own argument.
        if unsafe { trace(&raw mut ctx, arg) } != URC_NO_REASON {
            break;
        }
        if next <= fp || next - fp > MAX_FRAME_SIZE {
            break;
        }
        fp = next;
    }
    URC_END_OF_STACK
}

/// The frame's return address.
///
/// # Safety
/// `ctx` must be the context passed to the trace callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetIP(ctx: *mut UnwindContext) -> usize {
    // SAFETY: the caller passes the live context.
    unsafe { (*ctx).ip }
}

/// The frame's canonical frame address (its caller's stack pointer).
///
/// # Safety
/// `ctx` must be the context passed to the trace callback.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetCFA(ctx: *mut UnwindContext) -> usize {
    // SAFETY: the caller passes the live context.
    unsafe { (*ctx).cfa }
}

/// The start of the function holding `pc`: without unwind tables to look
/// it up in, `pc` itself (backtraces then name the address, not the
/// function's start; offsets are looked up with addr2line anyway).
#[unsafe(no_mangle)]
pub extern "C" fn _Unwind_FindEnclosingFunction(pc: *mut c_void) -> *mut c_void {
    pc
}
