//! The PS5 app folder: building it, checking it and deploying it.
//!
//! A PS5 homebrew title is a folder named after its title id:
//!
//! ```text
//! PPSA99033/
//!   eboot.elf             the payload, as the homebrew launcher expects it
//!   sce_sys/param.json    title id, content id, versions, name, attribute3
//!   sce_sys/icon0.png     512×512 PNG
//!   ...                   the title's run-time files (declared, see `config`)
//! ```
//!
//! - [`assemble`] builds that folder from the payload, `sce_sys/` and the
//!   declared run-time files, checks it, and writes a reproducible archive
//!   ([`tar`], zstd) and a manifest (sizes and SHA-256 of every file).
//! - [`check`] validates a folder and reports every problem at once, each
//!   naming the file and field ([`param_json`] holds the param.json schema).
//! - [`deploy`] uploads a folder by FTP ([`ftp`]) to
//!   `/data/homebrew/<TITLE_ID>/`, `param.json` last, with size checks,
//!   resume and retries.
//! - [`icon`] draws the title's icon; [`payload`] runs the payload build.

pub mod assemble;
pub mod check;
pub mod config;
pub mod deploy;
pub mod folder;
pub mod ftp;
pub mod icon;
pub mod param_json;
pub mod payload;
pub mod tar;

pub use check::Problem;

/// The path of `param.json` inside an app folder.
pub const PARAM_JSON: &str = "sce_sys/param.json";
/// The path of the icon inside an app folder.
pub const ICON0: &str = "sce_sys/icon0.png";
/// The icon's required width and height in pixels.
pub const ICON_SIZE: u32 = 512;
/// The `attribute3` bits that declare high frame rates: the PS5 Vulkan
/// drivers offer the 119.88 Hz display mode only when both are set.
pub const ATTRIBUTE3_HIGH_FRAME_RATE: u64 = 0x80040;
/// The error the console returns when a title asks for 120 Hz without
/// declaring it (or without being registered again after declaring it).
pub const REFUSED_120HZ_ERROR: u32 = 0x8029_0016;

/// Whether `id` is a PS5 title id: `PPSA` and five digits.
pub fn is_title_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 9 && id.starts_with("PPSA") && b[4..].iter().all(u8::is_ascii_digit)
}
