//! The writer: a bounded queue and a thread that compresses and writes, so
//! the present loop never waits on the file.
//!
//! [`DumpWriter::submit`] hands a record to the queue without blocking.
//! When the queue is full the record is dropped and counted: every record
//! offered gets a submission number (`seq`), the thread writes a
//! [`crate::Dropped`] record for each gap before the next record it writes,
//! and the end record carries the total. Image buffers come back from the
//! thread for reuse ([`DumpWriter::take_buffer`]), so a long run allocates
//! nothing once the queue has filled once.
//!
//! The file is any `std::io::Write + Send` ([`DumpWriter::new`]): a
//! `std::fs::File` on the desktop ([`DumpWriter::create`]), the console's
//! own file API there.

use std::io::Write;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use crate::format::{self, Dropped, End, FrameMeta, Image, ImageInfo};

/// The default queue length, in records: one second of records at 119.88 Hz.
pub const DEFAULT_QUEUE_RECORDS: usize = 120;

/// The default zstd level: fast, and still 5-20x smaller on rendered frames.
pub const DEFAULT_ZSTD_LEVEL: i32 = 1;

/// How the writer is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterConfig {
    /// Records the queue holds before it drops (at least 1).
    pub queue_records: usize,
    /// zstd compression level (1 fast .. 19 small).
    pub zstd_level: i32,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            queue_records: DEFAULT_QUEUE_RECORDS,
            zstd_level: DEFAULT_ZSTD_LEVEL,
        }
    }
}

/// Why writing failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The file could not be created or written.
    #[error("{path}: {source}")]
    Io {
        /// The file (or "dump sink" for a caller's writer).
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// zstd failed.
    #[error("zstd compression failed: {0}")]
    Compress(std::io::Error),
    /// The writer thread could not be started, or panicked.
    #[error("the dump writer thread {0}")]
    Thread(&'static str),
    /// An image whose size does not match its width and height.
    #[error("image of {width}x{height} has {bytes} bytes, not width x height x 4")]
    ImageSize {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Bytes given.
        bytes: usize,
    },
}

/// What the writer did, from [`DumpWriter::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteStats {
    /// Frame records written.
    pub records: u64,
    /// Records dropped (queue full, or after a write error).
    pub dropped: u64,
    /// Bytes written to the file.
    pub bytes: u64,
    /// Image bytes before compression.
    pub image_bytes: u64,
    /// Image bytes after compression.
    pub compressed_bytes: u64,
    /// The most records that were waiting in the queue at once.
    pub max_queued: u64,
}

enum Msg {
    Frame(FrameMeta, Option<Image>),
    Finish {
        submitted: u64,
        refreshes: u64,
        seconds: f64,
    },
}

/// The dump writer. Dropping it without [`DumpWriter::finish`] finishes it
/// with zero refreshes and logs any error.
pub struct DumpWriter {
    tx: Option<SyncSender<Msg>>,
    recycle: Receiver<Vec<u8>>,
    spare: Vec<Vec<u8>>,
    thread: Option<JoinHandle<Result<WriteStats, WriteError>>>,
    queued: std::sync::Arc<std::sync::atomic::AtomicU64>,
    next_seq: u64,
    dropped: u64,
    max_queued: u64,
}

impl DumpWriter {
    /// Creates `path` and writes the header with `meta` (a JSON object; see
    /// README.md for the keys readers use).
    pub fn create(
        path: &Path,
        meta: &serde_json::Value,
        config: WriterConfig,
    ) -> Result<DumpWriter, WriteError> {
        let file = std::fs::File::create(path).map_err(|source| WriteError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::new(
            Box::new(std::io::BufWriter::with_capacity(1 << 20, file)),
            path.display().to_string(),
            meta,
            config,
        )
    }

    /// Writes the header with `meta` to `sink`, then starts the writer
    /// thread. `name` names the sink in errors.
    pub fn new(
        mut sink: Box<dyn Write + Send>,
        name: String,
        meta: &serde_json::Value,
        config: WriterConfig,
    ) -> Result<DumpWriter, WriteError> {
        let io = |source| WriteError::Io {
            path: name.clone(),
            source,
        };
        let header = format::encode_file_header(meta);
        sink.write_all(&header).map_err(io)?;
        let (tx, rx) = sync_channel::<Msg>(config.queue_records.max(1));
        let (recycle_tx, recycle) = std::sync::mpsc::channel();
        let queued = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut thread = WriterThread {
            sink,
            name,
            level: config.zstd_level,
            stats: WriteStats {
                bytes: header.len() as u64,
                ..WriteStats::default()
            },
            next_seq: 0,
            buf: Vec::new(),
            recycle: recycle_tx,
            queued: queued.clone(),
        };
        let handle = std::thread::Builder::new()
            .name("fgdump-writer".into())
            .spawn(move || thread.run(rx))
            .map_err(|_| WriteError::Thread("could not be started"))?;
        Ok(DumpWriter {
            tx: Some(tx),
            recycle,
            spare: Vec::new(),
            thread: Some(handle),
            queued,
            next_seq: 0,
            dropped: 0,
            max_queued: 0,
        })
    }

    /// A buffer of `len` bytes for an image, reused from records already
    /// written where one is back (contents unspecified).
    pub fn take_buffer(&mut self, len: usize) -> Vec<u8> {
        while let Ok(b) = self.recycle.try_recv() {
            if self.spare.len() < 8 {
                self.spare.push(b);
            }
        }
        let mut b = self.spare.pop().unwrap_or_default();
        b.resize(len, 0);
        b
    }

    /// Offers a record; never blocks. `meta.seq` is set here. Returns false
    /// when the record was dropped (the queue was full, or the writer
    /// stopped after an error): the drop is counted and recorded in the
    /// file.
    pub fn submit(&mut self, mut meta: FrameMeta, image: Option<Image>) -> bool {
        meta.seq = self.next_seq;
        self.next_seq += 1;
        let Some(tx) = &self.tx else {
            self.dropped += 1;
            return false;
        };
        let depth = self
            .queued
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        match tx.try_send(Msg::Frame(meta, image)) {
            Ok(()) => {
                self.max_queued = self.max_queued.max(depth);
                true
            }
            Err(
                TrySendError::Full(Msg::Frame(_, img))
                | TrySendError::Disconnected(Msg::Frame(_, img)),
            ) => {
                self.queued
                    .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                self.dropped += 1;
                if let Some(img) = img
                    && self.spare.len() < 8
                {
                    self.spare.push(img.rgba);
                }
                false
            }
            Err(_) => {
                self.dropped += 1;
                false
            }
        }
    }

    /// Records offered so far.
    pub fn submitted(&self) -> u64 {
        self.next_seq
    }

    /// Records dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Records waiting in the queue now.
    pub fn queued(&self) -> u64 {
        self.queued.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Writes what is queued, the end record (with the display's
    /// `refreshes` and clock `seconds`), flushes, and stops the thread.
    pub fn finish(mut self, refreshes: u64, seconds: f64) -> Result<WriteStats, WriteError> {
        self.finish_inner(refreshes, seconds)
    }

    fn finish_inner(&mut self, refreshes: u64, seconds: f64) -> Result<WriteStats, WriteError> {
        let Some(handle) = self.thread.take() else {
            return Ok(WriteStats::default());
        };
        if let Some(tx) = self.tx.take() {
            // Blocking is fine here: the run is over.
            let _ = tx.send(Msg::Finish {
                submitted: self.next_seq,
                refreshes,
                seconds,
            });
        }
        let mut stats = handle
            .join()
            .map_err(|_| WriteError::Thread("panicked"))??;
        stats.dropped = self.dropped;
        stats.max_queued = self.max_queued;
        Ok(stats)
    }
}

impl Drop for DumpWriter {
    fn drop(&mut self) {
        if self.thread.is_some()
            && let Err(e) = self.finish_inner(0, 0.0)
        {
            log::error!("frame dump: {e}");
        }
    }
}

struct WriterThread {
    sink: Box<dyn Write + Send>,
    name: String,
    level: i32,
    stats: WriteStats,
    /// The submission number expected next.
    next_seq: u64,
    buf: Vec<u8>,
    recycle: std::sync::mpsc::Sender<Vec<u8>>,
    queued: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl WriterThread {
    fn run(&mut self, rx: Receiver<Msg>) -> Result<WriteStats, WriteError> {
        let mut compressor =
            zstd::bulk::Compressor::new(self.level).map_err(WriteError::Compress)?;
        let mut dropped_total = 0u64;
        let mut compressed = Vec::new();
        let result = loop {
            // Flush when idle, so the file is nearly current if the
            // process dies.
            let msg = match rx.try_recv() {
                Ok(m) => m,
                Err(_) => {
                    if let Err(e) = self.sink.flush() {
                        break Err(self.io(e));
                    }
                    match rx.recv() {
                        Ok(m) => m,
                        Err(_) => break Ok(None),
                    }
                }
            };
            match msg {
                Msg::Frame(meta, image) => {
                    self.queued
                        .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                    dropped_total += self.note_gap(meta.seq)?;
                    self.next_seq = meta.seq + 1;
                    let (info, payload) = match &image {
                        Some(img) => {
                            let bytes = img.rgba.len();
                            if bytes as u64 != u64::from(img.width) * u64::from(img.height) * 4 {
                                break Err(WriteError::ImageSize {
                                    width: img.width,
                                    height: img.height,
                                    bytes,
                                });
                            }
                            compressed.clear();
                            compressed.reserve(zstd::zstd_safe::compress_bound(bytes));
                            compressor
                                .compress_to_buffer(&img.rgba, &mut compressed)
                                .map_err(WriteError::Compress)?;
                            self.stats.image_bytes += bytes as u64;
                            self.stats.compressed_bytes += compressed.len() as u64;
                            (
                                ImageInfo {
                                    width: img.width,
                                    height: img.height,
                                    format: format::IMAGE_RGBA8,
                                    scale: img.scale,
                                    bytes: bytes as u32,
                                },
                                &compressed[..],
                            )
                        }
                        None => (ImageInfo::default(), &[][..]),
                    };
                    self.buf.clear();
                    let fixed = format::frame_fixed(&meta, &info);
                    format::encode_record(&mut self.buf, format::TYPE_FRAME, &fixed, payload);
                    if let Some(img) = image {
                        let _ = self.recycle.send(img.rgba);
                    }
                    self.write_buf()?;
                    self.stats.records += 1;
                }
                Msg::Finish {
                    submitted,
                    refreshes,
                    seconds,
                } => break Ok(Some((submitted, refreshes, seconds))),
            }
        };
        match result {
            Ok(Some((submitted, refreshes, seconds))) => {
                dropped_total += self.note_gap(submitted)?;
                self.buf.clear();
                let end = End {
                    records: self.stats.records,
                    dropped: dropped_total,
                    refreshes,
                    seconds,
                    submitted,
                };
                format::encode_record(
                    &mut self.buf,
                    format::TYPE_END,
                    &format::end_fixed(&end),
                    &[],
                );
                self.write_buf()?;
                self.sink.flush().map_err(|e| self.io(e))?;
                Ok(self.stats)
            }
            // The writer was dropped without a finish message: no end record.
            Ok(None) => {
                self.sink.flush().map_err(|e| self.io(e))?;
                Ok(self.stats)
            }
            Err(e) => Err(e),
        }
    }

    /// Writes a dropped record when submissions before `seq` are missing;
    /// returns how many.
    fn note_gap(&mut self, seq: u64) -> Result<u64, WriteError> {
        if seq <= self.next_seq {
            return Ok(0);
        }
        let d = Dropped {
            count: seq - self.next_seq,
            first_seq: self.next_seq,
            last_seq: seq - 1,
        };
        self.buf.clear();
        format::encode_record(
            &mut self.buf,
            format::TYPE_DROPPED,
            &format::dropped_fixed(&d),
            &[],
        );
        self.write_buf()?;
        self.next_seq = seq;
        Ok(d.count)
    }

    fn write_buf(&mut self) -> Result<(), WriteError> {
        self.sink.write_all(&self.buf).map_err(|e| self.io(e))?;
        self.stats.bytes += self.buf.len() as u64;
        Ok(())
    }

    fn io(&self, source: std::io::Error) -> WriteError {
        WriteError::Io {
            path: self.name.clone(),
            source,
        }
    }
}
