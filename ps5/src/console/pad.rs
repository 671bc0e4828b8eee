//! The controller as PS3 pad 0: the initial user's controller, opened
//! with libScePad, polled by a thread of its own every few milliseconds
//! into the platform's pads (which the HLE pad module reads). The mapping
//! is `crate::pad`.

use super::sys;
use crate::pad::{PAD_DATA_BYTES, from_pad_data};
use platform::Platform;
use std::sync::Arc;
use std::time::Duration;

/// How often the controller is read (the game reads its pad once a frame).
pub const POLL: Duration = Duration::from_millis(4);

/// A pad library call that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PadError {
    /// The function.
    pub call: &'static str,
    /// Its error code.
    pub code: i32,
}

impl std::fmt::Display for PadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {:#010x}", self.call, self.code as u32)
    }
}

impl std::error::Error for PadError {}

fn check(call: &'static str, code: i32) -> Result<i32, PadError> {
    if code < 0 {
        Err(PadError { call, code })
    } else {
        Ok(code)
    }
}

/// Opens the initial user's controller and starts the thread that copies
/// it into `platform`'s pad 0 for as long as the payload runs.
pub fn start(platform: Arc<dyn Platform>) -> Result<(), PadError> {
    // SAFETY: NULL parameters are the documented defaults; the user id is
    // written into a local.
    let handle = unsafe {
        // Already initialised (by the system, another part) is not an error
        // worth stopping for; the open below tells.
        let _ = sys::sceUserServiceInitialize(core::ptr::null());
        let mut user = 0i32;
        check(
            "sceUserServiceGetInitialUser",
            sys::sceUserServiceGetInitialUser(&mut user),
        )?;
        check("scePadInit", sys::scePadInit())?;
        check("scePadOpen", sys::scePadOpen(user, 0, 0, core::ptr::null()))?
    };
    log::info!("controller: pad handle {handle} is PS3 pad 0");
    let p = platform.clone();
    platform
        .spawn(
            "pad",
            256 << 10,
            Box::new(move || {
                // Bigger than the SDK's ScePadData, 8-aligned.
                let mut buf = [0u64; 64];
                let mut last = None;
                loop {
                    // SAFETY: the handle is open; the buffer outlives the call
                    // and is larger than ScePadData.
                    let r = unsafe { sys::scePadReadState(handle, buf.as_mut_ptr().cast()) };
                    let state = if r < 0 {
                        None
                    } else {
                        // SAFETY: 512 initialised bytes viewed as the first 120.
                        let bytes: &[u8; PAD_DATA_BYTES] =
                            unsafe { &*buf.as_ptr().cast::<[u8; PAD_DATA_BYTES]>() };
                        from_pad_data(bytes)
                    };
                    if state != last {
                        p.pads().set(0, state);
                        last = state;
                    }
                    std::thread::sleep(POLL);
                }
            }),
        )
        .map_err(|e| {
            log::error!("{e}");
            PadError {
                call: "spawn pad thread",
                code: -1,
            }
        })
}
