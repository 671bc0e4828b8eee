//! host-sim: the desktop build of cellport's presenting. It runs the
//! console's present loop ([`framegen_present`]) on lavapipe against a
//! simulated PS5 VideoOut display ([`videoout`]), with the built-in scene
//! as the title ([`scene`], behind the [`title::Title`] trait a recompiled
//! title implements), and writes the same flagged frame dumps as the
//! console. `--window` mirrors the display in an X11 window ([`window`]).

pub mod modes;
pub mod outputs;
pub mod run;
pub mod scene;
pub mod title;
pub mod videoout;
pub mod vulkan;
pub mod window;
