//! The titles host-sim and the PS5 payload run, and the game loop both
//! run them with.
//!
//! A [`Title`] makes the game's frames on the present loop's Vulkan
//! device; [`GameLoop`] renders one, waits until it is due and hands it to
//! framegen-present's `PresentLoop`, which shows it with the generated
//! frames its pacer asks for. Two titles:
//!
//! - [`demo::DemoTitle`]: the recompiled PS3 demo (`runtime/demo`: lifted
//!   PPU code on LV2, the HLE modules and the RSX FIFO processor), the
//!   default of `./x sim` and the PS5 payload;
//! - [`scene::BuiltinScene`]: a native animated scene drawn by a compute
//!   shader, at any frame rate and picture size, with cuts (framegen's
//!   tests and benchmarks, `./x sim --title scene`).
//!
//! Nothing here links a window system or a Vulkan loader: the caller owns
//! the device (host-sim's on lavapipe, the payload's on the console).

pub mod demo;
pub mod game_loop;
pub mod scene;
pub mod title;

pub use game_loop::GameLoop;
pub use title::{GameRate, RenderSlot, TickClock, Title, TitleFrame, multiplier_for};
