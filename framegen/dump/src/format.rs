//! The file format, version 1: constants, the records' fields and their
//! encoding. README.md describes every byte; this module is that description
//! in code (all numbers little-endian).

use crate::crc32::Crc32;

/// The file's first 8 bytes.
pub const FILE_MAGIC: [u8; 8] = *b"CPFGDUMP";
/// The format version this crate writes and reads.
pub const VERSION: u16 = 1;
/// Bytes before the metadata: magic, version, flags, metadata length.
pub const FILE_HEADER_FIXED: usize = 16;
/// The longest metadata the reader accepts (bytes of JSON).
pub const MAX_META_BYTES: u32 = 1 << 20;

/// Every record's first 4 bytes.
pub const RECORD_MAGIC: [u8; 4] = *b"FGRC";
/// Bytes of a record's header (magic, type, lengths, CRC).
pub const RECORD_HEADER: usize = 16;
/// The longest payload the reader accepts (bytes).
pub const MAX_PAYLOAD_BYTES: u32 = 256 << 20;
/// The largest image side the reader accepts (pixels).
pub const MAX_IMAGE_SIDE: u32 = 16384;

/// Record type: one picture that was on screen.
pub const TYPE_FRAME: u8 = 1;
/// Record type: records dropped because the writer's queue was full.
pub const TYPE_DROPPED: u8 = 2;
/// Record type: the end of the dump, with totals.
pub const TYPE_END: u8 = 3;

/// Bytes of a frame record's fixed fields.
pub const FRAME_FIXED: usize = 88;
/// Bytes of a dropped record's fixed fields.
pub const DROPPED_FIXED: usize = 24;
/// Bytes of an end record's fixed fields.
pub const END_FIXED: usize = 40;

/// Image format code: no image.
pub const IMAGE_NONE: u8 = 0;
/// Image format code: RGBA, 8 bits a channel, rows top to bottom, packed.
pub const IMAGE_RGBA8: u8 = 1;

/// Whose picture a frame record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// The game's own frame.
    Game,
    /// A generated frame.
    Generated {
        /// Which one, from 0: the `index`-th of `of`, at `(index + 1) / (of + 1)`
        /// of the way from the previous game frame to this one.
        index: u8,
        /// How many were generated between the two game frames (the same
        /// as the decision's `generated`; the file stores it once).
        of: u8,
    },
}

impl FrameKind {
    /// Whether this is a generated frame.
    pub fn is_generated(&self) -> bool {
        matches!(self, FrameKind::Generated { .. })
    }

    /// A short label: `game`, `gen1of1`, `gen2of3` (1-based).
    pub fn label(&self) -> String {
        match self {
            FrameKind::Game => "game".to_string(),
            FrameKind::Generated { index, of } => format!("gen{}of{}", index + 1, of),
        }
    }
}

/// The pacer's state, as recorded (the pacer's own `State` without its
/// data; codes are part of the format).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PacerState {
    /// Not recorded (code 0).
    Unknown,
    /// Generating frames (1).
    Generating,
    /// The first engaged frame, history starts (2).
    Priming,
    /// The frames after a start or reset (3).
    WarmingUp,
    /// The game's frame lengths are uneven (4).
    Uneven,
    /// The game's frame lasts one refresh (5).
    NoRoom,
    /// The safety net paused generation (6).
    Paused,
    /// Generated frames left out to drain the queue (7).
    Draining,
    /// Frame generation switched off (8).
    Disabled,
    /// The game's frame limiter is not nominal (9).
    LimiterNotNominal,
    /// The rates given to the pacer were not valid (10).
    InvalidRates,
}

impl PacerState {
    /// Every state, in code order.
    pub const ALL: [PacerState; 11] = [
        PacerState::Unknown,
        PacerState::Generating,
        PacerState::Priming,
        PacerState::WarmingUp,
        PacerState::Uneven,
        PacerState::NoRoom,
        PacerState::Paused,
        PacerState::Draining,
        PacerState::Disabled,
        PacerState::LimiterNotNominal,
        PacerState::InvalidRates,
    ];

    /// The state's code in the file.
    pub fn code(self) -> u8 {
        Self::ALL.iter().position(|s| *s == self).unwrap_or(0) as u8
    }

    /// The state of a code; `None` for a code this version does not know.
    pub fn from_code(code: u8) -> Option<PacerState> {
        Self::ALL.get(usize::from(code)).copied()
    }

    /// The name the pacer uses for it.
    pub fn name(self) -> &'static str {
        match self {
            PacerState::Unknown => "unknown",
            PacerState::Generating => "generating",
            PacerState::Priming => "priming",
            PacerState::WarmingUp => "warming up",
            PacerState::Uneven => "uneven",
            PacerState::NoRoom => "no room",
            PacerState::Paused => "paused",
            PacerState::Draining => "draining",
            PacerState::Disabled => "disabled",
            PacerState::LimiterNotNominal => "limiter not nominal",
            PacerState::InvalidRates => "invalid rates",
        }
    }
}

/// The pacer's decision for the game frame a record belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacerDecision {
    /// The frame was recorded in the interpolator.
    pub engaged: bool,
    /// The interpolator's history started over with it.
    pub reset: bool,
    /// Presents of generated frames before the game's frame.
    pub presents: u16,
    /// Generated frames made.
    pub generated: u8,
    /// The pacer's state after the decision.
    pub state: PacerState,
}

/// GPU time of frame generation, in milliseconds: the latest measurement
/// when the record was made (the interpolator reads its timestamps back a
/// few frames late).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuTimes {
    /// Optical flow and interpolation together.
    pub total_ms: f32,
    /// The optical-flow part.
    pub flow_ms: f32,
}

/// What a frame record says about one picture that was on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameMeta {
    /// Submission number: every record offered to the writer gets the next
    /// one, dropped records included (so gaps show where records are
    /// missing). Set by the writer.
    pub seq: u64,
    /// The game frame's index (for a generated frame: the game frame it
    /// was generated before).
    pub frame: u64,
    /// The game's frame or the i-th generated one.
    pub kind: FrameKind,
    /// The pacer's decision for the game frame.
    pub decision: PacerDecision,
    /// Presents of this picture (a generated frame presented twice: 2).
    pub presents: u32,
    /// The refresh (vblank) it first went on screen at, counted from 0.
    pub first_refresh: u64,
    /// Refreshes it stayed on screen (0: never shown).
    pub refreshes: u32,
    /// When its first present was made, display clock, seconds.
    pub present_s: f64,
    /// When it went on screen (the first refresh), display clock, seconds.
    pub shown_s: f64,
    /// How long the acquire of its first present waited, seconds.
    pub acquire_wait_s: f64,
    /// GPU time of frame generation, when measured.
    pub gpu: Option<GpuTimes>,
}

/// An RGBA8 picture (rows top to bottom, packed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The displayed picture's size divided by this gives this size
    /// (1: full size).
    pub scale: u8,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

/// What a frame record says about its image, without the pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageInfo {
    /// Width in pixels (0: no image).
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Format code ([`IMAGE_NONE`], [`IMAGE_RGBA8`]).
    pub format: u8,
    /// Downscale factor.
    pub scale: u8,
    /// Uncompressed bytes.
    pub bytes: u32,
}

/// Records dropped because the writer's queue was full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// How many.
    pub count: u64,
    /// The first dropped submission number.
    pub first_seq: u64,
    /// The last dropped submission number.
    pub last_seq: u64,
}

/// The end of a dump.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct End {
    /// Frame records written.
    pub records: u64,
    /// Records dropped, in all.
    pub dropped: u64,
    /// Refreshes the display ran.
    pub refreshes: u64,
    /// The display clock at the end, seconds.
    pub seconds: f64,
    /// Records offered to the writer (written + dropped).
    pub submitted: u64,
}

fn put_u16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put_u32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put_f32(b: &mut Vec<u8>, v: f32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put_f64(b: &mut Vec<u8>, v: f64) {
    b.extend_from_slice(&v.to_le_bytes());
}

/// Little-endian field reader over a fixed-field block (the caller has
/// checked its length).
pub(crate) struct Fields<'a>(pub &'a [u8]);

impl Fields<'_> {
    pub(crate) fn u8(&self, at: usize) -> u8 {
        self.0[at]
    }
    pub(crate) fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes([self.0[at], self.0[at + 1]])
    }
    pub(crate) fn u32(&self, at: usize) -> u32 {
        let mut a = [0u8; 4];
        a.copy_from_slice(&self.0[at..at + 4]);
        u32::from_le_bytes(a)
    }
    pub(crate) fn u64(&self, at: usize) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&self.0[at..at + 8]);
        u64::from_le_bytes(a)
    }
    pub(crate) fn f32(&self, at: usize) -> f32 {
        f32::from_bits(self.u32(at))
    }
    pub(crate) fn f64(&self, at: usize) -> f64 {
        f64::from_bits(self.u64(at))
    }
}

/// The file header: magic, version, flags, the metadata (JSON), its CRC.
pub fn encode_file_header(meta: &serde_json::Value) -> Vec<u8> {
    let json = serde_json::to_vec(meta).unwrap_or_else(|_| b"{}".to_vec());
    let mut b = Vec::with_capacity(FILE_HEADER_FIXED + json.len() + 4);
    b.extend_from_slice(&FILE_MAGIC);
    put_u16(&mut b, VERSION);
    put_u16(&mut b, 0);
    put_u32(&mut b, json.len() as u32);
    b.extend_from_slice(&json);
    let crc = crate::crc32::crc32(&b);
    put_u32(&mut b, crc);
    b
}

/// Appends a record (header, fixed fields, payload) to `out`.
pub fn encode_record(out: &mut Vec<u8>, record_type: u8, fixed: &[u8], payload: &[u8]) {
    let start = out.len();
    out.extend_from_slice(&RECORD_MAGIC);
    out.push(record_type);
    out.push(0);
    put_u16(out, fixed.len() as u16);
    put_u32(out, payload.len() as u32);
    let mut crc = Crc32::new();
    crc.update(&out[start..start + 12]);
    crc.update(fixed);
    crc.update(payload);
    put_u32(out, crc.finish());
    out.extend_from_slice(fixed);
    out.extend_from_slice(payload);
}

/// The fixed fields of a frame record.
pub fn frame_fixed(m: &FrameMeta, image: &ImageInfo) -> Vec<u8> {
    let mut b = Vec::with_capacity(FRAME_FIXED);
    put_u64(&mut b, m.seq);
    put_u64(&mut b, m.frame);
    let (kind, index) = match m.kind {
        FrameKind::Game => (0, 0),
        FrameKind::Generated { index, .. } => (1, index),
    };
    b.push(kind);
    b.push(index);
    // A generated frame's `of` is the decision's `generated` (one byte for both).
    b.push(m.decision.generated);
    b.push(u8::from(m.decision.engaged) | (u8::from(m.decision.reset) << 1));
    b.push(m.decision.state.code());
    b.push(0);
    put_u16(&mut b, m.decision.presents);
    put_u32(&mut b, m.presents);
    put_u32(&mut b, m.refreshes);
    put_u64(&mut b, m.first_refresh);
    put_f64(&mut b, m.present_s);
    put_f64(&mut b, m.shown_s);
    put_f64(&mut b, m.acquire_wait_s);
    let (total, flow) = m
        .gpu
        .map_or((f32::NAN, f32::NAN), |g| (g.total_ms, g.flow_ms));
    put_f32(&mut b, total);
    put_f32(&mut b, flow);
    put_u32(&mut b, image.width);
    put_u32(&mut b, image.height);
    b.push(image.format);
    b.push(image.scale);
    put_u16(&mut b, 0);
    put_u32(&mut b, image.bytes);
    debug_assert_eq!(b.len(), FRAME_FIXED);
    b
}

/// Why a frame record's fixed fields are not usable: the field and value.
pub(crate) type FieldError = (&'static str, u64);

/// Decodes a frame record's fixed fields (at least [`FRAME_FIXED`] bytes).
pub(crate) fn decode_frame_fixed(f: &Fields<'_>) -> Result<(FrameMeta, ImageInfo), FieldError> {
    let kind_code = f.u8(16);
    let index = f.u8(17);
    let count = f.u8(18);
    let flags = f.u8(19);
    let state_code = f.u8(20);
    let kind = match kind_code {
        0 => FrameKind::Game,
        1 => {
            if index >= count {
                return Err(("gen_index", u64::from(index)));
            }
            FrameKind::Generated { index, of: count }
        }
        k => return Err(("kind", u64::from(k))),
    };
    let state = PacerState::from_code(state_code).ok_or(("pacer_state", u64::from(state_code)))?;
    let total = f.f32(64);
    let flow = f.f32(68);
    let gpu = (!total.is_nan()).then_some(GpuTimes {
        total_ms: total,
        flow_ms: flow,
    });
    let meta = FrameMeta {
        seq: f.u64(0),
        frame: f.u64(8),
        kind,
        decision: PacerDecision {
            engaged: flags & 1 != 0,
            reset: flags & 2 != 0,
            presents: f.u16(22),
            generated: count,
            state,
        },
        presents: f.u32(24),
        refreshes: f.u32(28),
        first_refresh: f.u64(32),
        present_s: f.f64(40),
        shown_s: f.f64(48),
        acquire_wait_s: f.f64(56),
        gpu,
    };
    let image = ImageInfo {
        width: f.u32(72),
        height: f.u32(76),
        format: f.u8(80),
        scale: f.u8(81),
        bytes: f.u32(84),
    };
    match image.format {
        IMAGE_NONE => {}
        IMAGE_RGBA8 => {
            if image.width == 0 || image.width > MAX_IMAGE_SIDE {
                return Err(("image_width", u64::from(image.width)));
            }
            if image.height == 0 || image.height > MAX_IMAGE_SIDE {
                return Err(("image_height", u64::from(image.height)));
            }
            if u64::from(image.bytes) != u64::from(image.width) * u64::from(image.height) * 4 {
                return Err(("image_bytes", u64::from(image.bytes)));
            }
        }
        other => return Err(("image_format", u64::from(other))),
    }
    Ok((meta, image))
}

/// The fixed fields of a dropped record.
pub fn dropped_fixed(d: &Dropped) -> Vec<u8> {
    let mut b = Vec::with_capacity(DROPPED_FIXED);
    put_u64(&mut b, d.count);
    put_u64(&mut b, d.first_seq);
    put_u64(&mut b, d.last_seq);
    b
}

pub(crate) fn decode_dropped(f: &Fields<'_>) -> Dropped {
    Dropped {
        count: f.u64(0),
        first_seq: f.u64(8),
        last_seq: f.u64(16),
    }
}

/// The fixed fields of an end record.
pub fn end_fixed(e: &End) -> Vec<u8> {
    let mut b = Vec::with_capacity(END_FIXED);
    put_u64(&mut b, e.records);
    put_u64(&mut b, e.dropped);
    put_u64(&mut b, e.refreshes);
    put_f64(&mut b, e.seconds);
    put_u64(&mut b, e.submitted);
    b
}

pub(crate) fn decode_end(f: &Fields<'_>) -> End {
    End {
        records: f.u64(0),
        dropped: f.u64(8),
        refreshes: f.u64(16),
        seconds: f.f64(24),
        submitted: f.u64(32),
    }
}
