//! The VideoOut port: 120 Hz output configured only when the title
//! declares it (`IsOutputSupported`/`ConfigureOutput(15)` before
//! `SetFlipRate(0)`), and the default mode restored before the port closes,
//! because the mode outlives the process. The panic hook restores it too.

use super::sys;
use crate::display_mode::{OUTPUT_MODE_120HZ, OUTPUT_MODE_DEFAULT, OutputPlan, output_plan};
use core::sync::atomic::{AtomicI32, Ordering};

/// A port whose output mode must be restored (-1: none).
static TO_RESTORE: AtomicI32 = AtomicI32::new(-1);

/// A VideoOut call that failed, with the console's error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VideoOutError {
    /// The function.
    pub call: &'static str,
    /// Its error code.
    pub code: i32,
}

impl std::fmt::Display for VideoOutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {:#010x}", self.call, self.code as u32)
    }
}

impl std::error::Error for VideoOutError {}

fn check(call: &'static str, code: i32) -> Result<i32, VideoOutError> {
    if code < 0 {
        Err(VideoOutError { call, code })
    } else {
        Ok(code)
    }
}

/// An open VideoOut port on the main display.
pub struct VideoOut {
    handle: i32,
    configured_120: bool,
}

impl VideoOut {
    /// Opens the main port (`sceVideoOutOpen(0xFF, 0, 0, NULL)`).
    pub fn open() -> Result<VideoOut, VideoOutError> {
        // SAFETY: plain integer arguments and a NULL parameter block.
        let h = check("sceVideoOutOpen", unsafe {
            sys::sceVideoOutOpen(0xFF, 0, 0, core::ptr::null())
        })?;
        Ok(VideoOut {
            handle: h,
            configured_120: false,
        })
    }

    /// The port's handle.
    pub fn handle(&self) -> i32 {
        self.handle
    }

    /// Configures the output: 119.88 Hz when the title declares it and the
    /// console supports it, then the flip rate 0 (every vblank). Returns
    /// what was done. A refused 120 Hz configuration falls back to 60 Hz
    /// with a warning (0x80290016: the title is not registered with its
    /// current param.json).
    pub fn configure(&mut self, title_declares_120: bool) -> Result<OutputPlan, VideoOutError> {
        let supported = if title_declares_120 {
            // SAFETY: the open port, mode 15, no options.
            unsafe {
                sys::sceVideoOutIsOutputSupported(
                    self.handle,
                    OUTPUT_MODE_120HZ,
                    core::ptr::null(),
                    core::ptr::null(),
                    0,
                )
            }
        } else {
            0
        };
        let mut plan = output_plan(title_declares_120, supported);
        if title_declares_120 && plan == OutputPlan::Keep60 {
            log::warn!(
                "the title declares 120 Hz but IsOutputSupported(15) answered {supported:#x}: staying at 59.94 Hz"
            );
        }
        if plan == OutputPlan::Configure120 {
            // SAFETY: as above.
            let r = unsafe {
                sys::sceVideoOutConfigureOutput(
                    self.handle,
                    OUTPUT_MODE_120HZ,
                    core::ptr::null(),
                    core::ptr::null(),
                    0,
                )
            };
            if r < 0 {
                log::warn!(
                    "sceVideoOutConfigureOutput(15) failed: {:#010x}; staying at 59.94 Hz \
                     (0x80290016: register the app again after changing param.json)",
                    r as u32
                );
                plan = OutputPlan::Keep60;
            } else {
                self.configured_120 = true;
                TO_RESTORE.store(self.handle, Ordering::SeqCst);
            }
        }
        // SAFETY: the open port.
        check("sceVideoOutSetFlipRate", unsafe {
            sys::sceVideoOutSetFlipRate(self.handle, 0)
        })?;
        Ok(plan)
    }

    /// Puts the default output mode back (if this port changed it).
    pub fn restore(&mut self) {
        if self.configured_120 {
            restore_mode(self.handle);
            self.configured_120 = false;
            TO_RESTORE.store(-1, Ordering::SeqCst);
        }
    }
}

impl Drop for VideoOut {
    fn drop(&mut self) {
        self.restore();
        // SAFETY: the port is open and closed once.
        let r = unsafe { sys::sceVideoOutClose(self.handle) };
        if r < 0 {
            log::warn!("sceVideoOutClose failed: {:#010x}", r as u32);
        }
    }
}

fn restore_mode(handle: i32) {
    // SAFETY: an open port, mode 1, no options.
    let r = unsafe {
        sys::sceVideoOutConfigureOutput(
            handle,
            OUTPUT_MODE_DEFAULT,
            core::ptr::null(),
            core::ptr::null(),
            0,
        )
    };
    if r < 0 {
        log::error!("restoring the output mode failed: {:#010x}", r as u32);
    }
}

/// Restores the output mode of a port left at 120 Hz (the panic hook calls it).
pub fn restore_after_panic() {
    let h = TO_RESTORE.swap(-1, Ordering::SeqCst);
    if h >= 0 {
        restore_mode(h);
    }
}

/// Hides the splash screen (`sceSystemServiceHideSplashScreen`).
pub fn hide_splash_screen() -> Result<(), VideoOutError> {
    // SAFETY: no arguments.
    check("sceSystemServiceHideSplashScreen", unsafe {
        sys::sceSystemServiceHideSplashScreen()
    })?;
    Ok(())
}
