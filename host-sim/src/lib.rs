//! host-sim: the desktop build of cellport's presenting. It runs the
//! console's present loop ([`framegen_present`]) and the shared game loop
//! ([`titles::GameLoop`]) on lavapipe against a simulated PS5 VideoOut
//! display ([`videoout`]), with a title from the `titles` crate (the
//! recompiled demo by default, or the built-in scene), and writes the same
//! flagged frame dumps as the console. `--window` mirrors the display in
//! an X11 window ([`window`]) whose keyboard is the demo's pad ([`keys`]).

pub mod keys;
pub mod modes;
pub mod outputs;
pub mod run;
pub mod videoout;
pub mod vulkan;
pub mod window;
