//! Reading a dump: the header, then one record at a time, each checked
//! (magic, lengths, CRC) before it is handed out. A truncated or corrupt
//! file gives a [`ReadError`] naming the byte offset, the record and what
//! is wrong; [`verify`] also names the last good record.

use std::io::{BufReader, Read};
use std::path::Path;

use crate::crc32::Crc32;
use crate::format::{self, Dropped, End, Fields, FrameMeta, Image, ImageInfo};

/// Why a dump could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file does not start with the dump magic.
    #[error("not a frame dump: the file starts with {found:02x?}, not \"CPFGDUMP\"")]
    NotADump {
        /// The first bytes.
        found: Vec<u8>,
    },
    /// A version this reader does not know.
    #[error("dump format version {found}; this reader knows version {known}")]
    Version {
        /// The file's version.
        found: u16,
        /// The version this reader reads.
        known: u16,
    },
    /// The header is damaged.
    #[error("header, byte {offset}: {what}")]
    Header {
        /// Byte offset of the problem.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The file ends inside a record.
    #[error(
        "truncated: the file ends at byte {file_end}, inside record #{index} which starts at \
         byte {record_start} and needs {needed} bytes"
    )]
    Truncated {
        /// Index of the record (from 0, all types).
        index: u64,
        /// Byte offset of the record's start.
        record_start: u64,
        /// Bytes the record needs from its start (as far as known).
        needed: u64,
        /// The file's length.
        file_end: u64,
    },
    /// A record does not start with the record magic.
    #[error(
        "record #{index} at byte {record_start}: no record magic (found {found:02x?}): the file is corrupt here"
    )]
    RecordMagic {
        /// Index of the record.
        index: u64,
        /// Byte offset.
        record_start: u64,
        /// The bytes found.
        found: [u8; 4],
    },
    /// A record's CRC does not match its bytes.
    #[error(
        "record #{index} at byte {record_start}: checksum mismatch (stored {stored:#010x}, \
         computed {computed:#010x}): the record is corrupt"
    )]
    Checksum {
        /// Index of the record.
        index: u64,
        /// Byte offset.
        record_start: u64,
        /// The CRC in the file.
        stored: u32,
        /// The CRC of the bytes.
        computed: u32,
    },
    /// A field with a value the format does not allow.
    #[error("record #{index} at byte {record_start}: field {field} = {value} is not valid")]
    Field {
        /// Index of the record.
        index: u64,
        /// Byte offset.
        record_start: u64,
        /// The field's name (as README.md names it).
        field: &'static str,
        /// Its value.
        value: u64,
    },
    /// A frame record's image does not decompress to its size.
    #[error("record #{index} at byte {record_start}: image: {what}")]
    Image {
        /// Index of the record.
        index: u64,
        /// Byte offset.
        record_start: u64,
        /// What is wrong.
        what: String,
    },
}

impl ReadError {
    /// The byte offset the error is about, where it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            ReadError::Header { offset, .. } => Some(*offset),
            ReadError::Truncated { record_start, .. }
            | ReadError::RecordMagic { record_start, .. }
            | ReadError::Checksum { record_start, .. }
            | ReadError::Field { record_start, .. }
            | ReadError::Image { record_start, .. } => Some(*record_start),
            _ => None,
        }
    }
}

/// The file header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The format version.
    pub version: u16,
    /// The metadata (a JSON object; README.md lists the keys).
    pub meta: serde_json::Value,
    /// Bytes of the header; the first record starts here.
    pub len: u64,
}

/// A frame record as read: its fields, its image's description and the
/// compressed image.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameRecord {
    /// The fields.
    pub meta: FrameMeta,
    /// The image's description.
    pub image: ImageInfo,
    /// The zstd-compressed image (empty without an image).
    pub payload: Vec<u8>,
}

impl FrameRecord {
    /// Decompresses the image (`None` when the record has none).
    pub fn decode_image(&self) -> Result<Option<Image>, String> {
        if self.image.format == format::IMAGE_NONE {
            return Ok(None);
        }
        let want = self.image.bytes as usize;
        let rgba = zstd::bulk::decompress(&self.payload, want).map_err(|e| format!("zstd: {e}"))?;
        if rgba.len() != want {
            return Err(format!(
                "decompressed to {} bytes, the record says {want}",
                rgba.len()
            ));
        }
        Ok(Some(Image {
            width: self.image.width,
            height: self.image.height,
            scale: self.image.scale,
            rgba,
        }))
    }
}

/// One record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A picture that was on screen.
    Frame(FrameRecord),
    /// Records the writer dropped.
    Dropped(Dropped),
    /// The end, with totals.
    End(End),
}

/// Where a record is in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Index from 0, all record types counted.
    pub index: u64,
    /// Byte offset of its start.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
}

/// Reads a dump record by record.
pub struct DumpReader<R: Read> {
    r: R,
    offset: u64,
    index: u64,
    header: Header,
    file_len: Option<u64>,
    fixed: Vec<u8>,
}

impl DumpReader<BufReader<std::fs::File>> {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<Self, ReadError> {
        let io = |source| ReadError::Io {
            path: path.display().to_string(),
            source,
        };
        let f = std::fs::File::open(path).map_err(io)?;
        let len = f.metadata().map_err(io)?.len();
        let mut r = DumpReader::new(BufReader::with_capacity(1 << 20, f))?;
        r.file_len = Some(len);
        Ok(r)
    }
}

fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

impl<R: Read> DumpReader<R> {
    /// Reads the header from `r`.
    pub fn new(mut r: R) -> Result<Self, ReadError> {
        let io = |source| ReadError::Io {
            path: "dump".into(),
            source,
        };
        let mut fixed = [0u8; format::FILE_HEADER_FIXED];
        let got = read_full(&mut r, &mut fixed).map_err(io)?;
        if got < 8 || fixed[..8] != format::FILE_MAGIC {
            return Err(ReadError::NotADump {
                found: fixed[..got.min(8)].to_vec(),
            });
        }
        if got < fixed.len() {
            return Err(ReadError::Header {
                offset: got as u64,
                what: "the file ends inside the header".into(),
            });
        }
        let f = Fields(&fixed);
        let version = f.u16(8);
        if version != format::VERSION {
            return Err(ReadError::Version {
                found: version,
                known: format::VERSION,
            });
        }
        let flags = f.u16(10);
        if flags != 0 {
            return Err(ReadError::Header {
                offset: 10,
                what: format!("flags = {flags:#x}, version 1 has none"),
            });
        }
        let meta_len = f.u32(12);
        if meta_len > format::MAX_META_BYTES {
            return Err(ReadError::Header {
                offset: 12,
                what: format!(
                    "metadata length {meta_len} is above {}",
                    format::MAX_META_BYTES
                ),
            });
        }
        let mut rest = vec![0u8; meta_len as usize + 4];
        let got = read_full(&mut r, &mut rest).map_err(io)?;
        if got < rest.len() {
            return Err(ReadError::Header {
                offset: (format::FILE_HEADER_FIXED + got) as u64,
                what: format!(
                    "the file ends inside the header (it needs {} bytes)",
                    format::FILE_HEADER_FIXED + rest.len()
                ),
            });
        }
        let (json, crc_bytes) = rest.split_at(meta_len as usize);
        let mut crc = Crc32::new();
        crc.update(&fixed);
        crc.update(json);
        let stored = Fields(crc_bytes).u32(0);
        if crc.finish() != stored {
            return Err(ReadError::Header {
                offset: (format::FILE_HEADER_FIXED + json.len()) as u64,
                what: format!(
                    "header checksum mismatch (stored {stored:#010x}, computed {:#010x})",
                    crc.finish()
                ),
            });
        }
        let meta: serde_json::Value =
            serde_json::from_slice(json).map_err(|e| ReadError::Header {
                offset: format::FILE_HEADER_FIXED as u64,
                what: format!("metadata is not JSON: {e}"),
            })?;
        let len = (format::FILE_HEADER_FIXED + rest.len()) as u64;
        Ok(DumpReader {
            r,
            offset: len,
            index: 0,
            header: Header { version, meta, len },
            file_len: None,
            fixed: Vec::new(),
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn truncated(&self, needed: u64, got: u64) -> ReadError {
        ReadError::Truncated {
            index: self.index,
            record_start: self.offset,
            needed,
            file_end: self.file_len.unwrap_or(self.offset + got),
        }
    }

    /// The next record and where it is; `None` at the end of the file
    /// (which is only a proper end after an [`Record::End`]).
    pub fn next_record(&mut self) -> Result<Option<(Record, Position)>, ReadError> {
        let io = |source| ReadError::Io {
            path: "dump".into(),
            source,
        };
        let start = self.offset;
        let index = self.index;
        let mut head = [0u8; format::RECORD_HEADER];
        let got = read_full(&mut self.r, &mut head).map_err(io)?;
        if got == 0 {
            return Ok(None);
        }
        if got >= 4 && head[..4] != format::RECORD_MAGIC {
            return Err(ReadError::RecordMagic {
                index,
                record_start: start,
                found: [head[0], head[1], head[2], head[3]],
            });
        }
        if got < head.len() {
            return Err(self.truncated(format::RECORD_HEADER as u64, got as u64));
        }
        let h = Fields(&head);
        let record_type = h.u8(4);
        let fixed_len = usize::from(h.u16(6));
        let payload_len = h.u32(8);
        let stored = h.u32(12);
        let field = |field, value| ReadError::Field {
            index,
            record_start: start,
            field,
            value,
        };
        let min_fixed = match record_type {
            format::TYPE_FRAME => format::FRAME_FIXED,
            format::TYPE_DROPPED => format::DROPPED_FIXED,
            format::TYPE_END => format::END_FIXED,
            t => return Err(field("type", u64::from(t))),
        };
        if fixed_len < min_fixed {
            return Err(field("fixed_len", fixed_len as u64));
        }
        if payload_len > format::MAX_PAYLOAD_BYTES
            || (record_type != format::TYPE_FRAME && payload_len != 0)
        {
            return Err(field("payload_len", u64::from(payload_len)));
        }
        let body_len = fixed_len + payload_len as usize;
        let total = (format::RECORD_HEADER + body_len) as u64;
        // A length beyond the end of the file is a truncation.
        if let Some(len) = self.file_len
            && start + total > len
        {
            return Err(self.truncated(total, len - start));
        }
        let mut body = std::mem::take(&mut self.fixed);
        body.resize(body_len, 0);
        let got = read_full(&mut self.r, &mut body).map_err(io)?;
        if got < body_len {
            return Err(self.truncated(total, (format::RECORD_HEADER + got) as u64));
        }
        let mut crc = Crc32::new();
        crc.update(&head[..12]);
        crc.update(&body);
        if crc.finish() != stored {
            return Err(ReadError::Checksum {
                index,
                record_start: start,
                stored,
                computed: crc.finish(),
            });
        }
        let f = Fields(&body[..fixed_len]);
        let record = match record_type {
            format::TYPE_FRAME => {
                let (meta, image) =
                    format::decode_frame_fixed(&f).map_err(|(name, value)| field(name, value))?;
                if (image.format == format::IMAGE_NONE) != (payload_len == 0) {
                    return Err(field("payload_len", u64::from(payload_len)));
                }
                Record::Frame(FrameRecord {
                    meta,
                    image,
                    payload: body[fixed_len..].to_vec(),
                })
            }
            format::TYPE_DROPPED => Record::Dropped(format::decode_dropped(&f)),
            _ => Record::End(format::decode_end(&f)),
        };
        self.fixed = body;
        self.offset += total;
        self.index += 1;
        Ok(Some((
            record,
            Position {
                index,
                offset: start,
                len: total,
            },
        )))
    }
}

/// A record, briefly, for messages ("record #12 at byte 4096: frame 5,
/// gen1of1").
#[derive(Debug, Clone, PartialEq)]
pub struct RecordSummary {
    /// Where it is.
    pub position: Position,
    /// What it is.
    pub what: String,
}

impl std::fmt::Display for RecordSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "record #{} at byte {} ({} bytes): {}",
            self.position.index, self.position.offset, self.position.len, self.what
        )
    }
}

/// Describes a record in a few words.
pub fn describe(record: &Record) -> String {
    match record {
        Record::Frame(fr) => format!(
            "frame {} {}, refresh {} for {}",
            fr.meta.frame,
            fr.meta.kind.label(),
            fr.meta.first_refresh,
            fr.meta.refreshes
        ),
        Record::Dropped(d) => format!("{} dropped (seq {}..={})", d.count, d.first_seq, d.last_seq),
        Record::End(e) => format!("end: {} records, {} dropped", e.records, e.dropped),
    }
}

/// What [`verify`] found.
#[derive(Debug)]
pub struct VerifyReport {
    /// The header, when it could be read.
    pub header: Option<Header>,
    /// Records read and checked.
    pub records: u64,
    /// Frame records among them.
    pub frames: u64,
    /// The last record that checked out.
    pub last_good: Option<RecordSummary>,
    /// The end record, when reached.
    pub end: Option<End>,
    /// The first problem, if any.
    pub error: Option<String>,
    /// Byte offset of the problem, where it has one.
    pub error_offset: Option<u64>,
}

impl VerifyReport {
    /// Whether the whole file checked out.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
}

/// Reads the whole file, checking every record's CRC and fields, every
/// image's decompression, the submission numbers (every one written or
/// counted as dropped) and that the file ends with its end record.
pub fn verify(path: &Path) -> VerifyReport {
    let mut rep = VerifyReport {
        header: None,
        records: 0,
        frames: 0,
        last_good: None,
        end: None,
        error: None,
        error_offset: None,
    };
    let mut reader = match DumpReader::open(path) {
        Ok(r) => r,
        Err(e) => {
            rep.error_offset = e.offset();
            rep.error = Some(e.to_string());
            return rep;
        }
    };
    rep.header = Some(reader.header().clone());
    let mut next_seq = 0u64;
    let mut dropped = 0u64;
    loop {
        let (record, pos) = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => {
                if rep.end.is_none() {
                    rep.error_offset = Some(reader.offset());
                    rep.error = Some(format!(
                        "the file ends at byte {} without an end record: the writer did not finish \
                         (the program stopped, or the file was cut on a record boundary)",
                        reader.offset()
                    ));
                }
                break;
            }
            Err(e) => {
                rep.error_offset = e.offset();
                rep.error = Some(e.to_string());
                break;
            }
        };
        let bad = |what: String| {
            (
                Some(pos.offset),
                Some(format!(
                    "record #{} at byte {}: {what}",
                    pos.index, pos.offset
                )),
            )
        };
        let problem = if rep.end.is_some() {
            Some(bad("a record after the end record".into()))
        } else {
            match &record {
                Record::Frame(fr) => {
                    if fr.meta.seq != next_seq {
                        Some(bad(format!(
                            "submission number {} where {next_seq} was expected (records missing \
                             without a dropped record)",
                            fr.meta.seq
                        )))
                    } else {
                        next_seq += 1;
                        fr.decode_image().err().map(|e| bad(format!("image: {e}")))
                    }
                }
                Record::Dropped(d) => {
                    if d.first_seq != next_seq
                        || d.last_seq < d.first_seq
                        || d.count != d.last_seq - d.first_seq + 1
                    {
                        Some(bad(format!(
                            "dropped record {}..={} (count {}) does not follow submission {}",
                            d.first_seq, d.last_seq, d.count, next_seq
                        )))
                    } else {
                        next_seq = d.last_seq + 1;
                        dropped += d.count;
                        None
                    }
                }
                Record::End(e) => {
                    if e.submitted != next_seq || e.dropped != dropped || e.records != rep.frames {
                        Some(bad(format!(
                            "end record says {} submitted, {} records, {} dropped; the file has {}, \
                             {}, {}",
                            e.submitted, e.records, e.dropped, next_seq, rep.frames, dropped
                        )))
                    } else {
                        rep.end = Some(*e);
                        None
                    }
                }
            }
        };
        if let Some((offset, msg)) = problem {
            rep.error_offset = offset;
            rep.error = msg;
            break;
        }
        if matches!(record, Record::Frame(_)) {
            rep.frames += 1;
        }
        rep.records += 1;
        rep.last_good = Some(RecordSummary {
            position: pos,
            what: describe(&record),
        });
    }
    rep
}
