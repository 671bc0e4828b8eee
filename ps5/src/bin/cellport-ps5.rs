//! The cellport PS5 payload: an ELF PIE the public loader (elfldr) runs.
//! `./x ps5` builds it for targets/x86_64-sony-ps5.json; its `_start` hands
//! the loader's arguments to the start-up code of the `ps5` crate, which
//! links the payload and calls the application.
#![cfg_attr(all(target_os = "freebsd", target_vendor = "sony"), no_main)]

#[cfg(all(target_os = "freebsd", target_vendor = "sony"))]
mod payload {
    use ps5::console::rt::{self, PayloadArgs};

    /// The entry point: the loader jumps here with its arguments in `rdi`.
    ///
    /// # Safety
    /// Called once, by the loader.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn _start(args: *mut PayloadArgs) -> i32 {
        // SAFETY: first and only call, with the loader's argument block.
        unsafe { rt::start(args, ps5::console::app::run) }
    }
}

#[cfg(not(all(target_os = "freebsd", target_vendor = "sony")))]
#[allow(clippy::print_stderr)]
fn main() {
    eprintln!(
        "cellport-ps5 is the PS5 payload and runs on the console only.\n\
         Build it with `./x ps5` (it prints the path of the ELF), then send it to\n\
         the console's loader: `socat -t 3600 - TCP:<console-ip>:9021 < <path>`."
    );
    std::process::exit(2);
}
