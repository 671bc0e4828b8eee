//! The system modules.

pub mod fs;
pub mod gcm;
pub mod pad;
pub mod prx;
pub mod sysutil;

use crate::Registry;

/// Registers every module's functions.
pub fn register_all(r: &mut Registry) {
    prx::register(r);
    fs::register(r);
    sysutil::register(r);
    pad::register(r);
    gcm::register(r);
}
