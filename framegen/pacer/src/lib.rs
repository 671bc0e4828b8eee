//! Frame generation pacing for cellport.
//!
//! For each of the game's new frames, [`Pacer::frame`] decides whether to
//! generate frames in between and how many times to present them before the
//! game's own frame, on a FIFO display at 119.88 Hz or 59.94 Hz. Around it:
//!
//! - [`Pacer::hold`] / [`hold_limit`]: the latency hold, a frame-rate limit
//!   that keeps the swapchain queue empty;
//! - [`Pacer::drain`]: leaves the next frame's generated frames out when the
//!   queue filled anyway;
//! - [`fifo::FifoDisplay`]: a FIFO display in virtual time (refresh period,
//!   2 to 8 swapchain images, presents shown in order, each for at least one
//!   refresh);
//! - [`sim`]: a game loop driving the pacer and that display, deterministic,
//!   with optional seeded jitter ([`rng::XorShift64`]).
//!
//! Everything above is `no_std` and allocates nothing (fixed-size state,
//! `heapless` containers). The `std` feature (on by default) adds [`table`],
//! the README table generator, and the `fg-pace` command line.
//!
//! The semantics (decision table, why ticks and not the wall clock, `already`,
//! the safety net, the hold and the drain) are written down in the crate's
//! README.md.
#![no_std]

#[cfg(feature = "std")]
extern crate std;

pub mod fifo;
pub mod hold;
mod num;
pub mod pacer;
pub mod rng;
pub mod safety_net;
pub mod sim;
#[cfg(feature = "std")]
pub mod table;

pub use hold::hold_limit;
pub use pacer::{Decision, Event, MultiplierError, Pacer, ResetCause, State};
