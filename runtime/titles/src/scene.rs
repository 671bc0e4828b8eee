//! The built-in scene: a native animated scene
//! drawn by a compute shader (`shaders/scene.comp`; cheap on lavapipe):
//! parallax layers, a rotating pinwheel, a cut (new palette and layout)
//! every few seconds of game time, a static HUD, at a chosen game rate.

use anyhow::{Context, Result};
use ash::vk;
use framegen_dump::font;
use framegen_present::VideoOutSettings;
use framegen_present::gpu::{self, HostBuffer, OwnedImage};
use serde_json::json;

use crate::title::{GameRate, RenderSlot, TickClock, Title, TitleFrame};

/// The committed SPIR-V of `shaders/scene.comp` (`./x regen` rebuilds it).
pub const SCENE_SPV: &[u8] = include_bytes!("../spirv/scene.spv");

/// The HUD's text (static: the interpolator must keep it in place).
pub const HUD_TEXT: &str = "HOST-SIM DEMO  SCORE 004250  LIVES 3";

/// Scene units per HUD mask pixel.
const HUD_SCALE: u32 = 2;

/// Bytes of the shader's push constants.
const PUSH_BYTES: usize = 112;

/// The scenes' palettes (one per cut, in turn): sky top, sky bottom, far,
/// middle and near layer.
const PALETTES: [[[f32; 3]; 5]; 4] = [
    [
        [0.20, 0.45, 0.85],
        [0.85, 0.80, 0.70],
        [0.35, 0.45, 0.55],
        [0.55, 0.35, 0.30],
        [0.25, 0.55, 0.20],
    ],
    [
        [0.05, 0.05, 0.20],
        [0.35, 0.15, 0.40],
        [0.15, 0.10, 0.25],
        [0.20, 0.20, 0.35],
        [0.10, 0.30, 0.35],
    ],
    [
        [0.95, 0.55, 0.20],
        [0.95, 0.85, 0.50],
        [0.55, 0.30, 0.20],
        [0.40, 0.40, 0.45],
        [0.70, 0.60, 0.30],
    ],
    [
        [0.50, 0.75, 0.80],
        [0.95, 0.95, 0.95],
        [0.60, 0.70, 0.75],
        [0.30, 0.45, 0.60],
        [0.85, 0.85, 0.90],
    ],
];

/// How the scene is set up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneOptions {
    /// Picture width.
    pub width: u32,
    /// Picture height.
    pub height: u32,
    /// The game's frame rate.
    pub rate: GameRate,
    /// A cut every this many seconds of game time (0: none).
    pub cut_every_s: f64,
    /// The game's video-out colour settings.
    pub settings: VideoOutSettings,
}

/// The built-in scene.
pub struct BuiltinScene {
    device: ash::Device,
    opts: SceneOptions,
    clock: TickClock,
    picture: OwnedImage,
    hud: HostBuffer,
    hud_size: (u32, u32),
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    ticks_total: u64,
    frame: u64,
    variant: Option<u64>,
}

/// The HUD text as a 1-bit mask, 32 pixels a word, rows packed.
pub fn hud_mask(text: &str) -> (u32, u32, Vec<u32>) {
    let w = font::text_width(text, 1);
    let h = font::text_height(text, 1);
    let mut words = vec![0u32; (w * h).div_ceil(32) as usize];
    font::rasterize(text, 0, 0, 1, |x, y| {
        if x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h {
            let bit = y as u32 * w + x as u32;
            words[(bit / 32) as usize] |= 1 << (bit % 32);
        }
    });
    (w, h, words)
}

impl BuiltinScene {
    /// Creates the scene's picture and pipeline on `device`.
    pub fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        opts: SceneOptions,
    ) -> Result<BuiltinScene> {
        let words = framegen::spirv::words_from_bytes(SCENE_SPV)
            .map_err(|e| anyhow::anyhow!("scene.spv: {e}"))?;
        let picture = OwnedImage::new(
            device,
            props,
            vk::Format::R8G8B8A8_UNORM,
            opts.width,
            opts.height,
            vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::TRANSFER_SRC,
            true,
        )
        .context("the scene's picture")?;
        let (hw, hh, mask) = hud_mask(HUD_TEXT);
        let mut hud = HostBuffer::new(
            device,
            props,
            mask.len() * 4,
            vk::BufferUsageFlags::STORAGE_BUFFER,
        )
        .context("the scene's HUD mask")?;
        for (i, w) in mask.iter().enumerate() {
            hud.bytes_mut()[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        // SAFETY: valid create infos on the caller's device; destroyed in Drop.
        let (set_layout, layout, pipeline, pool, set) = unsafe {
            let bindings = [
                vk::DescriptorSetLayoutBinding::default()
                    .binding(0)
                    .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
                vk::DescriptorSetLayoutBinding::default()
                    .binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            ];
            let set_layout = device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .context("vkCreateDescriptorSetLayout")?;
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .size(PUSH_BYTES as u32)];
            let sl = [set_layout];
            let layout = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&sl)
                        .push_constant_ranges(&ranges),
                    None,
                )
                .context("vkCreatePipelineLayout")?;
            let module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
                .context("vkCreateShaderModule")?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)];
            let pipeline = device
                .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
                .map_err(|(_, e)| anyhow::anyhow!("vkCreateComputePipelines (scene): {e}"))?[0];
            device.destroy_shader_module(module, None);
            let sizes = [
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_IMAGE,
                    descriptor_count: 1,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: 1,
                },
            ];
            let pool = device
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .context("vkCreateDescriptorPool")?;
            let set = device
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&sl),
                )
                .context("vkAllocateDescriptorSets")?[0];
            let img = [vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view: picture.view,
                image_layout: vk::ImageLayout::GENERAL,
            }];
            let buf = [vk::DescriptorBufferInfo {
                buffer: hud.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                    .image_info(&img),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&buf),
            ];
            device.update_descriptor_sets(&writes, &[]);
            (set_layout, layout, pipeline, pool, set)
        };
        Ok(BuiltinScene {
            device: device.clone(),
            opts,
            clock: TickClock::for_rate(opts.rate),
            picture,
            hud,
            hud_size: (hw, hh),
            set_layout,
            layout,
            pipeline,
            pool,
            set,
            ticks_total: 0,
            frame: 0,
            variant: None,
        })
    }

    /// The picture (for tests that read it back).
    pub fn picture(&self) -> vk::Image {
        self.picture.image
    }
}

impl Title for BuiltinScene {
    fn name(&self) -> String {
        "built-in scene".into()
    }

    fn tick_hz(&self) -> f64 {
        self.clock.hz
    }

    fn frame_limit_fps(&self) -> Option<f64> {
        match self.opts.rate {
            GameRate::Fixed(f) => Some(f),
            GameRate::Uneven => None,
        }
    }

    fn render(&mut self, at: RenderSlot) -> Result<Option<TitleFrame>> {
        let cmd = at.cmd;
        let ticks = self.clock.next_ticks();
        // Frame 0 is at game time 0; each later one `ticks` after the last.
        if self.frame > 0 {
            self.ticks_total += u64::from(ticks);
        }
        let t = self.ticks_total as f64 / self.clock.hz;
        let (variant, t_in) = if self.opts.cut_every_s > 0.0 {
            let v = (t / self.opts.cut_every_s).floor();
            (v as u64, t - v * self.opts.cut_every_s)
        } else {
            (0, t)
        };
        let cut = self.variant.is_some_and(|v| v != variant);
        self.variant = Some(variant);
        let d = &self.device;
        let old = if self.frame == 0 {
            vk::ImageLayout::UNDEFINED
        } else {
            vk::ImageLayout::GENERAL
        };
        // The last frame's reads of the picture (the present loop's scaler) first.
        gpu::image_barrier(
            d,
            cmd,
            self.picture.image,
            old,
            vk::ImageLayout::GENERAL,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::MEMORY_READ,
            vk::AccessFlags::SHADER_WRITE,
        );
        let mut pc = [0u8; PUSH_BYTES];
        let words = [
            self.opts.width,
            self.opts.height,
            (t_in as f32).to_bits(),
            variant as u32,
            self.hud_size.0,
            self.hud_size.1,
            HUD_SCALE,
            0,
        ];
        for (i, w) in words.iter().enumerate() {
            pc[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        for (i, c) in PALETTES[(variant % 4) as usize].iter().enumerate() {
            for (k, v) in c.iter().chain(&[1.0]).enumerate() {
                let at = 32 + i * 16 + k * 4;
                pc[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        // SAFETY: `cmd` is recording; our pipeline, layout and set.
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_push_constants(cmd, self.layout, vk::ShaderStageFlags::COMPUTE, 0, &pc);
            d.cmd_dispatch(
                cmd,
                self.opts.width.div_ceil(8),
                self.opts.height.div_ceil(8),
                1,
            );
        }
        gpu::memory_barrier(
            d,
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::SHADER_WRITE,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::TRANSFER_READ,
        );
        self.frame += 1;
        Ok(Some(TitleFrame {
            view: self.picture.view,
            width: self.opts.width,
            height: self.opts.height,
            ticks,
            cut,
            settings: self.opts.settings,
        }))
    }

    fn describe(&self) -> serde_json::Value {
        json!({
            "name": self.name(),
            "picture": format!("{}x{}", self.opts.width, self.opts.height),
            "game_fps": self.opts.rate.to_string(),
            "tick_hz": self.clock.hz,
            "cut_every_s": self.opts.cut_every_s,
            "gamma": self.opts.settings.gamma,
            "limited_range": self.opts.settings.limited_range,
        })
    }
}

impl Drop for BuiltinScene {
    fn drop(&mut self) {
        let d = &self.device;
        // SAFETY: waiting for the device, then destroying our objects.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
        }
        self.hud.destroy(d);
        self.picture.destroy(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hud_mask_bits() {
        let (w, h, words) = hud_mask("1");
        assert_eq!((w, h), (6, 8));
        // '1' has one pixel in its top row, at column 2.
        assert_eq!(words[0] & 0x3f, 1 << 2);
    }
}
