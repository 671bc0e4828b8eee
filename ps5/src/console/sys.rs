//! System library functions the console code calls. Each is an import of
//! the payload, resolved at start-up by NID in the module `ps5/sysmap.txt`
//! names (the stub libraries carry that module in the symbol's version).

use core::ffi::{c_int, c_void};

unsafe extern "C" {
    /// Opens a VideoOut port: `(user 0xFF, bus 0 = main, index 0, NULL)`.
    pub fn sceVideoOutOpen(
        user_id: c_int,
        bus_type: c_int,
        index: c_int,
        param: *const c_void,
    ) -> c_int;
    /// Closes a VideoOut port.
    pub fn sceVideoOutClose(handle: c_int) -> c_int;
    /// > 0 when the output mode (15: 119.88 Hz) is available.
    pub fn sceVideoOutIsOutputSupported(
        handle: c_int,
        mode: u64,
        options: *const c_void,
        reserved0: *const c_void,
        reserved1: u64,
    ) -> c_int;
    /// Switches the output mode (15: 119.88 Hz, 1: default).
    pub fn sceVideoOutConfigureOutput(
        handle: c_int,
        mode: u64,
        options: *const c_void,
        reserved0: *const c_void,
        reserved1: u64,
    ) -> c_int;
    /// Sets the flip rate (0: every vblank).
    pub fn sceVideoOutSetFlipRate(handle: c_int, rate: c_int) -> c_int;
    /// Hides the splash screen, which otherwise hides the output.
    pub fn sceSystemServiceHideSplashScreen() -> c_int;

    /// Starts the user service (`NULL`: default parameters).
    pub fn sceUserServiceInitialize(params: *const c_void) -> c_int;
    /// The user logged in first (the one whose controller is pad 0).
    pub fn sceUserServiceGetInitialUser(user_id: *mut c_int) -> c_int;
    /// Starts the pad library.
    pub fn scePadInit() -> c_int;
    /// Opens a user's controller: `(user, type 0 = standard, index 0, NULL)`;
    /// returns a handle.
    pub fn scePadOpen(user_id: c_int, kind: c_int, index: c_int, param: *const c_void) -> c_int;
    /// The controller's state now, into a `ScePadData`.
    pub fn scePadReadState(handle: c_int, data: *mut c_void) -> c_int;
    /// Closes a controller.
    pub fn scePadClose(handle: c_int) -> c_int;
}
