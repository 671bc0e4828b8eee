//! Logging on the console: each record goes to standard error (the loader
//! connects it to the socket the payload was sent over, so `socat` shows
//! it) and to the kernel log (`sceKernelDebugOutText`, read with a klog
//! server). The panic hook logs the message and a frame-pointer backtrace
//! with addresses relative to the image base (look them up with
//! `addr2line -e <the .debug.elf ./x ps5 prints>`), and restores the
//! VideoOut output mode, which outlives the process.

use super::rt;
use std::io::Write as _;

struct ConsoleLogger {
    level: log::LevelFilter,
}

impl log::Log for ConsoleLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= self.level
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = format!(
            "cellport {} {}: {}",
            record.level(),
            record.target(),
            record.args()
        );
        let _ = writeln!(std::io::stderr(), "{line}");
        rt::klog(&line);
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

/// Installs the logger (at `level`) and the panic hook.
pub fn init(level: log::LevelFilter) {
    let logger = Box::leak(Box::new(ConsoleLogger { level }));
    if log::set_logger(logger).is_ok() {
        log::set_max_level(level);
    }
    std::panic::set_hook(Box::new(|info| {
        super::videoout::restore_after_panic();
        let base = rt::image_base();
        log::error!("panic: {info}");
        let mut frames = String::new();
        let mut push = |ip: usize| {
            frames.push_str(&format!(" {:#x}", ip.wrapping_sub(base).wrapping_sub(1)));
        };
        backtrace(&mut push);
        log::error!("backtrace (offsets into the payload, base {base:#x}):{frames}");
    }));
}

fn backtrace(f: &mut dyn FnMut(usize)) {
    unsafe extern "C" fn each(
        ctx: *mut super::unwind::UnwindContext,
        arg: *mut core::ffi::c_void,
    ) -> i32 {
        // SAFETY: `arg` is the `&mut &mut dyn FnMut` passed below, alive for
        // the walk; `ctx` is the walker's live context.
        unsafe {
            let f = &mut *(arg as *mut &mut dyn FnMut(usize));
            f(super::unwind::_Unwind_GetIP(ctx));
        }
        0
    }
    let mut f = f;
    // SAFETY: `each` matches the callback type; the argument outlives the walk.
    unsafe { super::unwind::_Unwind_Backtrace(each, (&raw mut f).cast()) };
}
