//! [`FrameGen`]: the resources, the descriptor sets and the recording of the
//! passes for one picture size.

use std::collections::VecDeque;

use ash::vk;

use crate::caps::{self, DeviceCaps};
use crate::gpu::{self, Allocator, Buffer, Image, Kind};
use crate::shaders::{self, LoadedPass, Pass, Push, consts, res};
use crate::{Config, CreateError, InterpVariant, Path, VulkanContext};

/// Frames of latency of the timestamp and scene readbacks (query slots).
const TIMER_SLOTS: u32 = 4;
/// Search radius at the coarsest level and at the others, in pixels of the level.
const RADIUS_COARSEST: i32 = 6;
const RADIUS: i32 = 2;

/// GPU time per generated frame, from the library's timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GpuTime {
    /// Mean of (interpolation end - frame's own work end), in milliseconds.
    pub mean_ms: f64,
    /// Largest such time.
    pub max_ms: f64,
    /// Frames measured.
    pub count: u32,
    /// Mean of the flow part (pyramid, histograms, scene, flow), in milliseconds.
    pub flow_mean_ms: f64,
}

/// Device memory the interpolator holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryUse {
    /// The two game frames (current and previous) and the output image.
    pub picture_bytes: u64,
    /// Everything else: luma pyramids, flow fields, motion, still history,
    /// histograms, state and readback buffers.
    pub working_bytes: u64,
}

/// Scene-change results read back since the last call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SceneReport {
    /// Frames whose scene-change result came back.
    pub frames_checked: u64,
    /// The serials (see [`FrameGen::serial`]) of those that were cuts.
    pub cut_frames: Vec<u64>,
}

/// The interpolator for one picture size. See the crate documentation for
/// the frame cycle.
///
/// Drop destroys its Vulkan objects: the caller must first make sure the
/// GPU is done with every command buffer it recorded into.
pub struct FrameGen {
    device: ash::Device,
    config: Config,
    levels: u32,
    flow_base: u32,
    /// Side of the interpolation's motion blocks in pixels (8 or 16).
    mblock: u32,
    serial: u64,
    generated: u32,
    prepared: bool,
    interpolated: bool,

    passes: Vec<LoadedPass>,
    sampler: vk::Sampler,
    sampler_nearest: vk::Sampler,
    pool: vk::DescriptorPool,
    // Descriptor sets, indexed as noted.
    set_pyramid: [vk::DescriptorSet; 2],       // [cur]
    set_luma_ref: [vk::DescriptorSet; 2],      // [cur]
    set_down_ref: Vec<[vk::DescriptorSet; 2]>, // [level][cur]
    set_compare: [vk::DescriptorSet; 2],       // [cur]
    set_hist: [vk::DescriptorSet; 2],          // [cur]
    set_scene: vk::DescriptorSet,
    set_flow: Vec<[vk::DescriptorSet; 2]>,     // [level][cur]
    set_flow_ref: Vec<[vk::DescriptorSet; 2]>, // [level][cur]
    set_compare_flow: vk::DescriptorSet,
    set_motion: [vk::DescriptorSet; 2],      // [cur]
    set_interp: [vk::DescriptorSet; 2],      // [cur] per pixel, on output/still
    set_interp_ref: [vk::DescriptorSet; 2],  // [cur] per pixel, on the ref images (Both)
    set_interp_tile: [vk::DescriptorSet; 2], // [cur] per tile, on output/still
    set_compare_output: vk::DescriptorSet,

    frames: [Image; 2],
    luma: [Image; 2],
    luma_ref: Option<Image>,
    flow: Vec<[Image; 2]>,     // [level][fwd, bwd]
    flow_ref: Vec<[Image; 2]>, // [level][fwd, bwd], Path::Both only
    motion: Image,
    still: Image,
    output: Image,
    still_ref: Option<Image>,  // Path::Both only
    output_ref: Option<Image>, // Path::Both only
    hist: Buffer,
    state: Buffer,
    readback: Buffer,

    timer: Option<Timer>,
    profile: Option<Profile>,
    scene_pending: VecDeque<u64>,
    scene_report: SceneReport,
}

/// Per-dispatch timestamps (development aid, off by default).
struct Profile {
    pool: vk::QueryPool,
    period_ns: f64,
    /// Pass of each written query after the first.
    labels: std::cell::RefCell<Vec<&'static str>>,
}

const PROFILE_QUERIES: u32 = 64;

struct Timer {
    pool: vk::QueryPool,
    period_ns: f64,
    mask: u64,
    slot_serial: [Option<u64>; TIMER_SLOTS as usize],
    sum_ms: f64,
    max_ms: f64,
    flow_sum_ms: f64,
    count: u32,
}

fn level_size(config: &Config, l: u32) -> (u32, u32) {
    ((config.width >> l).max(1), (config.height >> l).max(1))
}

fn blocks(n: u32) -> u32 {
    n.div_ceil(consts::BLOCK)
}

/// Pyramid levels for a frame: enough that the coarsest level's search
/// reaches far, at least 3 (the histograms read level 2), at most 7.
pub fn pyramid_levels(width: u32, height: u32) -> u32 {
    let side = width.min(height) / 16;
    let log = if side == 0 {
        0
    } else {
        31 - side.leading_zeros()
    };
    log.clamp(3, consts::MAX_LEVELS)
}

/// The pyramid level the final flow is at by default: the first level of at
/// most 600 000 pixels (0 up to about 1000x600, 1 for 720p and 1080p, 2 for
/// 1440p and 2160p). The flow's blocks are then 8, 16 or 32 pixels of the
/// picture; the motion of the generated frame is still chosen per 8x8
/// pixels (16x16 with flow at level 2) and blended per pixel. Finer flow
/// costs more than the rest of the
/// interpolator together at large sizes ([`Config::flow_level`] overrides).
pub fn flow_base_level(width: u32, height: u32) -> u32 {
    let mut l = 0;
    while l < 2 && u64::from(width >> l) * u64::from(height >> l) > 600_000 {
        l += 1;
    }
    l
}

/// What a descriptor write binds.
enum Bind<'a> {
    /// Sampled views (combined with the linear sampler), GENERAL layout.
    Sampled(&'a [vk::ImageView]),
    /// Sampled views of integer images (combined with the nearest sampler:
    /// read by texelFetch), GENERAL layout.
    SampledInt(&'a [vk::ImageView]),
    /// Storage views, GENERAL layout.
    Storage(&'a [vk::ImageView]),
    /// A whole buffer.
    Buffer(vk::Buffer),
}

impl FrameGen {
    /// Creates the interpolator for `config` on the caller's device. Checks
    /// first that the device has what the shaders use (see
    /// [`crate::check_caps`]); the error names what is missing.
    pub fn new(ctx: &VulkanContext, config: &Config) -> Result<FrameGen, CreateError> {
        if config.width < crate::MIN_SIDE || config.height < crate::MIN_SIDE {
            return Err(CreateError::BadConfig(format!(
                "frame size {}x{} is below the smallest, {}x{}",
                config.width,
                config.height,
                crate::MIN_SIDE,
                crate::MIN_SIDE
            )));
        }
        if config.width > 16384 || config.height > 16384 {
            return Err(CreateError::BadConfig(format!(
                "frame size {}x{} is above 16384 on a side",
                config.width, config.height
            )));
        }
        if config.frame_format != vk::Format::R8G8B8A8_UNORM
            && config.frame_format != vk::Format::B8G8R8A8_UNORM
        {
            return Err(CreateError::BadConfig(format!(
                "frame format {:?}: R8G8B8A8_UNORM or B8G8R8A8_UNORM",
                config.frame_format
            )));
        }
        let dcaps = DeviceCaps::query(ctx, config.frame_format);
        caps::check(&dcaps, config)?;
        // SAFETY: the caller's physical device of the caller's instance.
        let mem_props = unsafe {
            ctx.instance
                .get_physical_device_memory_properties(ctx.physical_device)
        };
        let device = ctx.device.clone();
        let mut fg = Builder {
            device: &device,
            alloc: Allocator {
                device: &device,
                props: mem_props,
            },
        };
        fg.build(config, &dcaps)
    }

    /// The image the caller writes this frame's picture into (by transfer or
    /// drawing), in `GENERAL` layout, in the configured frame format.
    pub fn frame_image(&self) -> vk::Image {
        self.frames[self.cur()].image
    }

    /// The generated frame: `R8G8B8A8_UNORM`, `GENERAL` layout, ready for a
    /// transfer read after [`FrameGen::record`] returned true (and after each
    /// [`FrameGen::interpolate_next`]).
    pub fn output_image(&self) -> vk::Image {
        self.output.image
    }

    /// The configuration it was made for.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Frames advanced since creation; the current frame's serial.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// Levels in the luma pyramid.
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// The final flow fields: `[previous -> current, current -> previous]`,
    /// `R16G16_SINT`, one vector per block of [`FrameGen::flow_block_pixels`]
    /// pixels, in 1/8 pixel of level [`FrameGen::flow_level`], `GENERAL`
    /// layout, valid after `record()` (for tests and tools).
    pub fn flow_images(&self) -> [vk::Image; 2] {
        let b = self.flow_base as usize;
        [self.flow[b][0].image, self.flow[b][1].image]
    }

    /// Size of the final flow fields in blocks.
    pub fn flow_extent(&self) -> (u32, u32) {
        let (w, h) = level_size(&self.config, self.flow_base);
        (blocks(w), blocks(h))
    }

    /// The pyramid level of the final flow (see [`flow_base_level`]).
    pub fn flow_level(&self) -> u32 {
        self.flow_base
    }

    /// Picture pixels per side of a final flow block.
    pub fn flow_block_pixels(&self) -> u32 {
        consts::BLOCK << self.flow_base
    }

    fn motion_extent(&self) -> (u32, u32) {
        (
            self.config.width.div_ceil(self.mblock),
            self.config.height.div_ceil(self.mblock),
        )
    }

    /// Side of the generated frame's motion blocks in pixels (8, or 16 for
    /// large pictures; see [`crate::Variant::motion_block`]).
    pub fn motion_block_pixels(&self) -> u32 {
        self.mblock
    }

    /// Device memory held, split into the pictures and the working set.
    pub fn memory(&self) -> MemoryUse {
        let mut m = MemoryUse::default();
        let mut add = |img: &Image| match img.kind {
            Kind::Picture => m.picture_bytes += img.bytes,
            Kind::Working => m.working_bytes += img.bytes,
        };
        for i in self.frames.iter().chain(self.luma.iter()) {
            add(i);
        }
        if let Some(i) = &self.luma_ref {
            add(i);
        }
        for l in self.flow.iter().chain(&self.flow_ref) {
            add(&l[0]);
            add(&l[1]);
        }
        add(&self.motion);
        add(&self.still);
        add(&self.output);
        for i in self.still_ref.iter().chain(&self.output_ref) {
            add(i);
        }
        m.working_bytes += self.hist.bytes + self.state.bytes + self.readback.bytes;
        m
    }

    /// Sets how many frames to generate between two of the game's, 1..=3,
    /// at 1/(n+1), 2/(n+1), ... of the way. Values outside are clamped.
    pub fn set_generated(&mut self, n: u32) {
        self.generated = n.clamp(1, 3);
    }

    /// Frames generated per game frame (see [`FrameGen::set_generated`]).
    pub fn generated(&self) -> u32 {
        self.generated
    }

    fn cur(&self) -> usize {
        (self.serial & 1) as usize
    }

    /// Puts every image in `GENERAL` layout and clears the history, the first
    /// time; does nothing afterwards. Record it before the caller's write to
    /// [`FrameGen::frame_image`] on the first frame.
    pub fn prepare(&mut self, cmd: vk::CommandBuffer) {
        if self.prepared {
            return;
        }
        self.prepared = true;
        let d = &self.device;
        let mut images: Vec<&Image> = vec![
            &self.frames[0],
            &self.frames[1],
            &self.luma[0],
            &self.luma[1],
        ];
        images.extend(self.luma_ref.iter());
        for l in self.flow.iter().chain(&self.flow_ref) {
            images.push(&l[0]);
            images.push(&l[1]);
        }
        images.extend([&self.motion, &self.still, &self.output]);
        images.extend(self.still_ref.iter().chain(&self.output_ref));
        let barriers: Vec<vk::ImageMemoryBarrier> = images
            .iter()
            .map(|img| {
                vk::ImageMemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::empty())
                    .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::GENERAL)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(img.image)
                    .subresource_range(full_range(img.mips))
            })
            .collect();
        // SAFETY: `cmd` is in the recording state (caller's contract); the
        // images are ours and alive.
        unsafe {
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &barriers,
            );
            let black = vk::ClearColorValue { float32: [0.0; 4] };
            let refs = self.still_ref.iter().chain(&self.output_ref);
            for img in [&self.still, &self.output, &self.frames[0], &self.frames[1]]
                .into_iter()
                .chain(refs)
            {
                d.cmd_clear_color_image(
                    cmd,
                    img.image,
                    vk::ImageLayout::GENERAL,
                    &black,
                    &[full_range(1)],
                );
            }
            d.cmd_fill_buffer(cmd, self.hist.buffer, 0, vk::WHOLE_SIZE, 0);
            d.cmd_fill_buffer(cmd, self.state.buffer, 0, vk::WHOLE_SIZE, 0);
        }
        memory_barrier(
            d,
            cmd,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
        );
    }

    /// Records this frame's passes into `cmd`: the luma pyramid, the
    /// histograms and the optical flow always (the next frame needs this
    /// one's pyramid); the scene-change test and the first generated frame
    /// (at 1/(n+1)) unless `reset`. Returns whether [`FrameGen::output_image`]
    /// was made. On a detected scene cut the output is a copy of the previous
    /// frame (no in-between picture) and the still history is cleared; the
    /// cut is reported later by [`FrameGen::take_scene_cuts`].
    ///
    /// Barriers included: the caller's transfer (or colour-attachment) write
    /// of [`FrameGen::frame_image`] is made visible to the compute passes
    /// before they read it, and the output and the frame image are made
    /// visible to the caller's transfer reads afterwards.
    ///
    /// Pass `reset` on the first frame, after the size changed, after frame
    /// generation was off, and on a cut the caller knows about: no frame is
    /// generated and the still history is cleared.
    ///
    /// GPU timestamps are written at the start (after the frame's own work),
    /// after the flow and after the interpolation; they are read back
    /// four frames later without waiting ([`FrameGen::take_gpu_time`]).
    pub fn record(&mut self, cmd: vk::CommandBuffer, reset: bool) -> bool {
        self.poll_readbacks();
        let d = self.device.clone();
        let cur = self.cur();
        let slot = (self.serial % u64::from(TIMER_SLOTS)) as u32;
        let mut push = self.push();
        if let Some(timer) = &mut self.timer {
            timer.slot_serial[slot as usize] = Some(self.serial);
            // SAFETY: recording into the caller's command buffer; our pool.
            unsafe {
                d.cmd_reset_query_pool(cmd, timer.pool, slot * 3, 3);
                d.cmd_write_timestamp(
                    cmd,
                    vk::PipelineStageFlags::ALL_COMMANDS,
                    timer.pool,
                    slot * 3,
                );
            }
        }
        if let Some(prof) = &self.profile {
            prof.labels.borrow_mut().clear();
            // SAFETY: recording into the caller's command buffer; our pool.
            unsafe {
                d.cmd_reset_query_pool(cmd, prof.pool, 0, PROFILE_QUERIES);
                d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::ALL_COMMANDS, prof.pool, 0);
            }
        }
        // The caller's write of the frame image, then our clears, before the passes.
        memory_barrier(
            &d,
            cmd,
            vk::PipelineStageFlags::TRANSFER
                | vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                | vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::TRANSFER_WRITE
                | vk::AccessFlags::COLOR_ATTACHMENT_WRITE
                | vk::AccessFlags::SHADER_WRITE,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::TRANSFER_WRITE,
        );
        let hist_bytes = u64::from(consts::HIST_BINS * consts::HIST_REGIONS * 4);
        // SAFETY: recording into the caller's command buffer; our objects.
        unsafe {
            d.cmd_fill_buffer(
                cmd,
                self.hist.buffer,
                cur as u64 * hist_bytes,
                hist_bytes,
                0,
            );
            if reset {
                let black = vk::ClearColorValue { float32: [0.0; 4] };
                for img in std::iter::once(&self.still).chain(&self.still_ref) {
                    d.cmd_clear_color_image(
                        cmd,
                        img.image,
                        vk::ImageLayout::GENERAL,
                        &black,
                        &[full_range(1)],
                    );
                }
            }
        }
        memory_barrier(
            &d,
            cmd,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
        );

        // Luma pyramid of the current frame.
        let (w, h) = (self.config.width, self.config.height);
        let fast = matches!(self.config.path, Path::Fast | Path::Both);
        let reference = matches!(self.config.path, Path::Reference | Path::Both);
        if fast {
            self.dispatch(
                cmd,
                Pass::Pyramid,
                self.set_pyramid[cur],
                &push,
                w.div_ceil(64),
                h.div_ceil(64),
                1,
            );
        }
        if reference {
            self.dispatch(
                cmd,
                Pass::LumaRef,
                self.set_luma_ref[cur],
                &push,
                w.div_ceil(8),
                h.div_ceil(8),
                1,
            );
            for l in 1..self.levels {
                compute_barrier(&d, cmd);
                let (lw, lh) = level_size(&self.config, l);
                push.level = l as i32;
                let set = self.set_down_ref[l as usize][cur];
                self.dispatch(
                    cmd,
                    Pass::DownsampleRef,
                    set,
                    &push,
                    lw.div_ceil(8),
                    lh.div_ceil(8),
                    1,
                );
            }
        }
        compute_barrier(&d, cmd);
        if self.config.path == Path::Both {
            self.dispatch(
                cmd,
                Pass::Compare,
                self.set_compare[cur],
                &push,
                w.div_ceil(8),
                h.div_ceil(8),
                1,
            );
        }
        let (hw, hh) = level_size(&self.config, consts::HIST_LEVEL);
        self.dispatch(
            cmd,
            Pass::Histogram,
            self.set_hist[cur],
            &push,
            hw.div_ceil(16),
            hh.div_ceil(16),
            1,
        );
        compute_barrier(&d, cmd);
        if !reset {
            self.dispatch(cmd, Pass::Scene, self.set_scene, &push, 1, 1, 1);
            self.scene_pending.push_back(self.serial);
        }
        // Optical flow, coarse to fine, both directions.
        let fast_flow = matches!(self.config.path, Path::Fast | Path::Both);
        let ref_flow = matches!(self.config.path, Path::Reference | Path::Both);
        for l in (self.flow_base..self.levels).rev() {
            let (lw, lh) = level_size(&self.config, l);
            push.level = l as i32;
            push.radius = if l == self.levels - 1 {
                RADIUS_COARSEST
            } else {
                RADIUS
            };
            push.flags = if l == self.levels - 1 {
                consts::FLAG_COARSEST
            } else {
                0
            };
            if fast_flow {
                let set = self.set_flow[l as usize][cur];
                self.dispatch(cmd, Pass::FlowSearch, set, &push, blocks(lw), blocks(lh), 2);
                self.label_flow(l);
            }
            if ref_flow {
                let set = self.set_flow_ref[l as usize][cur];
                self.dispatch(
                    cmd,
                    Pass::FlowSearchRef,
                    set,
                    &push,
                    blocks(lw),
                    blocks(lh),
                    2,
                );
            }
            compute_barrier(&d, cmd);
        }
        if self.config.path == Path::Both {
            let (bw, bh) = self.flow_extent();
            self.dispatch(
                cmd,
                Pass::CompareFlow,
                self.set_compare_flow,
                &push,
                bw.div_ceil(8),
                bh.div_ceil(8),
                1,
            );
        }
        if let Some(timer) = &self.timer {
            // SAFETY: as above.
            unsafe {
                d.cmd_write_timestamp(
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    timer.pool,
                    slot * 3 + 1,
                );
            }
        }
        if !reset {
            push.t = 1.0 / (self.generated + 1) as f32;
            push.flags = consts::FLAG_WRITE_HISTORY;
            self.interpolate(cmd, &push);
        }
        if let Some(timer) = &self.timer {
            // SAFETY: as above.
            unsafe {
                d.cmd_write_timestamp(
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    timer.pool,
                    slot * 3 + 2,
                );
            }
        }
        self.finish_barrier(cmd);
        self.interpolated = !reset;
        !reset
    }

    /// Records the `i`-th further generated frame (1 ≤ i < n, at
    /// (i+1)/(n+1) of the way) into the same [`FrameGen::output_image`], after
    /// the caller's transfer read of the one before (the barriers are
    /// included). Reads the still history without changing it. Returns
    /// false (and records nothing) when `record()` made no frame this time
    /// or `i` is out of range.
    pub fn interpolate_next(&mut self, cmd: vk::CommandBuffer, i: u32) -> bool {
        if !self.interpolated || i == 0 || i >= self.generated {
            return false;
        }
        memory_barrier(
            &self.device,
            cmd,
            vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::SHADER_WRITE,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
        );
        let mut push = self.push();
        push.t = (i + 1) as f32 / (self.generated + 1) as f32;
        push.flags = 0;
        self.interpolate(cmd, &push);
        self.finish_barrier(cmd);
        true
    }

    /// This frame becomes the previous one.
    pub fn advance(&mut self) {
        self.serial += 1;
        self.interpolated = false;
    }

    /// The GPU time of the frames measured since the last call (read back a
    /// few frames late, never waiting). `None` when the device has no
    /// timestamps or nothing came back yet.
    pub fn take_gpu_time(&mut self) -> Option<GpuTime> {
        self.poll_readbacks();
        let timer = self.timer.as_mut()?;
        if timer.count == 0 {
            return None;
        }
        let n = f64::from(timer.count);
        let t = GpuTime {
            mean_ms: timer.sum_ms / n,
            max_ms: timer.max_ms,
            count: timer.count,
            flow_mean_ms: timer.flow_sum_ms / n,
        };
        timer.sum_ms = 0.0;
        timer.max_ms = 0.0;
        timer.flow_sum_ms = 0.0;
        timer.count = 0;
        Some(t)
    }

    /// Turns per-dispatch timestamps on (development aid for the benchmark):
    /// each `record()` then also times every dispatch, read by
    /// [`FrameGen::take_pass_profile`]. Returns false when the device has no
    /// timestamps.
    pub fn enable_pass_profile(&mut self) -> bool {
        let Some(timer) = &self.timer else {
            return false;
        };
        if self.profile.is_some() {
            return true;
        }
        // SAFETY: valid device and create info; destroyed in Drop.
        let pool = unsafe {
            self.device.create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(PROFILE_QUERIES),
                None,
            )
        };
        match pool {
            Ok(pool) => {
                self.profile = Some(Profile {
                    pool,
                    period_ns: timer.period_ns,
                    labels: Default::default(),
                });
                true
            }
            Err(e) => {
                log::warn!("framegen: no profile query pool: {e}");
                false
            }
        }
    }

    /// The GPU milliseconds of each dispatch of the last `record()` (and
    /// `interpolate_next()` calls after it), in order. Waits for the results:
    /// call it after the GPU finished that frame.
    pub fn take_pass_profile(&mut self) -> Vec<(&'static str, f64)> {
        let Some(prof) = &self.profile else {
            return Vec::new();
        };
        let labels = prof.labels.borrow();
        let n = labels.len() + 1;
        let mut data = vec![0u64; n];
        // SAFETY: our pool; queries 0..n were written by the last frame.
        let r = unsafe {
            self.device.get_query_pool_results(
                prof.pool,
                0,
                &mut data,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        };
        if r.is_err() {
            return Vec::new();
        }
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                (
                    *l,
                    data[i + 1].wrapping_sub(data[i]) as f64 * prof.period_ns / 1e6,
                )
            })
            .collect()
    }

    /// Scene-change results that came back since the last call (a few frames
    /// late, never waiting).
    pub fn take_scene_cuts(&mut self) -> SceneReport {
        self.poll_readbacks();
        std::mem::take(&mut self.scene_report)
    }

    /// In [`Path::Both`], the number of luma texels and flow vectors in
    /// which the fast passes differed from the reference so far (read once
    /// the GPU is done with the frames); `None` in the other modes.
    pub fn reference_mismatches(&self) -> Option<u64> {
        if self.config.path != Path::Both {
            return None;
        }
        Some(u64::from(
            self.readback_word(consts::READBACK_SLOTS as usize),
        ))
    }

    fn readback_word(&self, i: usize) -> u32 {
        // SAFETY: `mapped` points at the host-coherent readback buffer of
        // READBACK_SLOTS + 1 words, mapped for the life of `self`.
        unsafe { std::ptr::read_volatile((self.readback.mapped as *const u32).add(i)) }
    }

    fn poll_readbacks(&mut self) {
        // Scene results, tagged with their frame serial.
        while let Some(&s) = self.scene_pending.front() {
            let word = self.readback_word((s % u64::from(consts::READBACK_SLOTS)) as usize);
            if u64::from(word >> 1) == s & 0x7fff_ffff {
                self.scene_pending.pop_front();
                self.scene_report.frames_checked += 1;
                if word & 1 == 1 {
                    self.scene_report.cut_frames.push(s);
                }
            } else if s + u64::from(consts::READBACK_SLOTS) <= self.serial {
                self.scene_pending.pop_front(); // overwritten before we looked: lost
            } else {
                break;
            }
        }
        // Timestamps: every slot that has all three.
        let Some(timer) = &mut self.timer else { return };
        for slot in 0..TIMER_SLOTS {
            if timer.slot_serial[slot as usize].is_none() {
                continue;
            }
            let mut data = [[0u64; 2]; 3];
            // SAFETY: our query pool; 3 queries of 64-bit value + availability.
            let r = unsafe {
                self.device.get_query_pool_results(
                    timer.pool,
                    slot * 3,
                    &mut data,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
                )
            };
            if r.is_err() || data.iter().any(|q| q[1] == 0) {
                continue;
            }
            timer.slot_serial[slot as usize] = None;
            let ms =
                |a: u64, b: u64| (b.wrapping_sub(a) & timer.mask) as f64 * timer.period_ns / 1e6;
            let total = ms(data[0][0], data[2][0]);
            let flow = ms(data[0][0], data[1][0]);
            timer.sum_ms += total;
            timer.flow_sum_ms += flow;
            timer.max_ms = timer.max_ms.max(total);
            timer.count += 1;
        }
    }

    fn push(&self) -> Push {
        Push {
            size: [self.config.width as i32, self.config.height as i32],
            level: 0,
            levels: self.levels as i32,
            t: 0.5,
            flags: 0,
            serial: (self.serial & 0x7fff_ffff) as u32,
            radius: 0,
            cur: self.cur() as u32,
            mblock: self.mblock as i32,
        }
    }

    fn interpolate(&self, cmd: vk::CommandBuffer, push: &Push) {
        let cur = self.cur();
        let mut push = *push;
        push.level = self.flow_base as i32;
        // Small pictures (flow at level 0) weigh the motions of 3x3 blocks
        // per pixel, large ones of 2x2: at 3840x2160 the nine cost more than
        // the whole frame budget.
        if self.flow_base == 0 {
            push.flags |= consts::FLAG_WIDE;
        }
        let push = &push;
        let (bw, bh) = self.motion_extent();
        self.dispatch(
            cmd,
            Pass::MotionSelect,
            self.set_motion[cur],
            push,
            bw.div_ceil(2),
            bh.div_ceil(2),
            1,
        );
        compute_barrier(&self.device, cmd);
        let (w, h) = (self.config.width, self.config.height);
        let per_pixel = |fg: &Self, set| {
            fg.dispatch(
                cmd,
                Pass::Interpolate,
                set,
                push,
                w.div_ceil(8),
                h.div_ceil(8),
                1,
            );
        };
        let path = self.config.path;
        if path == Path::Reference
            || (path == Path::Fast && self.config.variant.interp == InterpVariant::Pixel)
        {
            per_pixel(self, self.set_interp[cur]);
            return;
        }
        // Tiles of a motion block's size: the blocks themselves (wide), or
        // from block centre to block centre (2x2), which takes one more tile
        // per side.
        let extra = u32::from(self.flow_base != 0);
        let mb = self.mblock;
        self.dispatch(
            cmd,
            Pass::InterpolateTile,
            self.set_interp_tile[cur],
            push,
            w.div_ceil(mb) + extra,
            h.div_ceil(mb) + extra,
            1,
        );
        if path == Path::Both {
            per_pixel(self, self.set_interp_ref[cur]);
            compute_barrier(&self.device, cmd);
            self.dispatch(
                cmd,
                Pass::CompareOutput,
                self.set_compare_output,
                push,
                w.div_ceil(8),
                h.div_ceil(8),
                1,
            );
        }
    }

    fn finish_barrier(&self, cmd: vk::CommandBuffer) {
        memory_barrier(
            &self.device,
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER
                | vk::PipelineStageFlags::HOST
                | vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE
                | vk::AccessFlags::HOST_READ
                | vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn dispatch(
        &self,
        cmd: vk::CommandBuffer,
        pass: Pass,
        set: vk::DescriptorSet,
        push: &Push,
        x: u32,
        y: u32,
        z: u32,
    ) {
        let p = self.pass(pass);
        let d = &self.device;
        // SAFETY: recording into the caller's command buffer with our
        // pipeline, layout and set, all alive.
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                p.pipeline_layout,
                0,
                &[set],
                &[],
            );
            d.cmd_push_constants(
                cmd,
                p.pipeline_layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &push.bytes(),
            );
            d.cmd_dispatch(cmd, x, y, z);
        }
        if let Some(prof) = &self.profile {
            let mut labels = prof.labels.borrow_mut();
            let n = labels.len() as u32 + 1;
            if n < PROFILE_QUERIES {
                // SAFETY: as above; our query pool, reset in record().
                unsafe {
                    d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::COMPUTE_SHADER, prof.pool, n)
                };
                labels.push(pass.name());
            }
        }
    }

    fn label_flow(&self, l: u32) {
        if let Some(prof) = &self.profile {
            const NAMES: [&str; 7] = [
                "flow level 0",
                "flow level 1",
                "flow level 2",
                "flow level 3",
                "flow level 4",
                "flow level 5",
                "flow level 6",
            ];
            if let Some(last) = prof.labels.borrow_mut().last_mut() {
                *last = NAMES[l as usize];
            }
        }
    }

    fn pass(&self, pass: Pass) -> &LoadedPass {
        self.passes
            .iter()
            .find(|p| p.pass == pass)
            .expect("every pass is loaded")
    }
}

impl Drop for FrameGen {
    fn drop(&mut self) {
        let d = &self.device;
        // SAFETY: the caller guarantees (type docs) that the GPU is done
        // with our objects; each is destroyed once.
        unsafe {
            if let Some(t) = &self.timer {
                d.destroy_query_pool(t.pool, None);
            }
            if let Some(p) = &self.profile {
                d.destroy_query_pool(p.pool, None);
            }
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_sampler(self.sampler, None);
            d.destroy_sampler(self.sampler_nearest, None);
            for p in &self.passes {
                p.destroy(d);
            }
            let mut images: Vec<&Image> = vec![
                &self.frames[0],
                &self.frames[1],
                &self.luma[0],
                &self.luma[1],
            ];
            images.extend(self.luma_ref.iter());
            for l in self.flow.iter().chain(&self.flow_ref) {
                images.push(&l[0]);
                images.push(&l[1]);
            }
            images.extend([&self.motion, &self.still, &self.output]);
            images.extend(self.still_ref.iter().chain(&self.output_ref));
            for i in images {
                gpu::free_image(d, i);
            }
            for b in [&self.hist, &self.state, &self.readback] {
                gpu::free_buffer(d, b);
            }
        }
    }
}

/// The specialization constants of a pass for a configuration.
fn spec_constants(pass: Pass, config: &Config, mblock: u32) -> Vec<(u32, u32)> {
    match pass {
        // TILE_VIS, TILE
        Pass::InterpolateTile => vec![
            (
                0,
                u32::from(config.variant.interp == InterpVariant::TileVis),
            ),
            (1, mblock),
        ],
        // PER_CAND
        Pass::MotionSelect => vec![(0, u32::from(!config.variant.motion_per_sample))],
        _ => Vec::new(),
    }
}

/// Side of the motion blocks: 16 pixels where the flow is at level 2 (its
/// blocks are 32 pixels: 1440p, 2160p), 8 elsewhere; a variant may ask for
/// 8 or 16, but 3x3-candidate (flow at level 0) pictures keep 8, since a
/// tile must not span more than two flow blocks.
fn motion_block(config: &Config, flow_base: u32) -> u32 {
    if flow_base == 0 {
        return consts::BLOCK;
    }
    match config.variant.motion_block {
        Some(16) => 16,
        Some(_) => consts::BLOCK,
        None if flow_base >= 2 => 16,
        None => consts::BLOCK,
    }
}

fn full_range(mips: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: mips,
        base_array_layer: 0,
        layer_count: 1,
    }
}

fn memory_barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    src: vk::PipelineStageFlags,
    dst: vk::PipelineStageFlags,
    src_access: vk::AccessFlags,
    dst_access: vk::AccessFlags,
) {
    let mb = [vk::MemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access)];
    // SAFETY: recording into the caller's command buffer.
    unsafe { d.cmd_pipeline_barrier(cmd, src, dst, vk::DependencyFlags::empty(), &mb, &[], &[]) };
}

fn compute_barrier(d: &ash::Device, cmd: vk::CommandBuffer) {
    memory_barrier(
        d,
        cmd,
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::AccessFlags::SHADER_WRITE,
        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
    );
}

/// Creation, step by step.
struct Builder<'a> {
    device: &'a ash::Device,
    alloc: Allocator<'a>,
}

impl Builder<'_> {
    fn build(&mut self, config: &Config, dcaps: &DeviceCaps) -> Result<FrameGen, CreateError> {
        let d = self.device;
        let levels = pyramid_levels(config.width, config.height);
        let (w, h) = (config.width, config.height);
        let a = &self.alloc;
        let frame_usage = vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_DST
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::COLOR_ATTACHMENT;
        let storage = vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_SRC;
        let frames = [
            a.image(
                "frame 0",
                Kind::Picture,
                config.frame_format,
                w,
                h,
                1,
                frame_usage,
            )?,
            a.image(
                "frame 1",
                Kind::Picture,
                config.frame_format,
                w,
                h,
                1,
                frame_usage,
            )?,
        ];
        let luma_usage = storage | vk::ImageUsageFlags::SAMPLED;
        let luma = [
            a.image(
                "luma 0",
                Kind::Working,
                vk::Format::R8_UNORM,
                w,
                h,
                levels,
                luma_usage,
            )?,
            a.image(
                "luma 1",
                Kind::Working,
                vk::Format::R8_UNORM,
                w,
                h,
                levels,
                luma_usage,
            )?,
        ];
        let luma_ref = if config.path == Path::Both {
            Some(a.image(
                "luma ref",
                Kind::Working,
                vk::Format::R8_UNORM,
                w,
                h,
                levels,
                luma_usage,
            )?)
        } else {
            None
        };
        let flow_base = config
            .flow_level
            .unwrap_or_else(|| flow_base_level(w, h))
            .min(levels - 1);
        let flow_levels = |what: [&'static str; 2]| -> Result<Vec<[Image; 2]>, CreateError> {
            let mut v = Vec::new();
            for l in 0..levels {
                // Levels below the base are never searched: 1x1 placeholders.
                let (lw, lh) = if l < flow_base {
                    (8, 8)
                } else {
                    level_size(config, l)
                };
                let f = |what| {
                    a.image(
                        what,
                        Kind::Working,
                        vk::Format::R16G16_SINT,
                        blocks(lw),
                        blocks(lh),
                        1,
                        storage | vk::ImageUsageFlags::SAMPLED,
                    )
                };
                v.push([f(what[0])?, f(what[1])?]);
            }
            Ok(v)
        };
        let flow = flow_levels(["flow fwd", "flow bwd"])?;
        let flow_ref = if config.path == Path::Both {
            flow_levels(["flow ref fwd", "flow ref bwd"])?
        } else {
            Vec::new()
        };
        let mblock = motion_block(config, flow_base);
        let motion = a.image(
            "motion",
            Kind::Working,
            vk::Format::R16G16B16A16_SINT,
            w.div_ceil(mblock),
            h.div_ceil(mblock),
            1,
            storage | vk::ImageUsageFlags::SAMPLED,
        )?;
        let still = a.image(
            "still history",
            Kind::Working,
            vk::Format::R8_UNORM,
            w,
            h,
            1,
            vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_DST,
        )?;
        let output = a.image(
            "output",
            Kind::Picture,
            vk::Format::R8G8B8A8_UNORM,
            w,
            h,
            1,
            storage | vk::ImageUsageFlags::TRANSFER_DST,
        )?;
        let (still_ref, output_ref) = if config.path == Path::Both {
            (
                Some(a.image(
                    "still history ref",
                    Kind::Working,
                    vk::Format::R8_UNORM,
                    w,
                    h,
                    1,
                    vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_DST,
                )?),
                Some(a.image(
                    "output ref",
                    Kind::Working,
                    vk::Format::R8G8B8A8_UNORM,
                    w,
                    h,
                    1,
                    storage | vk::ImageUsageFlags::TRANSFER_DST,
                )?),
            )
        } else {
            (None, None)
        };
        let hist_size = u64::from(2 * consts::HIST_BINS * consts::HIST_REGIONS * 4);
        let buf_usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
        let hist = a.buffer("histograms", hist_size, buf_usage, false)?;
        let state = a.buffer("state", 16, buf_usage, false)?;
        let readback = a.buffer(
            "readback",
            u64::from(consts::READBACK_SLOTS + 1) * 4,
            buf_usage,
            true,
        )?;

        let mut passes = Vec::new();
        for p in Pass::ALL {
            passes.push(shaders::load_with(
                d,
                p,
                &spec_constants(p, config, mblock),
                vk::PipelineCreateFlags::empty(),
            )?);
        }
        let vk_err = |what: &'static str| {
            move |e| CreateError::Vulkan {
                what,
                pass: "framegen",
                result: e,
            }
        };
        // SAFETY: valid device and create info.
        let sampler = unsafe {
            d.create_sampler(
                &vk::SamplerCreateInfo::default()
                    .mag_filter(vk::Filter::LINEAR)
                    .min_filter(vk::Filter::LINEAR)
                    .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                    .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .max_lod(16.0),
                None,
            )
        }
        .map_err(vk_err("vkCreateSampler"))?;
        // SAFETY: valid device and create info.
        let sampler_nearest = unsafe {
            d.create_sampler(
                &vk::SamplerCreateInfo::default()
                    .mag_filter(vk::Filter::NEAREST)
                    .min_filter(vk::Filter::NEAREST)
                    .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                    .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE),
                None,
            )
        }
        .map_err(vk_err("vkCreateSampler"))?;

        // Sets per pass, to size the pool.
        let nsets = |p: Pass| -> u32 {
            match p {
                Pass::Scene => 1,
                Pass::DownsampleRef | Pass::FlowSearch | Pass::FlowSearchRef => 2 * levels,
                Pass::CompareFlow | Pass::CompareOutput => 1,
                Pass::Interpolate => 4,
                _ => 2,
            }
        };
        let mut counts: Vec<vk::DescriptorPoolSize> = Vec::new();
        let mut max_sets = 0;
        for p in &passes {
            max_sets += nsets(p.pass);
            for b in &p.table.bindings {
                let n = b.count * nsets(p.pass);
                match counts.iter_mut().find(|c| c.ty == b.descriptor_type) {
                    Some(c) => c.descriptor_count += n,
                    None => counts.push(vk::DescriptorPoolSize {
                        ty: b.descriptor_type,
                        descriptor_count: n,
                    }),
                }
            }
        }
        // SAFETY: valid device and create info.
        let pool = unsafe {
            d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(max_sets)
                    .pool_sizes(&counts),
                None,
            )
        }
        .map_err(vk_err("vkCreateDescriptorPool"))?;

        let timer = if dcaps.has_timestamps() {
            // SAFETY: valid device and create info.
            let qp = unsafe {
                d.create_query_pool(
                    &vk::QueryPoolCreateInfo::default()
                        .query_type(vk::QueryType::TIMESTAMP)
                        .query_count(TIMER_SLOTS * 3),
                    None,
                )
            }
            .map_err(vk_err("vkCreateQueryPool"))?;
            Some(Timer {
                pool: qp,
                period_ns: f64::from(dcaps.timestamp_period),
                mask: if dcaps.timestamp_valid_bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << dcaps.timestamp_valid_bits) - 1
                },
                slot_serial: [None; TIMER_SLOTS as usize],
                sum_ms: 0.0,
                max_ms: 0.0,
                flow_sum_ms: 0.0,
                count: 0,
            })
        } else {
            log::info!("framegen: the queue has no timestamps; the GPU timer is off");
            None
        };

        let mut fg = FrameGen {
            device: d.clone(),
            config: *config,
            levels,
            flow_base,
            mblock,
            serial: 0,
            generated: 1,
            prepared: false,
            interpolated: false,
            passes,
            sampler,
            sampler_nearest,
            pool,
            set_pyramid: Default::default(),
            set_luma_ref: Default::default(),
            set_down_ref: Vec::new(),
            set_compare: Default::default(),
            set_hist: Default::default(),
            set_scene: vk::DescriptorSet::null(),
            set_flow: Vec::new(),
            set_flow_ref: Vec::new(),
            set_compare_flow: vk::DescriptorSet::null(),
            set_motion: Default::default(),
            set_interp: Default::default(),
            set_interp_ref: Default::default(),
            set_interp_tile: Default::default(),
            set_compare_output: vk::DescriptorSet::null(),
            frames,
            luma,
            luma_ref,
            flow,
            flow_ref,
            motion,
            still,
            output,
            still_ref,
            output_ref,
            hist,
            state,
            readback,
            timer,
            profile: None,
            scene_pending: VecDeque::new(),
            scene_report: SceneReport::default(),
        };
        // From here on, Drop frees everything if a set cannot be made.
        fg.make_sets()?;
        let m = fg.memory();
        log::info!(
            "framegen: {}x{} {:?}, {} levels, flow at level {}, {:.1} MiB working + {:.1} MiB pictures",
            w,
            h,
            config.frame_format,
            levels,
            flow_base,
            m.working_bytes as f64 / 1048576.0,
            m.picture_bytes as f64 / 1048576.0
        );
        Ok(fg)
    }
}

impl FrameGen {
    fn alloc_set(&self, pass: Pass) -> Result<vk::DescriptorSet, CreateError> {
        let layouts = [self.pass(pass).set_layout];
        // SAFETY: our pool and layout.
        let sets = unsafe {
            self.device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(|e| CreateError::Vulkan {
            what: "vkAllocateDescriptorSets",
            pass: pass.name(),
            result: e,
        })?;
        Ok(sets[0])
    }

    /// Writes a set from resource numbers: each is looked up in the pass's
    /// renumbered table. A resource the pass does not use (the compiler
    /// removed it) is skipped; a binding of the pass left unwritten is an
    /// error.
    fn write_set(
        &self,
        pass: Pass,
        set: vk::DescriptorSet,
        binds: &[(u32, Bind)],
    ) -> Result<(), CreateError> {
        let p = self.pass(pass);
        let mut image_infos: Vec<Vec<vk::DescriptorImageInfo>> = Vec::new();
        let mut buffer_infos: Vec<Vec<vk::DescriptorBufferInfo>> = Vec::new();
        let mut targets = Vec::new();
        for (res, bind) in binds {
            let Some(b) = p.table.by_original(0, *res) else {
                continue;
            };
            let bad = |msg: String| CreateError::Shader {
                pass: pass.name(),
                error: msg,
            };
            match bind {
                Bind::Sampled(views) | Bind::SampledInt(views) | Bind::Storage(views) => {
                    let sampled = matches!(bind, Bind::Sampled(_) | Bind::SampledInt(_));
                    let sampler = match bind {
                        Bind::Sampled(_) => self.sampler,
                        Bind::SampledInt(_) => self.sampler_nearest,
                        _ => vk::Sampler::null(),
                    };
                    let want = if sampled {
                        vk::DescriptorType::COMBINED_IMAGE_SAMPLER
                    } else {
                        vk::DescriptorType::STORAGE_IMAGE
                    };
                    if b.descriptor_type != want || views.len() as u32 != b.count {
                        return Err(bad(format!(
                            "resource {res} (binding {}): shader has {:?} x{}, host gives {want:?} x{}",
                            b.binding,
                            b.descriptor_type,
                            b.count,
                            views.len()
                        )));
                    }
                    image_infos.push(
                        views
                            .iter()
                            .map(|v| vk::DescriptorImageInfo {
                                sampler,
                                image_view: *v,
                                image_layout: vk::ImageLayout::GENERAL,
                            })
                            .collect(),
                    );
                    targets.push((b.binding, b.descriptor_type, image_infos.len() - 1, true));
                }
                Bind::Buffer(buf) => {
                    if b.descriptor_type != vk::DescriptorType::STORAGE_BUFFER {
                        return Err(bad(format!(
                            "resource {res}: shader has {:?}, host gives a storage buffer",
                            b.descriptor_type
                        )));
                    }
                    buffer_infos.push(vec![vk::DescriptorBufferInfo {
                        buffer: *buf,
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    }]);
                    targets.push((b.binding, b.descriptor_type, buffer_infos.len() - 1, false));
                }
            }
        }
        for b in &p.table.bindings {
            if !targets.iter().any(|t| t.0 == b.binding) {
                return Err(CreateError::Shader {
                    pass: pass.name(),
                    error: format!(
                        "resource {} (binding {}) has no descriptor",
                        b.original, b.binding
                    ),
                });
            }
        }
        let writes: Vec<vk::WriteDescriptorSet> = targets
            .iter()
            .map(|&(binding, ty, idx, is_image)| {
                let w = vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(binding)
                    .descriptor_type(ty);
                if is_image {
                    w.image_info(&image_infos[idx])
                } else {
                    w.buffer_info(&buffer_infos[idx])
                }
            })
            .collect();
        // SAFETY: our set; the infos outlive the call.
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }

    fn make_sets(&mut self) -> Result<(), CreateError> {
        let levels = self.levels as usize;
        let padded = |img: &Image| -> Vec<vk::ImageView> {
            (0..consts::MAX_LEVELS as usize)
                .map(|l| img.levels[l.min(img.levels.len() - 1)])
                .collect()
        };
        for cur in 0..2 {
            let prev = cur ^ 1;
            let set = self.alloc_set(Pass::Pyramid)?;
            let outs = padded(&self.luma[cur]);
            self.write_set(
                Pass::Pyramid,
                set,
                &[
                    (res::FRAME_B, Bind::Sampled(&[self.frames[cur].sampled])),
                    (res::LUMA_OUT, Bind::Storage(&outs)),
                ],
            )?;
            self.set_pyramid[cur] = set;

            let target = if self.config.path == Path::Both {
                self.luma_ref.as_ref().expect("made in Both mode")
            } else {
                &self.luma[cur]
            };
            let set = self.alloc_set(Pass::LumaRef)?;
            self.write_set(
                Pass::LumaRef,
                set,
                &[
                    (res::FRAME_B, Bind::Sampled(&[self.frames[cur].sampled])),
                    (res::LUMA_LEVEL, Bind::Storage(&[target.levels[0]])),
                ],
            )?;
            self.set_luma_ref[cur] = set;

            let set = self.alloc_set(Pass::Compare)?;
            let ref_view = self.luma_ref.as_ref().unwrap_or(&self.luma[prev]).sampled;
            self.write_set(
                Pass::Compare,
                set,
                &[
                    (res::LUMA_A, Bind::Sampled(&[ref_view])),
                    (res::LUMA_B, Bind::Sampled(&[self.luma[cur].sampled])),
                    (res::READBACK, Bind::Buffer(self.readback.buffer)),
                ],
            )?;
            self.set_compare[cur] = set;

            let set = self.alloc_set(Pass::Histogram)?;
            self.write_set(
                Pass::Histogram,
                set,
                &[
                    (res::LUMA_B, Bind::Sampled(&[self.luma[cur].sampled])),
                    (res::HIST, Bind::Buffer(self.hist.buffer)),
                ],
            )?;
            self.set_hist[cur] = set;

            let b = self.flow_base as usize;
            let fine = [self.flow[b][0].sampled, self.flow[b][1].sampled];
            let set = self.alloc_set(Pass::MotionSelect)?;
            self.write_set(
                Pass::MotionSelect,
                set,
                &[
                    (res::LUMA_A, Bind::Sampled(&[self.luma[prev].sampled])),
                    (res::LUMA_B, Bind::Sampled(&[self.luma[cur].sampled])),
                    (res::FLOW, Bind::SampledInt(&fine)),
                    (res::MOTION, Bind::Storage(&[self.motion.levels[0]])),
                ],
            )?;
            self.set_motion[cur] = set;

            let interp_set = |pass: Pass, still: &Image, output: &Image| {
                let set = self.alloc_set(pass)?;
                self.write_set(
                    pass,
                    set,
                    &[
                        (res::FRAME_A, Bind::Sampled(&[self.frames[prev].sampled])),
                        (res::FRAME_B, Bind::Sampled(&[self.frames[cur].sampled])),
                        (res::FLOW, Bind::SampledInt(&fine)),
                        (res::MOTION, Bind::SampledInt(&[self.motion.sampled])),
                        (res::STILL, Bind::Storage(&[still.levels[0]])),
                        (res::OUTPUT, Bind::Storage(&[output.levels[0]])),
                        (res::STATE, Bind::Buffer(self.state.buffer)),
                    ],
                )?;
                Ok::<_, CreateError>(set)
            };
            let pixel = interp_set(Pass::Interpolate, &self.still, &self.output)?;
            let tile = interp_set(Pass::InterpolateTile, &self.still, &self.output)?;
            let reference = match (&self.still_ref, &self.output_ref) {
                (Some(still), Some(output)) => interp_set(Pass::Interpolate, still, output)?,
                _ => vk::DescriptorSet::null(),
            };
            self.set_interp[cur] = pixel;
            self.set_interp_tile[cur] = tile;
            self.set_interp_ref[cur] = reference;
        }
        if let (Some(still), Some(output)) = (&self.still_ref, &self.output_ref) {
            let set = self.alloc_set(Pass::CompareOutput)?;
            self.write_set(
                Pass::CompareOutput,
                set,
                &[
                    (res::OUTPUT, Bind::Storage(&[self.output.levels[0]])),
                    (res::OUTPUT_REF, Bind::Storage(&[output.levels[0]])),
                    (res::STILL, Bind::Storage(&[self.still.levels[0]])),
                    (res::STILL_REF, Bind::Storage(&[still.levels[0]])),
                    (res::READBACK, Bind::Buffer(self.readback.buffer)),
                ],
            )?;
            self.set_compare_output = set;
        }
        let set = self.alloc_set(Pass::Scene)?;
        self.write_set(
            Pass::Scene,
            set,
            &[
                (res::HIST, Bind::Buffer(self.hist.buffer)),
                (res::STATE, Bind::Buffer(self.state.buffer)),
                (res::READBACK, Bind::Buffer(self.readback.buffer)),
            ],
        )?;
        self.set_scene = set;

        for l in 0..levels {
            let mut down = [vk::DescriptorSet::null(); 2];
            let mut flow = [vk::DescriptorSet::null(); 2];
            let mut flow_ref = [vk::DescriptorSet::null(); 2];
            for cur in 0..2 {
                let prev = cur ^ 1;
                let target = if self.config.path == Path::Both {
                    self.luma_ref.as_ref().expect("made in Both mode")
                } else {
                    &self.luma[cur]
                };
                let set = self.alloc_set(Pass::DownsampleRef)?;
                self.write_set(
                    Pass::DownsampleRef,
                    set,
                    &[
                        (res::LUMA_B, Bind::Sampled(&[target.sampled])),
                        (res::LUMA_LEVEL, Bind::Storage(&[target.levels[l]])),
                    ],
                )?;
                down[cur] = set;

                let coarse_l = (l + 1).min(levels - 1);
                let coarse = [
                    self.flow[coarse_l][0].levels[0],
                    self.flow[coarse_l][1].levels[0],
                ];
                let out = [self.flow[l][0].levels[0], self.flow[l][1].levels[0]];
                let set = self.alloc_set(Pass::FlowSearch)?;
                self.write_set(
                    Pass::FlowSearch,
                    set,
                    &[
                        (res::LUMA_A, Bind::Sampled(&[self.luma[prev].sampled])),
                        (res::LUMA_B, Bind::Sampled(&[self.luma[cur].sampled])),
                        (res::FLOW_COARSE, Bind::Storage(&coarse)),
                        (res::FLOW_OUT, Bind::Storage(&out)),
                    ],
                )?;
                flow[cur] = set;

                // The reference chain: its own images in Both mode.
                let chain = if self.config.path == Path::Both {
                    &self.flow_ref
                } else {
                    &self.flow
                };
                let coarse = [chain[coarse_l][0].levels[0], chain[coarse_l][1].levels[0]];
                let out = [chain[l][0].levels[0], chain[l][1].levels[0]];
                let set = self.alloc_set(Pass::FlowSearchRef)?;
                self.write_set(
                    Pass::FlowSearchRef,
                    set,
                    &[
                        (res::LUMA_A, Bind::Sampled(&[self.luma[prev].sampled])),
                        (res::LUMA_B, Bind::Sampled(&[self.luma[cur].sampled])),
                        (res::FLOW_COARSE, Bind::Storage(&coarse)),
                        (res::FLOW_OUT, Bind::Storage(&out)),
                    ],
                )?;
                flow_ref[cur] = set;
            }
            self.set_down_ref.push(down);
            self.set_flow.push(flow);
            self.set_flow_ref.push(flow_ref);
        }
        let b = self.flow_base as usize;
        let chain = if self.config.path == Path::Both {
            &self.flow_ref
        } else {
            &self.flow
        };
        let refs = [chain[b][0].levels[0], chain[b][1].levels[0]];
        let fast = [self.flow[b][0].levels[0], self.flow[b][1].levels[0]];
        let set = self.alloc_set(Pass::CompareFlow)?;
        self.write_set(
            Pass::CompareFlow,
            set,
            &[
                (res::FLOW_COARSE, Bind::Storage(&refs)),
                (res::FLOW_OUT, Bind::Storage(&fast)),
                (res::READBACK, Bind::Buffer(self.readback.buffer)),
            ],
        )?;
        self.set_compare_flow = set;
        Ok(())
    }
}
