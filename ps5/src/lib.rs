//! The PS5 console platform of cellport.
//!
//! On the console (`targets/x86_64-sony-ps5.json`, built by `./x ps5`) this
//! crate is the payload's start-up code, its dynamic linker (imports
//! resolved by NID in the system modules), the FreeBSD 11 ABI shims the
//! standard library needs there, the VideoOut / VK_KHR_display display, the
//! 120 Hz output configuration and the dumps to console storage: the
//! [`console`] module, compiled for that target only.
//!
//! Everything that can be decided without a console is pure code, built and
//! unit-tested on the host too: NIDs ([`nid`]), reading the payload's ELF
//! tables ([`elf`]), the relocation and import logic ([`link`], run in the
//! tests against the real payload), the module table ([`modules`]), the
//! symbol map and stub libraries ([`sysmap`]), the import list
//! ([`imports`]), display-mode and output-mode choice ([`display_mode`]),
//! the param.json path choice ([`param_json`]), the settings ([`settings`]),
//! the FreeBSD 11 structure conversions ([`fbsd11`]), the runtime's platform
//! layer ([`runtime_platform`]: guest memory through the console's `mmap`, files in
//! a sandbox folder) and the controller's mapping to the PS3 pad ([`pad`]).
#![cfg_attr(all(target_os = "freebsd", target_vendor = "sony"), feature(linkage))]

pub mod display_mode;
pub mod elf;
pub mod fbsd11;
pub mod imports;
pub mod khr_display;
pub mod latch;
pub mod link;
pub mod modules;
pub mod nid;
pub mod pad;
pub mod param_json;
pub mod runtime_platform;
pub mod settings;
pub mod sysmap;

#[cfg(all(target_os = "freebsd", target_vendor = "sony"))]
pub mod console;

/// Whether this build is the console build.
pub const IS_CONSOLE: bool = cfg!(all(target_os = "freebsd", target_vendor = "sony"));
