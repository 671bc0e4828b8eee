//! The present loop: per game frame, the pacer's decision, the game's
//! picture made into the shown picture (and copied into the interpolator),
//! the generated frames presented as the pacer says, the game's frame, the
//! drain, overlays on every present, flagged dump records, the status line.

use std::collections::VecDeque;

use ash::vk;
use framegen::{Config, FrameGen, GpuTime, VulkanContext};
use framegen_dump::{DumpWriter, FrameKind, FrameMeta, GpuTimes, Image, PacerDecision, PacerState};
use framegen_pacer::{Decision, Event, Pacer, State};

use crate::PresentError;
use crate::colour::VideoOutSettings;
use crate::display::{Display, DisplayInfo, Latched, PresentTag};
use crate::gpu::{self, CommandRing, HostBuffer, OwnedImage, vk_err};
use crate::overlay::{self, Notification};
use crate::scaler::Scaler;
use crate::status::{Status, StatusCounter};

/// Command buffers in flight at most (each present and each frame's own
/// work takes one).
const RING: usize = 12;

/// How the present loop runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PresentConfig {
    /// Frame generation on.
    pub framegen: bool,
    /// The multiplier: at most `multiplier - 1` generated frames between two
    /// of the game's (2 to 4).
    pub multiplier: u8,
    /// Draw the frame counter.
    pub frame_counter: bool,
    /// Dump images are the display size divided by this (1: full size).
    pub dump_scale: u32,
    /// A status line every this many seconds of display clock (0: none).
    pub status_every_s: f64,
    /// The interpolator's final optical-flow level (`None`: its choice by
    /// size; 1 or 2 are cheaper on a CPU driver).
    pub flow_level: Option<u32>,
}

impl Default for PresentConfig {
    fn default() -> Self {
        PresentConfig {
            framegen: true,
            multiplier: 2,
            frame_counter: true,
            dump_scale: 2,
            status_every_s: 5.0,
            flow_level: None,
        }
    }
}

/// One of the game's new frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameFrame {
    /// A view of the game's picture, which is in `GENERAL` layout and was
    /// written by work submitted earlier to the same queue.
    pub view: vk::ImageView,
    /// Its width.
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// Ticks of the game's clock since its last new frame (never time
    /// measured between presents).
    pub ticks: u32,
    /// That clock's rate.
    pub source_hz: f64,
    /// The game's video-out colour settings.
    pub settings: VideoOutSettings,
    /// A cut the game knows about (a new scene, a camera cut): nothing is
    /// interpolated across it (the interpolator's history starts over with
    /// this frame). The pacer keeps its plan: the refresh the generated
    /// frame would have had shows the last frame once more, as for a cut the
    /// interpolator's scene-change detection finds. After a load, call
    /// [`PresentLoop::reset_pacer`] instead.
    pub cut: bool,
    /// The game's speed, percent (an emulator's; a port passes 100).
    pub speed_pct: f64,
    /// The game's frame limiter runs at its nominal rate.
    pub limiter_nominal: bool,
}

/// What happened to one game frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameReport {
    /// The pacer's decision.
    pub decision: Decision,
    /// The pacer's state after it.
    pub state: State,
    /// How long the first acquire of the generated presents waited.
    pub first_acquire_wait_s: Option<f64>,
    /// Presents made for this frame (generated and the game's).
    pub presents: u32,
    /// A status line, when one is due.
    pub status: Option<Status>,
}

/// Counts over a whole run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunTotals {
    /// Game frames.
    pub frames: u64,
    /// Presents.
    pub presents: u64,
    /// Presents of generated frames.
    pub generated_presents: u64,
    /// Generated frames made.
    pub generated_frames: u64,
    /// Game frames per pacer state (by [`State::name`]).
    pub states: Vec<(&'static str, u64)>,
    /// Drains (first acquires that waited).
    pub drains: u64,
    /// The longest acquire wait, seconds.
    pub max_acquire_wait_s: f64,
    /// Refreshes each game frame stayed on screen: `(refreshes, frames)`.
    pub game_refreshes: Vec<(u32, u64)>,
    /// Refreshes each generated frame stayed on screen.
    pub generated_refreshes: Vec<(u32, u64)>,
    /// Mean GPU time of frame generation, ms (total, flow), and samples.
    pub gpu_mean_ms: Option<(f64, f64, u64)>,
    /// The longest GPU time, ms.
    pub gpu_max_ms: f64,
    /// Game frames the interpolator's scene-change detection found to be
    /// cuts (on those it shows the previous frame instead of an in-between
    /// one). Cuts the game reported are not tested, so not counted.
    pub scene_cuts_detected: u64,
    /// Cuts the game reported.
    pub cuts_reported: u64,
    /// Dump records written and dropped.
    pub dump: Option<framegen_dump::WriteStats>,
    /// Refreshes the display ran.
    pub refreshes: u64,
    /// The display clock at the end.
    pub seconds: f64,
}

/// A picture waiting to be recorded in the dump: its record's fields, its
/// image once read back, its stay on screen once it ended.
struct Picture {
    id: u64,
    meta: FrameMeta,
    image: Option<Image>,
    capture_pending: bool,
    shown: bool,
    closed: bool,
}

/// The read-back of a present's picture for the dump, per command slot.
struct CaptureSlot {
    buffer: HostBuffer,
    picture: Option<u64>,
}

fn hist_add(h: &mut Vec<(u32, u64)>, v: u32) {
    match h.iter_mut().find(|(k, _)| *k == v) {
        Some((_, n)) => *n += 1,
        None => {
            h.push((v, 1));
            h.sort_unstable();
        }
    }
}

/// The dump's code for a pacer state.
pub fn dump_state(s: State) -> PacerState {
    match s {
        State::Generating => PacerState::Generating,
        State::Priming => PacerState::Priming,
        State::WarmingUp { .. } => PacerState::WarmingUp,
        State::Uneven => PacerState::Uneven,
        State::NoRoom => PacerState::NoRoom,
        State::Paused { .. } => PacerState::Paused,
        State::Draining => PacerState::Draining,
        State::Disabled => PacerState::Disabled,
        State::LimiterNotNominal => PacerState::LimiterNotNominal,
        State::InvalidRates => PacerState::InvalidRates,
    }
}

/// The present loop for one display.
pub struct PresentLoop {
    ctx: VulkanContext,
    info: DisplayInfo,
    config: PresentConfig,
    ring: CommandRing,
    overlay_bufs: Vec<HostBuffer>,
    captures: Vec<CaptureSlot>,
    capture_image: Option<OwnedImage>,
    scaler: Scaler,
    fg: Option<FrameGen>,
    pacer: Pacer,
    writer: Option<DumpWriter>,
    pictures: VecDeque<Picture>,
    on_screen: Option<(u64, u64)>,
    latched: Vec<Latched>,
    next_present: u64,
    next_picture: u64,
    frame: u64,
    last_gpu: Option<GpuTime>,
    status: StatusCounter,
    notifications: Vec<Notification>,
    totals: RunTotals,
    gpu_sum: (f64, f64, u64),
    bgra: bool,
    overlay_scale: u32,
}

impl PresentLoop {
    /// Sets the loop up for `display` on the caller's device; `writer`
    /// receives the flagged dump records when given.
    pub fn new(
        ctx: &VulkanContext,
        display: &dyn Display,
        config: PresentConfig,
        writer: Option<DumpWriter>,
    ) -> Result<PresentLoop, PresentError> {
        let info = display.info();
        let bgra = match info.format {
            vk::Format::B8G8R8A8_UNORM | vk::Format::B8G8R8A8_SRGB => true,
            vk::Format::R8G8B8A8_UNORM | vk::Format::R8G8B8A8_SRGB => false,
            f => {
                return Err(PresentError::Other(format!(
                    "display format {f:?}: the present loop draws RGBA8 or BGRA8"
                )));
            }
        };
        let mut pacer = Pacer::with_multiplier(config.multiplier)
            .map_err(|e| PresentError::Other(e.to_string()))?;
        pacer.set_enabled(config.framegen);
        let device = &ctx.device;
        // SAFETY: the caller's live instance and physical device.
        let props = unsafe {
            ctx.instance
                .get_physical_device_memory_properties(ctx.physical_device)
        };
        let (w, h) = (info.mode.width, info.mode.height);
        let scaler = Scaler::new(device, &props, w, h)?;
        let fg = if config.framegen {
            let mut c = Config::new(w, h);
            c.frame_format = vk::Format::R8G8B8A8_UNORM;
            c.flow_level = config.flow_level;
            Some(FrameGen::new(ctx, &c).map_err(PresentError::FrameGen)?)
        } else {
            None
        };
        let ring = CommandRing::new(device, ctx.queue_family_index, RING)?;
        let overlay_scale = overlay::scale_for(h);
        // Room for the largest overlay box.
        let (bw, bh) = overlay::max_box(overlay_scale);
        let overlay_bytes = (bw.min(w) * bh.min(h) * 4) as usize;
        let mut overlay_bufs = Vec::with_capacity(RING);
        for _ in 0..RING {
            overlay_bufs.push(HostBuffer::new(
                device,
                &props,
                overlay_bytes,
                vk::BufferUsageFlags::TRANSFER_SRC,
            )?);
        }
        let (mut captures, mut capture_image) = (Vec::new(), None);
        if writer.is_some() {
            let s = config.dump_scale.max(1);
            let (cw, ch) = ((w / s).max(1), (h / s).max(1));
            capture_image = Some(OwnedImage::new(
                device,
                &props,
                vk::Format::R8G8B8A8_UNORM,
                cw,
                ch,
                vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC,
                false,
            )?);
            for _ in 0..RING {
                captures.push(CaptureSlot {
                    buffer: HostBuffer::new(
                        device,
                        &props,
                        (cw * ch * 4) as usize,
                        vk::BufferUsageFlags::TRANSFER_DST,
                    )?,
                    picture: None,
                });
            }
        }
        log::info!(
            "present loop: {} {} ({} images, {:?}), frame generation {}, x{}",
            info.name,
            info.mode,
            info.images,
            info.format,
            if config.framegen { "on" } else { "off" },
            config.multiplier
        );
        Ok(PresentLoop {
            ctx: ctx.clone(),
            info,
            config,
            ring,
            overlay_bufs,
            captures,
            capture_image,
            scaler,
            fg,
            pacer,
            writer,
            pictures: VecDeque::new(),
            on_screen: None,
            latched: Vec::new(),
            next_present: 0,
            next_picture: 0,
            frame: 0,
            last_gpu: None,
            status: StatusCounter::default(),
            notifications: Vec::new(),
            totals: RunTotals::default(),
            gpu_sum: (0.0, 0.0, 0),
            bgra,
            overlay_scale,
        })
    }

    /// The pacer (its state, events, hold).
    pub fn pacer(&self) -> &Pacer {
        &self.pacer
    }

    /// The display the loop was made for.
    pub fn display_info(&self) -> &DisplayInfo {
        &self.info
    }

    /// The interpolator's device memory, when frame generation is on.
    pub fn framegen_memory(&self) -> Option<framegen::MemoryUse> {
        self.fg.as_ref().map(FrameGen::memory)
    }

    /// The latency hold: the frame-rate limit to hold the game at so the
    /// swapchain queue stays empty (`frame_limit_fps`: the game's own limit;
    /// `user_limit_fps`: the user's second limit), or `None`.
    pub fn hold_fps(
        &self,
        frame_limit_fps: Option<f64>,
        user_limit_fps: Option<f64>,
    ) -> Option<f64> {
        self.pacer.hold(frame_limit_fps, user_limit_fps)
    }

    /// Starts the pacer over (after a load, or when the game starts again):
    /// nothing is generated for its warm-up frames.
    pub fn reset_pacer(&mut self) {
        self.pacer.reset();
    }

    /// Shows `text` in the overlay for `seconds` of display clock.
    pub fn notify(&mut self, display: &dyn Display, text: &str, seconds: f64) {
        self.notifications.push(Notification {
            text: text.to_string(),
            until_s: display.now_s() + seconds,
        });
    }

    /// Presents one of the game's new frames: the generated frames the
    /// pacer asks for, then the game's frame.
    pub fn present_frame(
        &mut self,
        display: &mut dyn Display,
        frame: &GameFrame,
    ) -> Result<FrameReport, PresentError> {
        let device = self.ctx.device.clone();
        let now = display.now_s();
        self.poll(display)?;
        let already = u32::from(self.frame > 0);
        let d = self.pacer.frame(
            frame.ticks,
            already,
            frame.source_hz,
            self.info.mode.hz(),
            now,
            frame.speed_pct,
            frame.limiter_nominal,
        );
        let state = self.pacer.state();
        while let Some(e) = self.pacer.take_event() {
            match e {
                Event::StateChanged { to, .. } => {
                    log::info!("pacer: {}", crate::status::reason(to))
                }
                other => log::info!("pacer: {other:?}"),
            }
        }
        let name = state.name();
        match self.totals.states.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => self.totals.states.push((name, 1)),
        }

        // The frame's own work: the shown picture, and into the interpolator.
        let (slot, cmd) = self.begin()?;
        self.scaler.record(
            &device,
            cmd,
            frame.view,
            frame.width,
            frame.height,
            frame.settings,
        )?;
        let mut made = false;
        let recorded = d.engaged && self.fg.is_some();
        if let Some(fg) = self.fg.as_mut().filter(|_| d.engaged) {
            fg.prepare(cmd);
            let region = [vk::ImageCopy {
                src_subresource: gpu::color_layers(),
                src_offset: vk::Offset3D::default(),
                dst_subresource: gpu::color_layers(),
                dst_offset: vk::Offset3D::default(),
                extent: vk::Extent3D {
                    width: self.info.mode.width,
                    height: self.info.mode.height,
                    depth: 1,
                },
            }];
            // SAFETY: `cmd` is recording; both images are RGBA8 of the
            // display's size in GENERAL layout (the interpolator's barriers
            // order its reads of the last frame before this write).
            unsafe {
                device.cmd_copy_image(
                    cmd,
                    self.scaler.picture.image,
                    vk::ImageLayout::GENERAL,
                    fg.frame_image(),
                    vk::ImageLayout::GENERAL,
                    &region,
                )
            };
            fg.set_generated(d.generated.max(1));
            made = fg.record(cmd, d.reset || frame.cut);
            if frame.cut && d.generated > 0 {
                log::debug!(
                    "frame {}: a cut, nothing interpolated across it",
                    self.frame
                );
            }
        }
        self.ring.submit(
            &device,
            self.ctx.queue,
            slot,
            vk::Semaphore::null(),
            vk::Semaphore::null(),
        )?;
        if frame.cut {
            self.totals.cuts_reported += 1;
        }
        if let Some(fg) = self.fg.as_mut() {
            let cuts = fg.take_scene_cuts();
            if !cuts.cut_frames.is_empty() {
                log::info!(
                    "framegen: scene cut detected at interpolator frame(s) {:?}",
                    cuts.cut_frames
                );
            }
            self.totals.scene_cuts_detected += cuts.cut_frames.len() as u64;
        }
        if let Some(fg) = self.fg.as_mut()
            && let Some(t) = fg.take_gpu_time()
        {
            self.status.add_gpu(&t);
            self.gpu_sum.0 += t.mean_ms * f64::from(t.count);
            self.gpu_sum.1 += t.flow_mean_ms * f64::from(t.count);
            self.gpu_sum.2 += u64::from(t.count);
            self.totals.gpu_max_ms = self.totals.gpu_max_ms.max(t.max_ms);
            self.last_gpu = Some(t);
        }

        let decision = PacerDecision {
            engaged: d.engaged,
            reset: d.reset,
            presents: d.presents.min(u32::from(u16::MAX)) as u16,
            generated: d.generated.min(255) as u8,
            state: dump_state(state),
        };
        let gpu = self.last_gpu.map(|g| GpuTimes {
            total_ms: g.mean_ms as f32,
            flow_ms: g.flow_mean_ms as f32,
        });
        let mut first_wait = None;
        let mut presents = 0u32;
        let generated = if made { d.generated } else { 0 };
        for i in 0..generated {
            let n = d.presents_of(i);
            if n == 0 {
                continue;
            }
            let picture = self.next_picture;
            self.next_picture += 1;
            self.totals.generated_frames += 1;
            for k in 0..n {
                let acq = display.acquire().map_err(PresentError::Display)?;
                if first_wait.is_none() {
                    first_wait = Some(acq.waited_s);
                    if self.pacer.drain(acq.waited_s) {
                        self.totals.drains += 1;
                        self.status.drains += 1;
                    }
                }
                self.totals.max_acquire_wait_s = self.totals.max_acquire_wait_s.max(acq.waited_s);
                let (slot, cmd) = self.begin()?;
                if k == 0
                    && i > 0
                    && let Some(fg) = self.fg.as_mut()
                {
                    fg.interpolate_next(cmd, i);
                }
                let kind = FrameKind::Generated {
                    index: i.min(255) as u8,
                    of: d.generated.min(255) as u8,
                };
                let src = self
                    .fg
                    .as_ref()
                    .map(FrameGen::output_image)
                    .unwrap_or_default();
                self.write_present(
                    display,
                    cmd,
                    slot,
                    src,
                    acq.image,
                    kind,
                    (k == 0).then_some(picture),
                )?;
                self.ring
                    .submit(&device, self.ctx.queue, slot, acq.wait, acq.signal)?;
                if k == 0 {
                    self.new_picture(
                        picture,
                        kind,
                        decision,
                        display.now_s(),
                        acq.waited_s,
                        gpu,
                        n,
                    );
                }
                self.present(display, acq.image, picture)?;
                presents += 1;
                self.totals.generated_presents += 1;
                self.status.generated += 1;
            }
        }

        // The game's frame.
        let acq = display.acquire().map_err(PresentError::Display)?;
        self.totals.max_acquire_wait_s = self.totals.max_acquire_wait_s.max(acq.waited_s);
        let picture = self.next_picture;
        self.next_picture += 1;
        let (slot, cmd) = self.begin()?;
        let src = self.scaler.picture.image;
        self.write_present(
            display,
            cmd,
            slot,
            src,
            acq.image,
            FrameKind::Game,
            Some(picture),
        )?;
        self.ring
            .submit(&device, self.ctx.queue, slot, acq.wait, acq.signal)?;
        self.new_picture(
            picture,
            FrameKind::Game,
            decision,
            display.now_s(),
            acq.waited_s,
            gpu,
            1,
        );
        self.present(display, acq.image, picture)?;
        presents += 1;

        if recorded && let Some(fg) = self.fg.as_mut() {
            fg.advance();
        }
        self.frame += 1;
        self.totals.frames += 1;
        self.status.frames += 1;
        self.poll(display)?;
        let dropped = self.writer.as_ref().map_or(0, DumpWriter::dropped);
        let status = self
            .status
            .take(display.now_s(), self.config.status_every_s, state, dropped);
        Ok(FrameReport {
            decision: d,
            state,
            first_acquire_wait_s: first_wait,
            presents,
            status,
        })
    }

    /// The next command buffer; a read-back still waiting in its slot is
    /// taken first (waiting for the GPU if it must), so none is lost.
    fn begin(&mut self) -> Result<(usize, vk::CommandBuffer), PresentError> {
        let device = self.ctx.device.clone();
        let next = self.ring.next_slot();
        if self.captures.get(next).is_some_and(|c| c.picture.is_some()) {
            self.ring.wait(&device, next)?;
            self.harvest(next);
        }
        self.ring.begin(&device)
    }

    #[allow(clippy::too_many_arguments)]
    fn new_picture(
        &mut self,
        id: u64,
        kind: FrameKind,
        decision: PacerDecision,
        present_s: f64,
        wait_s: f64,
        gpu: Option<GpuTimes>,
        presents: u32,
    ) {
        let meta = FrameMeta {
            seq: 0,
            frame: self.frame,
            kind,
            decision,
            presents,
            first_refresh: 0,
            refreshes: 0,
            present_s,
            shown_s: 0.0,
            acquire_wait_s: wait_s,
            gpu,
        };
        let capture_pending = self.captures.iter().any(|c| c.picture == Some(id));
        self.pictures.push_back(Picture {
            id,
            meta,
            image: None,
            capture_pending,
            shown: false,
            closed: false,
        });
    }

    fn present(
        &mut self,
        display: &mut dyn Display,
        image: u32,
        picture: u64,
    ) -> Result<(), PresentError> {
        let tag = PresentTag {
            present: self.next_present,
            picture,
        };
        self.next_present += 1;
        self.totals.presents += 1;
        self.status.presents += 1;
        display.present(image, tag).map_err(PresentError::Display)
    }

    /// Records the copy of `src` (display size, `GENERAL`) into swapchain
    /// image `image`, the overlay, and the dump's read-back when `capture`.
    #[allow(clippy::too_many_arguments)]
    fn write_present(
        &mut self,
        display: &dyn Display,
        cmd: vk::CommandBuffer,
        slot: usize,
        src: vk::Image,
        image: u32,
        kind: FrameKind,
        capture: Option<u64>,
    ) -> Result<(), PresentError> {
        let device = self.ctx.device.clone();
        let d = &device;
        let (w, h) = (self.info.mode.width, self.info.mode.height);
        let dst = *display.images().get(image as usize).ok_or_else(|| {
            PresentError::Other(format!(
                "the display acquired image {image}, which it does not have"
            ))
        })?;
        // The whole image is overwritten: its old contents do not matter.
        gpu::image_barrier(
            d,
            cmd,
            dst,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::GENERAL,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::MEMORY_READ,
            vk::AccessFlags::TRANSFER_WRITE,
        );
        gpu::blit(d, cmd, src, w, h, dst, w, h, vk::Filter::NEAREST);
        // The overlay.
        let now = display.now_s();
        self.notifications.retain(|n| n.until_s > now);
        let mut lines = Vec::new();
        if self.config.frame_counter {
            let generated_of = match kind {
                FrameKind::Game => None,
                FrameKind::Generated { index, of } => Some((u32::from(index), u32::from(of))),
            };
            lines.push(overlay::counter_line(self.frame, generated_of));
        }
        lines.extend(self.notifications.iter().map(|n| n.text.clone()));
        let buf = &mut self.overlay_bufs[slot];
        let (bw, bh) = overlay::max_box(self.overlay_scale);
        if let Some(b) = overlay::draw(&lines, self.overlay_scale, bw.min(w), bh.min(h), self.bgra)
        {
            buf.bytes_mut()[..b.pixels.len()].copy_from_slice(&b.pixels);
            let margin = 4 * self.overlay_scale;
            let region = [vk::BufferImageCopy {
                buffer_offset: 0,
                buffer_row_length: b.width,
                buffer_image_height: b.height,
                image_subresource: gpu::color_layers(),
                image_offset: vk::Offset3D {
                    x: margin.min(w - b.width) as i32,
                    y: margin.min(h - b.height) as i32,
                    z: 0,
                },
                image_extent: vk::Extent3D {
                    width: b.width,
                    height: b.height,
                    depth: 1,
                },
            }];
            gpu::memory_barrier(
                d,
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::AccessFlags::TRANSFER_WRITE,
            );
            // SAFETY: `cmd` is recording; the buffer holds the box; the
            // region lies inside the image.
            unsafe {
                d.cmd_copy_buffer_to_image(cmd, buf.buffer, dst, vk::ImageLayout::GENERAL, &region)
            };
        }
        // The dump's copy, downscaled.
        if let (Some(picture), Some(cap)) = (capture, self.capture_image.as_ref()) {
            let slot_cap = &mut self.captures[slot];
            gpu::memory_barrier(
                d,
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::TRANSFER_READ,
                vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE,
            );
            gpu::image_barrier(
                d,
                cmd,
                cap.image,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::GENERAL,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_READ,
                vk::AccessFlags::TRANSFER_WRITE,
            );
            let filter = if cap.width == w {
                vk::Filter::NEAREST
            } else {
                vk::Filter::LINEAR
            };
            gpu::blit(d, cmd, dst, w, h, cap.image, cap.width, cap.height, filter);
            gpu::memory_barrier(
                d,
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::AccessFlags::TRANSFER_READ,
            );
            let region = [gpu::whole_image_copy(cap.width, cap.height)];
            // SAFETY: `cmd` is recording; the buffer has room for the image.
            unsafe {
                d.cmd_copy_image_to_buffer(
                    cmd,
                    cap.image,
                    vk::ImageLayout::GENERAL,
                    slot_cap.buffer.buffer,
                    &region,
                )
            };
            gpu::memory_barrier(
                d,
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::AccessFlags::HOST_READ,
            );
            slot_cap.picture = Some(picture);
        }
        gpu::image_barrier(
            d,
            cmd,
            dst,
            vk::ImageLayout::GENERAL,
            self.info.present_layout,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::MEMORY_READ,
        );
        Ok(())
    }

    /// Reads back finished captures, learns what went on screen, and hands
    /// finished pictures to the dump writer. Never waits.
    fn poll(&mut self, display: &mut dyn Display) -> Result<(), PresentError> {
        let device = self.ctx.device.clone();
        for s in 0..self.captures.len() {
            if self.captures[s].picture.is_some() && self.ring.done(&device, s) {
                self.harvest(s);
            }
        }
        display.take_latched(&mut self.latched);
        let latched = std::mem::take(&mut self.latched);
        for l in &latched {
            self.on_latch(l);
        }
        self.latched = latched;
        self.latched.clear();
        self.flush_pictures();
        Ok(())
    }

    fn harvest(&mut self, slot: usize) {
        let Some(id) = self.captures[slot].picture.take() else {
            return;
        };
        let Some(cap) = &self.capture_image else {
            return;
        };
        let (cw, ch) = (cap.width, cap.height);
        let Some(p) = self.pictures.iter_mut().find(|p| p.id == id) else {
            return;
        };
        p.capture_pending = false;
        let bytes = (cw * ch * 4) as usize;
        let img = self.writer.as_mut().map(|w| {
            let mut rgba = w.take_buffer(bytes);
            rgba.copy_from_slice(&self.captures[slot].buffer.bytes()[..bytes]);
            Image {
                width: cw,
                height: ch,
                scale: self.config.dump_scale.clamp(1, 255) as u8,
                rgba,
            }
        });
        p.image = img;
    }

    fn on_latch(&mut self, l: &Latched) {
        if let Some((pic, _)) = self.on_screen
            && pic == l.tag.picture
        {
            return;
        }
        if let Some((pic, first)) = self.on_screen.take() {
            self.close(pic, l.refresh.saturating_sub(first));
        }
        self.on_screen = Some((l.tag.picture, l.refresh));
        if let Some(p) = self.pictures.iter_mut().find(|p| p.id == l.tag.picture) {
            p.meta.first_refresh = l.refresh;
            p.meta.shown_s = l.at_s;
            p.shown = true;
        }
    }

    fn close(&mut self, picture: u64, refreshes: u64) {
        if let Some(p) = self.pictures.iter_mut().find(|p| p.id == picture) {
            p.meta.refreshes = refreshes.min(u64::from(u32::MAX)) as u32;
            p.closed = true;
            let h = if p.meta.kind.is_generated() {
                &mut self.totals.generated_refreshes
            } else {
                &mut self.totals.game_refreshes
            };
            hist_add(h, p.meta.refreshes);
        }
    }

    fn flush_pictures(&mut self) {
        while let Some(p) = self.pictures.front() {
            if !p.closed || p.capture_pending {
                break;
            }
            let p = self.pictures.pop_front().expect("front exists");
            if let Some(w) = self.writer.as_mut() {
                w.submit(p.meta, p.image);
            }
        }
    }

    /// Ends the run: every present goes on screen, the last picture's stay
    /// ends at the last refresh, the dump is finished. Returns the totals.
    pub fn finish(mut self, display: &mut dyn Display) -> Result<RunTotals, PresentError> {
        display.flush().map_err(PresentError::Display)?;
        let device = self.ctx.device.clone();
        self.ring.wait_all(&device)?;
        self.poll(display)?;
        let refreshes = display.refreshes();
        if let Some((pic, first)) = self.on_screen.take() {
            self.close(pic, refreshes.saturating_sub(first));
        }
        // Pictures never shown (none in FIFO after a flush) end with 0 refreshes.
        for p in &mut self.pictures {
            p.closed = true;
        }
        self.flush_pictures();
        let mut totals = std::mem::take(&mut self.totals);
        totals.refreshes = refreshes;
        totals.seconds = display.now_s();
        if self.gpu_sum.2 > 0 {
            let n = self.gpu_sum.2 as f64;
            totals.gpu_mean_ms = Some((self.gpu_sum.0 / n, self.gpu_sum.1 / n, self.gpu_sum.2));
        }
        if let Some(w) = self.writer.take() {
            totals.dump = Some(
                w.finish(refreshes, totals.seconds)
                    .map_err(PresentError::Dump)?,
            );
        }
        Ok(totals)
    }
}

impl Drop for PresentLoop {
    fn drop(&mut self) {
        let device = self.ctx.device.clone();
        // SAFETY: waiting for the queue before destroying what it uses.
        let _ =
            unsafe { device.queue_wait_idle(self.ctx.queue) }.map_err(vk_err("vkQueueWaitIdle"));
        self.ring.destroy(&device);
        self.fg = None;
        self.scaler.destroy(&device);
        for b in &mut self.overlay_bufs {
            b.destroy(&device);
        }
        for c in &mut self.captures {
            c.buffer.destroy(&device);
        }
        if let Some(c) = self.capture_image.as_mut() {
            c.destroy(&device);
        }
    }
}
