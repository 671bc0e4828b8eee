//! cellGcmSys: the RSX as libgcm sees it. `_cellGcmInitBody` maps the IO
//! area (main memory the RSX reads commands from) and 256 MiB of RSX local
//! memory at 0xC0000000, sets up the context (command buffer), the control
//! register and the labels in the RSX context area, and starts the FIFO
//! processor ([`rsx::Rsx`]) on its own thread, an interrupt PPU thread for
//! the flip and vblank handlers, and a 59.94 Hz vblank.
//!
//! Layout (as RPCS3 records LV2's): context at 0x40000000, control
//! register at 0x40100040, labels at 0x40300000 (label `i` at
//! `+0x10 * i`).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use guest_mem::{GuestMemory, Prot};
use lv2::layout::{RSX_CONTEXT_BASE, RSX_CONTEXT_SIZE, RSX_LOCAL_BASE, RSX_LOCAL_SIZE};
use lv2::sync::lock;
use lv2::{CellError, Process};
use rsx::{DisplayBuffer, FLIP_STATUS_WAITING, Layout, Rsx};

use crate::args::Ptr;
use crate::{Cx, Registry};

const MODULE: &str = "cellGcmSys";
/// `CELL_GCM_ERROR_FAILURE`.
pub const ERROR_FAILURE: CellError = CellError(0x8021_00FF);
/// `CELL_GCM_ERROR_INVALID_VALUE`.
pub const ERROR_INVALID_VALUE: CellError = CellError(0x8021_0003);
/// `CELL_GCM_ERROR_ADDRESS_OVERWRAP`.
pub const ERROR_ADDRESS_OVERWRAP: CellError = CellError(0x8021_0005);
/// The control register's address.
pub const CONTROL_ADDR: u32 = RSX_CONTEXT_BASE + 0x10_0040;
/// Label 0's address.
pub const LABEL_ADDR: u32 = RSX_CONTEXT_BASE + 0x30_0000;
/// The vblank period (59.94 Hz).
pub const VBLANK_US: u64 = 16_683;

enum Interrupt {
    Flip,
    VBlank,
}

struct Gcm {
    rsx: Arc<Rsx>,
    io_address: u32,
    io_size: u32,
    context: u32,
}

/// cellGcmSys's state.
#[derive(Default)]
pub struct State {
    gcm: OnceLock<Gcm>,
    init: Mutex<()>,
    flip_handler: AtomicU32,
    vblank_handler: AtomicU32,
    vblanks: AtomicU64,
    flip_mode: AtomicU32,
    callback_index: AtomicU32,
}

impl State {
    /// How many flips the RSX has done (0 before `cellGcmInit`).
    pub fn flips(&self) -> u64 {
        self.gcm.get().map(|g| g.rsx.flips()).unwrap_or(0)
    }

    /// The RSX, once initialised.
    pub fn rsx(&self) -> Option<Arc<Rsx>> {
        self.gcm.get().map(|g| g.rsx.clone())
    }

    /// How many vblanks have passed since `cellGcmInit`.
    pub fn vblanks(&self) -> u64 {
        self.vblanks.load(Ordering::Acquire)
    }
}

/// Registers the module's functions. `cellGcmCallback` (the command
/// buffer's wrap callback, which the context names) has no import of its
/// own; `runner` binds its descriptor.
pub fn register(r: &mut Registry) {
    r.add(MODULE, "_cellGcmInitBody", init_body);
    r.add(MODULE, "cellGcmCallback", gcm_callback);
    r.add(MODULE, "cellGcmGetControlRegister", |_: &mut Cx<'_>| {
        CONTROL_ADDR
    });
    r.add(MODULE, "cellGcmGetConfiguration", get_configuration);
    r.add(MODULE, "cellGcmAddressToOffset", address_to_offset);
    r.add(MODULE, "cellGcmIoOffsetToAddress", io_offset_to_address);
    r.add(MODULE, "cellGcmMapMainMemory", map_main_memory);
    r.add(MODULE, "cellGcmSetDisplayBuffer", set_display_buffer);
    r.add(MODULE, "cellGcmGetFlipStatus", |cx: &mut Cx<'_>| {
        cx.rt
            .modules
            .gcm
            .rsx()
            .map(|r| r.flip_status())
            .unwrap_or(0)
    });
    r.add(MODULE, "cellGcmResetFlipStatus", |cx: &mut Cx<'_>| {
        if let Some(r) = cx.rt.modules.gcm.rsx() {
            r.set_flip_status(FLIP_STATUS_WAITING);
        }
    });
    r.add(
        MODULE,
        "cellGcmSetFlipMode",
        |cx: &mut Cx<'_>, mode: u32| cx.rt.modules.gcm.flip_mode.store(mode, Ordering::Relaxed),
    );
    r.add(MODULE, "cellGcmSetFlip", set_flip);
    r.add(MODULE, "cellGcmSetFlipCommand", set_flip);
    r.add(
        MODULE,
        "cellGcmGetLabelAddress",
        |_: &mut Cx<'_>, index: u8| LABEL_ADDR + 0x10 * u32::from(index),
    );
    r.add(MODULE, "cellGcmGetLastFlipTime", |cx: &mut Cx<'_>| {
        cx.rt
            .modules
            .gcm
            .rsx()
            .map(|r| r.last_flip_us())
            .unwrap_or(0)
    });
    r.add(
        MODULE,
        "cellGcmGetDefaultCommandWordSize",
        |_: &mut Cx<'_>| 0x400u32,
    );
    r.add(
        MODULE,
        "cellGcmGetDefaultSegmentWordSize",
        |_: &mut Cx<'_>| 0x100u32,
    );
    r.add(
        MODULE,
        "cellGcmSetFlipHandler",
        |cx: &mut Cx<'_>, handler: u32| {
            cx.rt
                .modules
                .gcm
                .flip_handler
                .store(handler, Ordering::Release)
        },
    );
    r.add(
        MODULE,
        "cellGcmSetVBlankHandler",
        |cx: &mut Cx<'_>, handler: u32| {
            cx.rt
                .modules
                .gcm
                .vblank_handler
                .store(handler, Ordering::Release)
        },
    );
    r.add(MODULE, "cellGcmGetTiledPitchSize", get_tiled_pitch_size);
    r.add(
        MODULE,
        "cellGcmSetDebugOutputLevel",
        |_: &mut Cx<'_>, _level: i32| (),
    );
}

/// Remembers the HLE index of `cellGcmCallback` (the runner resolves it
/// before the first call).
pub fn set_callback_index(state: &State, index: u32) {
    state.callback_index.store(index, Ordering::Release);
}

struct RsxHost {
    process: Arc<Process>,
}

impl rsx::Host for RsxHost {
    fn memory(&self) -> &GuestMemory {
        self.process.mem
    }
    fn running(&self) -> bool {
        !self.process.has_exited()
    }
    fn now_us(&self) -> u64 {
        self.process.system_time_us()
    }
    fn idle(&self) {
        self.process.platform.sleep(Duration::from_micros(100));
    }
    fn flipped(&self, _buffer: u32) {}
}

/// `_cellGcmInitBody(CellGcmContextData** context, cmdSize, ioSize, ioAddress)`.
fn init_body(
    cx: &mut Cx<'_>,
    context: Ptr,
    cmd_size: u32,
    io_size: u32,
    io_address: u32,
) -> Result<(), CellError> {
    let state = &cx.rt.modules.gcm;
    let _g = lock(&state.init);
    if state.gcm.get().is_some() {
        log::error!("_cellGcmInitBody called twice");
        return Err(ERROR_FAILURE);
    }
    if io_address & 0xF_FFFF != 0
        || io_size & 0xF_FFFF != 0
        || io_size == 0
        || cmd_size > io_size
        || cmd_size < 0x2000
    {
        log::error!(
            "_cellGcmInitBody: IO area {io_address:#x}+{io_size:#x} (command buffer {cmd_size:#x}) is not 1 MiB-aligned or too small"
        );
        return Err(ERROR_FAILURE);
    }
    let p = cx.process();
    let vm = cx.t.vm();
    vm.check_writable(context.0, 4)?;
    vm.check_readable(io_address, io_size)?;
    for (base, size) in [
        (RSX_CONTEXT_BASE, RSX_CONTEXT_SIZE),
        (RSX_LOCAL_BASE, RSX_LOCAL_SIZE),
    ] {
        if p.mem.prot_at(base).is_empty() {
            p.mem.map(base, u64::from(size), Prot::RW).map_err(|e| {
                log::error!("mapping RSX memory at {base:#x}: {e}");
                CellError::ENOMEM
            })?;
        }
    }
    // The context: 4 KiB reserved at the start of the IO area, the last
    // word kept for the jump back.
    let ctx_addr = RSX_CONTEXT_BASE;
    let begin = io_address + 0x1000;
    let end = io_address + cmd_size - 4;
    let callback = p.bind_hle_descriptor(state.callback_index.load(Ordering::Acquire))?;
    for (off, v) in [(0, begin), (4, end), (8, begin), (12, callback)] {
        vm.write_u32(ctx_addr + off, v)?;
    }
    vm.write_u32(CONTROL_ADDR, 0x1000)?;
    vm.write_u32(CONTROL_ADDR + 4, 0x1000)?;
    vm.write_u32(CONTROL_ADDR + 8, 0xFFFF_FFFF)?;
    let layout = Layout {
        control: CONTROL_ADDR,
        labels: LABEL_ADDR,
        local_base: RSX_LOCAL_BASE,
        local_size: RSX_LOCAL_SIZE,
    };
    let rsx = Arc::new(Rsx::new(
        Arc::new(RsxHost { process: p.clone() }),
        layout,
        cx.rt.hooks.frame_sink.clone(),
    ));
    rsx.map_io(io_address, 0, io_size);
    rsx.reset(0x1000);
    let (tx, rx) = channel();
    let gcm = Gcm {
        rsx: rsx.clone(),
        io_address,
        io_size,
        context: ctx_addr,
    };
    if state.gcm.set(gcm).is_err() {
        return Err(ERROR_FAILURE);
    }
    let r2 = rsx.clone();
    p.platform
        .spawn("rsx-fifo", 1 << 20, Box::new(move || r2.run()))
        .map_err(|e| {
            log::error!("{e}");
            ERROR_FAILURE
        })?;
    start_interrupt_thread(cx, &p, rx)?;
    start_vblank(cx, &p, tx);
    vm.write_u32(context.0, ctx_addr)?;
    log::info!(
        "cellGcm: IO area {io_address:#x}+{io_size:#x}, command buffer {cmd_size:#x}, local memory {RSX_LOCAL_BASE:#x}+{RSX_LOCAL_SIZE:#x}"
    );
    Ok(())
}

/// The interrupt PPU thread: runs the flip and vblank handlers.
fn start_interrupt_thread(
    cx: &Cx<'_>,
    p: &Arc<Process>,
    rx: Receiver<Interrupt>,
) -> Result<(), CellError> {
    let mut t = Box::new(p.service_thread("_gcm_intr_thread", 1, 0x4000)?);
    let rt = cx.rt.self_arc();
    p.platform
        .spawn(
            "gcm-interrupt",
            8 << 20,
            Box::new(move || {
                while let Ok(i) = rx.recv() {
                    if t.process.has_exited() {
                        break;
                    }
                    let handler = match i {
                        Interrupt::Flip => rt.modules.gcm.flip_handler.load(Ordering::Acquire),
                        Interrupt::VBlank => rt.modules.gcm.vblank_handler.load(Ordering::Acquire),
                    };
                    if handler != 0 && lv2::call_guest(&mut t, handler, &[1]).is_err() {
                        break;
                    }
                }
            }),
        )
        .map_err(|e| {
            log::error!("{e}");
            ERROR_FAILURE
        })
}

/// The 59.94 Hz vblank: counts, and runs the vblank handler; the flip
/// handler runs after each flip (the RSX's flips are noticed here too,
/// within a millisecond).
fn start_vblank(cx: &Cx<'_>, p: &Arc<Process>, tx: Sender<Interrupt>) {
    let rt = cx.rt.self_arc();
    let p2 = p.clone();
    let spawned = p.platform.spawn(
        "gcm-vblank",
        256 << 10,
        Box::new(move || {
            let start = p2.system_time_us();
            let mut flips_seen = 0;
            let mut next = start + VBLANK_US;
            while !p2.has_exited() {
                let now = p2.system_time_us();
                let flips = rt.modules.gcm.flips();
                if flips != flips_seen {
                    flips_seen = flips;
                    if rt.modules.gcm.flip_handler.load(Ordering::Acquire) != 0 {
                        let _ = tx.send(Interrupt::Flip);
                    }
                }
                if now >= next {
                    rt.modules.gcm.vblanks.fetch_add(1, Ordering::AcqRel);
                    next += VBLANK_US;
                    if rt.modules.gcm.vblank_handler.load(Ordering::Acquire) != 0 {
                        let _ = tx.send(Interrupt::VBlank);
                    }
                }
                p2.platform.sleep(Duration::from_micros(
                    1000.min(next.saturating_sub(now)).max(100),
                ));
            }
        }),
    );
    if let Err(e) = spawned {
        log::error!("{e}");
    }
}

fn gcm_of<'a>(cx: &'a Cx<'_>) -> Result<&'a Gcm, CellError> {
    cx.rt.modules.gcm.gcm.get().ok_or_else(|| {
        log::warn!("cellGcm used before cellGcmInit");
        ERROR_FAILURE
    })
}

/// `cellGcmGetConfiguration(CellGcmConfig* config)`.
fn get_configuration(cx: &mut Cx<'_>, config: Ptr) -> Result<(), CellError> {
    let g = gcm_of(cx)?;
    let words = [
        RSX_LOCAL_BASE,
        g.io_address,
        RSX_LOCAL_SIZE,
        g.io_size,
        650_000_000,
        500_000_000,
    ];
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    cx.t.vm().write_bytes(config.0, &b)
}

/// The RSX offset of `addr`: local memory offset, or IO offset.
fn offset_of(g: &Gcm, addr: u32) -> Option<u32> {
    if addr.wrapping_sub(RSX_LOCAL_BASE) < RSX_LOCAL_SIZE {
        return Some(addr - RSX_LOCAL_BASE);
    }
    g.rsx.ea_to_io(addr)
}

/// `cellGcmAddressToOffset(address, u32* offset)`.
fn address_to_offset(cx: &mut Cx<'_>, addr: u32, out: Ptr) -> Result<(), CellError> {
    let g = gcm_of(cx)?;
    let off = offset_of(g, addr).ok_or(ERROR_FAILURE)?;
    cx.t.vm().write_u32(out.0, off)
}

/// `cellGcmIoOffsetToAddress(ioOffset, u32* address)`.
fn io_offset_to_address(cx: &mut Cx<'_>, io: u32, out: Ptr) -> Result<(), CellError> {
    let g = gcm_of(cx)?;
    let ea = g.rsx.io_to_ea(io).ok_or(ERROR_FAILURE)?;
    cx.t.vm().write_u32(out.0, ea)
}

/// `cellGcmMapMainMemory(address, size, u32* offset)`: maps more main
/// memory into the IO space, after what is mapped.
fn map_main_memory(cx: &mut Cx<'_>, ea: u32, size: u32, out: Ptr) -> Result<(), CellError> {
    let g = gcm_of(cx)?;
    if ea & 0xF_FFFF != 0 || size & 0xF_FFFF != 0 || size == 0 {
        return Err(ERROR_FAILURE);
    }
    cx.t.vm().check_readable(ea, size)?;
    let mut io = g.io_size;
    while (0..size)
        .step_by(0x10_0000)
        .any(|o| g.rsx.io_to_ea(io + o).is_some())
    {
        io += 0x10_0000;
    }
    if u64::from(io) + u64::from(size) > 0x1000_0000 {
        return Err(CellError::ENOMEM);
    }
    g.rsx.map_io(ea, io, size);
    cx.t.vm().write_u32(out.0, io)
}

/// `cellGcmSetDisplayBuffer(id, offset, pitch, width, height)`.
fn set_display_buffer(
    cx: &mut Cx<'_>,
    id: u8,
    offset: u32,
    pitch: u32,
    width: u32,
    height: u32,
) -> Result<(), CellError> {
    let g = gcm_of(cx)?;
    if id > 7
        || pitch < width * 4
        || u64::from(offset) + u64::from(pitch) * u64::from(height) > u64::from(RSX_LOCAL_SIZE)
    {
        return Err(ERROR_FAILURE);
    }
    g.rsx.set_display_buffer(
        usize::from(id),
        DisplayBuffer {
            offset,
            pitch,
            width,
            height,
        },
    );
    Ok(())
}

/// Makes room for `words` words in the context at `ctx` (the wrap
/// callback when needed).
fn reserve(cx: &mut Cx<'_>, ctx: u32, words: u32) -> Result<u32, CellError> {
    let vm = cx.t.vm();
    let (current, end) = (vm.read_u32(ctx + 8)?, vm.read_u32(ctx + 4)?);
    if current + 4 * words <= end {
        return Ok(current);
    }
    wrap(cx, ctx)?;
    cx.t.vm().read_u32(ctx + 8)
}

/// `cellGcmSetFlip(CellGcmContextData* ctx, id)`: writes the flip command
/// and, for the default context, makes everything written so far visible
/// to the RSX (PUT).
fn set_flip(cx: &mut Cx<'_>, ctx: Ptr, id: u32) -> Result<(), CellError> {
    if id > 7 {
        return Err(ERROR_FAILURE);
    }
    let default_ctx = gcm_of(cx)?.context;
    let at = reserve(cx, ctx.0, 2)?;
    let vm = cx.t.vm();
    vm.write_u32(at, (1 << 18) | rsx::methods::GCM_FLIP_COMMAND)?;
    vm.write_u32(at + 4, id)?;
    vm.write_u32(ctx.0 + 8, at + 8)?;
    if ctx.0 == default_ctx {
        let g = gcm_of(cx)?;
        let put = offset_of(g, at + 8).ok_or(ERROR_ADDRESS_OVERWRAP)?;
        std::sync::atomic::fence(Ordering::SeqCst);
        cx.t.vm().write_u32(CONTROL_ADDR, put)?;
    }
    Ok(())
}

/// The command buffer is full: let the RSX drain it, jump back to its
/// beginning, and start writing there.
fn wrap(cx: &mut Cx<'_>, ctx: u32) -> Result<(), CellError> {
    let g = gcm_of(cx)?;
    let rsx = g.rsx.clone();
    let vm = cx.t.vm();
    let (begin, current) = (vm.read_u32(ctx)?, vm.read_u32(ctx + 8)?);
    let (begin_off, cur_off) = match (offset_of(g, begin), offset_of(g, current)) {
        (Some(a), Some(b)) => (a, b),
        _ => return Err(ERROR_ADDRESS_OVERWRAP),
    };
    let p = cx.process();
    // Everything written so far, then wait for the RSX to be there.
    vm.write_u32(CONTROL_ADDR, cur_off)?;
    while vm.read_u32(CONTROL_ADDR + 4)? != cur_off {
        if p.has_exited() {
            return Err(ERROR_FAILURE);
        }
        p.platform.sleep(Duration::from_micros(50));
    }
    vm.write_u32(current, 0x2000_0000 | begin_off)?;
    vm.write_u32(CONTROL_ADDR, begin_off)?;
    vm.write_u32(ctx + 8, begin)?;
    drop(rsx);
    Ok(())
}

/// `cellGcmCallback(CellGcmContextData* ctx, count)`: the default
/// context's callback when a command does not fit.
fn gcm_callback(cx: &mut Cx<'_>, ctx: Ptr, _count: u32) -> Result<(), CellError> {
    wrap(cx, ctx.0)
}

/// `cellGcmGetTiledPitchSize(size)`: the smallest tiled pitch that holds
/// `size` bytes.
fn get_tiled_pitch_size(_cx: &mut Cx<'_>, size: u32) -> u32 {
    const PITCHES: [u32; 33] = [
        0, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700, 0x800, 0xA00, 0xC00, 0xD00, 0xE00, 0x1000,
        0x1400, 0x1800, 0x1A00, 0x1C00, 0x2000, 0x2800, 0x3000, 0x3400, 0x3800, 0x4000, 0x5000,
        0x6000, 0x6800, 0x7000, 0x8000, 0xA000, 0xC000, 0xD000, 0xE000, 0x10000,
    ];
    PITCHES
        .windows(2)
        .find(|w| w[0] < size && size <= w[1])
        .map(|w| w[1])
        .unwrap_or(0)
}
