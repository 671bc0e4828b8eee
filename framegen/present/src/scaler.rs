//! The compute pass that makes the shown picture from the game's picture
//! (`shaders/present.comp`): scaled to the display with black borders, with
//! the game's gamma and RGB range. Its output is the game's presented frame
//! and the interpolator's input, so the two always match.

use std::collections::HashMap;

use ash::vk;

use crate::PresentError;
use crate::colour::{PushConstants, VideoOutSettings};
use crate::gpu::{self, OwnedImage, vk_err};

/// The committed SPIR-V of `shaders/present.comp` (`./x regen` rebuilds it).
pub const PRESENT_SPV: &[u8] = include_bytes!("../spirv/present.spv");

/// Most descriptor sets kept (one per game picture view seen).
const MAX_SETS: u32 = 16;

/// The pass and its output picture.
pub struct Scaler {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    sampler: vk::Sampler,
    pool: vk::DescriptorPool,
    sets: HashMap<vk::ImageView, vk::DescriptorSet>,
    /// The display-size RGBA8 picture it writes (`GENERAL` layout after the
    /// first frame).
    pub picture: OwnedImage,
    initialized: bool,
}

impl Scaler {
    /// Creates the pass for a `width` x `height` display.
    pub fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        width: u32,
        height: u32,
    ) -> Result<Scaler, PresentError> {
        let words = framegen::spirv::words_from_bytes(PRESENT_SPV)
            .map_err(|e| PresentError::Shader(format!("present.spv: {e}")))?;
        let picture = OwnedImage::new(
            device,
            props,
            vk::Format::R8G8B8A8_UNORM,
            width,
            height,
            vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_SRC,
            true,
        )?;
        // SAFETY: valid create infos on the caller's device; destroyed in
        // `destroy`.
        unsafe {
            let bindings = [
                vk::DescriptorSetLayoutBinding::default()
                    .binding(0)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
                vk::DescriptorSetLayoutBinding::default()
                    .binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            ];
            let set_layout = device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .offset(0)
                .size(40)];
            let set_layouts = [set_layout];
            let layout = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&set_layouts)
                        .push_constant_ranges(&ranges),
                    None,
                )
                .map_err(vk_err("vkCreatePipelineLayout"))?;
            let module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
                .map_err(vk_err("vkCreateShaderModule"))?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)];
            let pipeline = device
                .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
                .map_err(|(_, e)| PresentError::Vulkan {
                    call: "vkCreateComputePipelines",
                    result: e,
                })?[0];
            device.destroy_shader_module(module, None);
            let sampler = device
                .create_sampler(
                    &vk::SamplerCreateInfo::default()
                        .mag_filter(vk::Filter::NEAREST)
                        .min_filter(vk::Filter::NEAREST)
                        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE),
                    None,
                )
                .map_err(vk_err("vkCreateSampler"))?;
            let sizes = [
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                    descriptor_count: MAX_SETS,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_IMAGE,
                    descriptor_count: MAX_SETS,
                },
            ];
            let pool = device
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(MAX_SETS)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(vk_err("vkCreateDescriptorPool"))?;
            Ok(Scaler {
                set_layout,
                layout,
                pipeline,
                sampler,
                pool,
                sets: HashMap::new(),
                picture,
                initialized: false,
            })
        }
    }

    fn set_for(
        &mut self,
        device: &ash::Device,
        src_view: vk::ImageView,
    ) -> Result<vk::DescriptorSet, PresentError> {
        if let Some(s) = self.sets.get(&src_view) {
            return Ok(*s);
        }
        if self.sets.len() as u32 >= MAX_SETS {
            return Err(PresentError::Other(format!(
                "more than {MAX_SETS} different game picture views: give the present loop the same few views"
            )));
        }
        let layouts = [self.set_layout];
        // SAFETY: our pool and layout; the views are alive (caller's contract).
        unsafe {
            let set = device
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(self.pool)
                        .set_layouts(&layouts),
                )
                .map_err(vk_err("vkAllocateDescriptorSets"))?[0];
            let src = [vk::DescriptorImageInfo {
                sampler: self.sampler,
                image_view: src_view,
                image_layout: vk::ImageLayout::GENERAL,
            }];
            let dst = [vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view: self.picture.view,
                image_layout: vk::ImageLayout::GENERAL,
            }];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .image_info(&src),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                    .image_info(&dst),
            ];
            device.update_descriptor_sets(&writes, &[]);
            self.sets.insert(src_view, set);
            Ok(set)
        }
    }

    /// Records the pass: the game's picture (`src_view`, `src_w` x `src_h`,
    /// `GENERAL` layout, written by earlier work on the same queue) into
    /// [`Scaler::picture`], then a barrier that makes it ready for transfer
    /// reads.
    pub fn record(
        &mut self,
        device: &ash::Device,
        cmd: vk::CommandBuffer,
        src_view: vk::ImageView,
        src_w: u32,
        src_h: u32,
        settings: VideoOutSettings,
    ) -> Result<(), PresentError> {
        let set = self.set_for(device, src_view)?;
        let old = if self.initialized {
            vk::ImageLayout::GENERAL
        } else {
            vk::ImageLayout::UNDEFINED
        };
        self.initialized = true;
        // The game's writes and the last frame's reads of the picture come first.
        gpu::image_barrier(
            device,
            cmd,
            self.picture.image,
            old,
            vk::ImageLayout::GENERAL,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::MEMORY_WRITE | vk::AccessFlags::TRANSFER_READ,
            vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::SHADER_READ,
        );
        gpu::memory_barrier(
            device,
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::AccessFlags::MEMORY_WRITE,
            vk::AccessFlags::SHADER_READ,
        );
        let pc = PushConstants::new(
            src_w,
            src_h,
            self.picture.width,
            self.picture.height,
            settings,
        );
        // SAFETY: `cmd` is recording; our pipeline, layout and set.
        unsafe {
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[set],
                &[],
            );
            device.cmd_push_constants(
                cmd,
                self.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &pc.bytes(),
            );
            device.cmd_dispatch(
                cmd,
                self.picture.width.div_ceil(8),
                self.picture.height.div_ceil(8),
                1,
            );
        }
        gpu::memory_barrier(
            device,
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::SHADER_WRITE,
            vk::AccessFlags::TRANSFER_READ,
        );
        Ok(())
    }

    /// Destroys the pass (the GPU must be done with it).
    pub fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: ours, idle (caller's contract).
        unsafe {
            device.destroy_descriptor_pool(self.pool, None);
            device.destroy_sampler(self.sampler, None);
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
        }
        self.picture.destroy(device);
    }
}
