//! Flagged frame dumps: every picture the display showed, the game's and
//! the generated ones, flagged, with the refresh it went on screen at, how
//! long it stayed, the pacer's decision, the GPU time and the image
//! (zstd-compressed RGBA8), each record with a CRC-32.
//!
//! - [`DumpWriter`]: a bounded queue and a writer thread; it never blocks
//!   the present loop, and records it drops are counted in the file.
//! - [`DumpReader`], [`verify`]: read and check a dump; a truncated or
//!   corrupt file is an error naming the offset and the last good record.
//! - [`Info`]: counts and the refresh timeline; [`timeline`]: the plot.
//! - [`font`], [`canvas`]: the bitmap font and the RGBA canvas the tools
//!   (and the present loop's overlays) draw with.
//!
//! README.md describes the file format byte by byte.

pub mod canvas;
pub mod crc32;
pub mod font;
pub mod format;
#[cfg(feature = "tools")]
pub mod png_io;
pub mod reader;
pub mod stats;
pub mod timeline;
pub mod writer;

pub use format::{
    Dropped, End, FrameKind, FrameMeta, GpuTimes, Image, ImageInfo, PacerDecision, PacerState,
};
pub use reader::{DumpReader, FrameRecord, Header, ReadError, Record, VerifyReport, verify};
pub use stats::Info;
pub use writer::{DumpWriter, WriteError, WriteStats, WriterConfig};

/// The default file name extension of a dump.
pub const EXTENSION: &str = "fgdump";
