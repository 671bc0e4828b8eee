//! The RSX's command processor.
//!
//! The PPU writes RSX commands into a buffer in main memory it has mapped
//! into the RSX's IO address space, then moves the PUT pointer of the
//! control register (`CellGcmControl`: put, get, ref). [`Rsx::run`] reads
//! commands from GET up to PUT, as the RSX's front end does, and publishes
//! GET as it goes. A command is a header word (`count << 18 | method`,
//! bit 30: the method does not increment) and its arguments, or a jump
//! (`0x20000000 | offset`, `offset | 1`), a call (`offset | 2`), a return
//! (`0x00020000`).
//!
//! The methods a flip and its synchronisation need are executed: the
//! reference (`NV406E_SET_REFERENCE`, written to the control register's
//! `ref`), semaphores and labels (`NV406E_SEMAPHORE_OFFSET` / `_ACQUIRE`
//! / `_RELEASE`, `NV4097_SET_SEMAPHORE_OFFSET`,
//! `NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE`,
//! `NV4097_TEXTURE_READ_SEMAPHORE_RELEASE`) and the flip
//! (`GCM_FLIP_COMMAND`): the display buffer, read from RSX local memory as
//! X8R8G8B8, goes to the [`FrameSink`] as RGBA. Every other method's
//! value is kept in the register file (drawing is the renderer's job).

pub mod methods;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use guest_mem::GuestMemory;

use methods::*;

/// A frame the game flipped: RGBA, 8 bits a channel, rows top to bottom.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
    /// Which display buffer (0..7).
    pub buffer: u32,
    /// The flip's number (1 for the first).
    pub flip: u64,
    /// When it was flipped (µs of the host's clock, [`Host::now_us`]).
    pub time_us: u64,
}

/// Where flipped frames go (the present loop). `present` may block: that
/// holds the RSX, and through flip status and labels the game, to the
/// present loop's pace.
pub trait FrameSink: Send + Sync {
    /// Takes one frame.
    fn present(&self, frame: Frame);
}

/// What the RSX needs from its surroundings.
pub trait Host: Send + Sync {
    /// Guest memory.
    fn memory(&self) -> &GuestMemory;
    /// Whether to keep going (the process lives).
    fn running(&self) -> bool;
    /// Microseconds of a monotonic clock.
    fn now_us(&self) -> u64;
    /// Waits a little for the PPU (nothing to do, or a semaphore to wait on).
    fn idle(&self);
    /// A flip happened (the flip handler runs from here).
    fn flipped(&self, buffer: u32);
}

/// A display buffer (`cellGcmSetDisplayBuffer`): in RSX local memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisplayBuffer {
    /// Offset in local memory.
    pub offset: u32,
    /// Bytes per row.
    pub pitch: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// `CELL_GCM_DISPLAY_FLIP_STATUS_DONE`.
pub const FLIP_STATUS_DONE: u32 = 0;
/// `CELL_GCM_DISPLAY_FLIP_STATUS_WAITING`.
pub const FLIP_STATUS_WAITING: u32 = 1;

/// Where the RSX's state is in guest memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The control register (`put`, `get`, `ref`, big-endian words).
    pub control: u32,
    /// Label 0 (label `i` is at `labels + 0x10 * i`; semaphore offsets are
    /// byte offsets from here).
    pub labels: u32,
    /// RSX local memory's guest address (offset 0).
    pub local_base: u32,
    /// Its size.
    pub local_size: u32,
}

/// How far one call of [`Rsx::step`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Executed one command.
    Command,
    /// GET equals PUT: nothing to do.
    Idle,
    /// Waiting for a semaphore (`NV406E_SEMAPHORE_ACQUIRE`).
    Waiting,
    /// GET points outside the IO map, or at unreadable memory; the FIFO
    /// stops there (the message names the offset).
    Stuck,
}

#[derive(Debug, Default)]
struct FifoState {
    get: u32,
    stack: Vec<u32>,
    sem_front: u32,
    sem_back: u32,
    /// A semaphore acquire in progress: (label offset, value).
    waiting: Option<(u32, u32)>,
    stuck_at: Option<u32>,
}

/// The RSX.
pub struct Rsx {
    host: Arc<dyn Host>,
    layout: Layout,
    io: RwLock<Vec<(u32, u32, u32)>>,
    buffers: Mutex<[Option<DisplayBuffer>; 8]>,
    flip_status: AtomicU32,
    flips: AtomicU64,
    last_flip_us: AtomicU64,
    sink: Option<Arc<dyn FrameSink>>,
    fifo: Mutex<FifoState>,
    regs: Mutex<Vec<u32>>,
    unknown: Mutex<HashSet<u32>>,
    stop: AtomicBool,
}

/// Converts rows of X8R8G8B8 (big-endian: X, R, G, B bytes) to RGBA.
pub fn xrgb_to_rgba(src: &[u8], dst: &mut Vec<u8>) {
    dst.reserve(src.len());
    for px in src.chunks_exact(4) {
        dst.extend_from_slice(&[px[1], px[2], px[3], 0xFF]);
    }
}

impl Rsx {
    /// An RSX whose state is at `layout`, sending frames to `sink`.
    pub fn new(host: Arc<dyn Host>, layout: Layout, sink: Option<Arc<dyn FrameSink>>) -> Rsx {
        Rsx {
            host,
            layout,
            io: RwLock::new(Vec::new()),
            buffers: Mutex::new([None; 8]),
            flip_status: AtomicU32::new(FLIP_STATUS_DONE),
            flips: AtomicU64::new(0),
            last_flip_us: AtomicU64::new(0),
            sink,
            fifo: Mutex::new(FifoState::default()),
            regs: Mutex::new(vec![0; 0x1_0000 / 4]),
            unknown: Mutex::new(HashSet::new()),
            stop: AtomicBool::new(false),
        }
    }

    /// Its layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Maps `size` bytes of main memory at `ea` to IO offset `io`.
    pub fn map_io(&self, ea: u32, io: u32, size: u32) {
        let mut m = self.io.write().unwrap_or_else(|e| e.into_inner());
        m.retain(|&(i, _, s)| i + s <= io || io + size <= i);
        m.push((io, ea, size));
    }

    /// Removes the IO mapping at `io`.
    pub fn unmap_io(&self, io: u32) -> bool {
        let mut m = self.io.write().unwrap_or_else(|e| e.into_inner());
        let n = m.len();
        m.retain(|&(i, _, _)| i != io);
        m.len() != n
    }

    /// The guest address of IO offset `io`.
    pub fn io_to_ea(&self, io: u32) -> Option<u32> {
        let m = self.io.read().unwrap_or_else(|e| e.into_inner());
        m.iter()
            .find(|&&(i, _, s)| io >= i && io - i < s)
            .map(|&(i, ea, _)| ea + (io - i))
    }

    /// The IO offset of guest address `ea` (main memory mapped for the RSX).
    pub fn ea_to_io(&self, ea: u32) -> Option<u32> {
        let m = self.io.read().unwrap_or_else(|e| e.into_inner());
        m.iter()
            .find(|&&(_, e, s)| ea >= e && ea - e < s)
            .map(|&(i, e, _)| i + (ea - e))
    }

    /// Sets display buffer `id` (0..7).
    pub fn set_display_buffer(&self, id: usize, b: DisplayBuffer) {
        if let Some(slot) = self
            .buffers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(id)
        {
            *slot = Some(b);
        }
    }

    /// Display buffer `id`.
    pub fn display_buffer(&self, id: usize) -> Option<DisplayBuffer> {
        self.buffers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .copied()
            .flatten()
    }

    /// The flip status (`cellGcmGetFlipStatus`).
    pub fn flip_status(&self) -> u32 {
        self.flip_status.load(Ordering::Acquire)
    }

    /// Sets the flip status (`cellGcmResetFlipStatus`: waiting).
    pub fn set_flip_status(&self, s: u32) {
        self.flip_status.store(s, Ordering::Release);
    }

    /// How many flips have happened.
    pub fn flips(&self) -> u64 {
        self.flips.load(Ordering::Acquire)
    }

    /// When the last flip happened ([`Host::now_us`]).
    pub fn last_flip_us(&self) -> u64 {
        self.last_flip_us.load(Ordering::Acquire)
    }

    /// The register file's value of `method` (what the FIFO last wrote).
    pub fn register(&self, method: u32) -> u32 {
        self.regs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get((method / 4) as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Makes [`Rsx::run`] return.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    fn mem(&self) -> &GuestMemory {
        self.host.memory()
    }

    fn control_word(&self, off: u32) -> u32 {
        self.mem()
            .try_read_u32(self.layout.control + off)
            .unwrap_or(0)
    }

    fn set_control_word(&self, off: u32, v: u32) {
        if let Err(e) = self.mem().try_write_u32(self.layout.control + off, v) {
            log::error!("RSX control register: {e}");
        }
    }

    /// Resets GET (and the call stack) to `get` (the FIFO's start).
    pub fn reset(&self, get: u32) {
        let mut f = self.fifo.lock().unwrap_or_else(|e| e.into_inner());
        *f = FifoState {
            get,
            ..FifoState::default()
        };
        self.set_control_word(4, get);
    }

    /// Runs the command processor until the host stops running (call it on
    /// its own thread).
    pub fn run(&self) {
        while self.host.running() && !self.stop.load(Ordering::Acquire) {
            match self.step() {
                Step::Command => {}
                Step::Idle | Step::Waiting | Step::Stuck => self.host.idle(),
            }
        }
    }

    /// Executes at most one command.
    pub fn step(&self) -> Step {
        let mut f = self.fifo.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((off, value)) = f.waiting {
            let label = self
                .mem()
                .try_read_u32(self.layout.labels.wrapping_add(off))
                .unwrap_or(!value);
            if label != value {
                return Step::Waiting;
            }
            f.waiting = None;
        }
        let put = self.control_word(0);
        if f.get == put {
            return Step::Idle;
        }
        let get = f.get;
        let Some(ea) = self.io_to_ea(get) else {
            self.stuck(&mut f, get, "is outside the IO map");
            return Step::Stuck;
        };
        let Ok(cmd) = self.mem().try_read_u32(ea) else {
            self.stuck(
                &mut f,
                get,
                &format!("(guest address {ea:#010x}) is not readable"),
            );
            return Step::Stuck;
        };
        f.stuck_at = None;
        if cmd & 0xE000_0003 == 0x2000_0000 {
            f.get = cmd & 0x1FFF_FFFC;
        } else if cmd & 3 == 1 {
            f.get = cmd & 0xFFFF_FFFC;
        } else if cmd & 3 == 2 {
            if f.stack.len() >= 16 {
                self.stuck(&mut f, get, "calls more than 16 levels deep");
                return Step::Stuck;
            }
            f.stack.push(get + 4);
            f.get = cmd & 0xFFFF_FFFC;
        } else if cmd == 0x0002_0000 {
            match f.stack.pop() {
                Some(r) => f.get = r,
                None => {
                    log::warn!(
                        "RSX FIFO: return at IO offset {get:#x} with an empty call stack: ignored"
                    );
                    f.get = get + 4;
                }
            }
        } else if cmd == 0 {
            f.get = get + 4;
        } else {
            let count = (cmd >> 18) & 0x7FF;
            let method = cmd & 0xFFFC;
            let non_increment = cmd & 0x4000_0000 != 0;
            let mut args = Vec::with_capacity(count as usize);
            for i in 0..count {
                let a = get + 4 + 4 * i;
                match self
                    .io_to_ea(a)
                    .and_then(|ea| self.mem().try_read_u32(ea).ok())
                {
                    Some(v) => args.push(v),
                    None => {
                        self.stuck(&mut f, a, "(an argument) is not readable");
                        return Step::Stuck;
                    }
                }
            }
            f.get = get + 4 + 4 * count;
            for (i, &arg) in args.iter().enumerate() {
                let m = if non_increment {
                    method
                } else {
                    method + 4 * i as u32
                };
                self.method(&mut f, m, arg);
            }
        }
        let g = f.get;
        drop(f);
        self.set_control_word(4, g);
        Step::Command
    }

    fn stuck(&self, f: &mut FifoState, at: u32, why: &str) {
        if f.stuck_at != Some(at) {
            log::error!("RSX FIFO stopped: IO offset {at:#x} {why}");
            f.stuck_at = Some(at);
        }
    }

    fn write_label(&self, off: u32, v: u32) {
        if let Err(e) = self
            .mem()
            .try_write_u32(self.layout.labels.wrapping_add(off), v)
        {
            log::error!("RSX semaphore at label offset {off:#x}: {e}");
        }
    }

    fn method(&self, f: &mut FifoState, m: u32, arg: u32) {
        if let Some(r) = self
            .regs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut((m / 4) as usize)
        {
            *r = arg;
        }
        match m {
            NV406E_SET_REFERENCE => self.set_control_word(8, arg),
            NV406E_SEMAPHORE_OFFSET => f.sem_front = arg,
            NV406E_SEMAPHORE_ACQUIRE => f.waiting = Some((f.sem_front, arg)),
            NV406E_SEMAPHORE_RELEASE => self.write_label(f.sem_front, arg),
            NV4097_SET_SEMAPHORE_OFFSET => f.sem_back = arg,
            NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE => {
                self.write_label(f.sem_back, swizzle_back_end(arg))
            }
            NV4097_TEXTURE_READ_SEMAPHORE_RELEASE => self.write_label(f.sem_back, arg),
            GCM_FLIP_COMMAND => self.flip(arg),
            GCM_FLIP_HEAD | GCM_FLIP_HEAD_1 => self.flip(arg & 7),
            _ => {
                if !is_known(m)
                    && self
                        .unknown
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(m)
                {
                    log::debug!("RSX method {m:#06x} ({arg:#x}) kept in the register file only");
                }
            }
        }
    }

    /// Flips to display buffer `id`: the frame goes to the sink, the flip
    /// status becomes done.
    pub fn flip(&self, id: u32) {
        let n = self.flips.fetch_add(1, Ordering::AcqRel) + 1;
        let now = self.host.now_us();
        match self.display_buffer(id as usize) {
            Some(b) => {
                if let Some(sink) = &self.sink {
                    match self.read_frame(&b) {
                        Some(rgba) => sink.present(Frame {
                            width: b.width,
                            height: b.height,
                            rgba,
                            buffer: id,
                            flip: n,
                            time_us: now,
                        }),
                        None => log::error!(
                            "flip {n}: display buffer {id} ({b:?}) is not readable local memory"
                        ),
                    }
                }
            }
            None => log::warn!("flip {n} to display buffer {id}, which was never set"),
        }
        self.last_flip_us.store(now, Ordering::Release);
        self.flip_status.store(FLIP_STATUS_DONE, Ordering::Release);
        self.host.flipped(id);
    }

    /// Reads display buffer `b` as RGBA.
    pub fn read_frame(&self, b: &DisplayBuffer) -> Option<Vec<u8>> {
        let row = b.width.checked_mul(4)?;
        if b.pitch < row
            || u64::from(b.offset) + u64::from(b.pitch) * u64::from(b.height)
                > u64::from(self.layout.local_size)
        {
            return None;
        }
        let mut rgba = Vec::with_capacity((row * b.height) as usize);
        let mut line = vec![0u8; row as usize];
        for y in 0..b.height {
            let ea = self.layout.local_base + b.offset + y * b.pitch;
            self.mem().read_bytes(ea, &mut line).ok()?;
            xrgb_to_rgba(&line, &mut rgba);
        }
        Some(rgba)
    }
}

/// The back end writes its semaphore value with bytes 0 and 2 swapped.
pub fn swizzle_back_end(v: u32) -> u32 {
    (v & 0xFF00_FF00) | ((v >> 16) & 0xFF) | ((v & 0xFF) << 16)
}
