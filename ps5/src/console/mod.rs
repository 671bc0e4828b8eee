//! The console-only half of the crate: start-up, ABI shims, logging,
//! VideoOut, the Vulkan entry point and the payload's application.

pub mod app;
pub mod display;
pub mod logger;
pub mod pad;
pub mod rt;
pub mod shims;
pub mod sys;
pub mod unwind;
pub mod videoout;
pub mod vulkan;
