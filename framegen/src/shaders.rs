//! The compute passes: their committed SPIR-V, the resource numbers they use,
//! and loading them (binding renumbering, set layouts, pipelines).

use ash::vk;

use crate::spirv::{self, BindingTable};

/// Resource numbers, as `shaders/common.glsl` names them (`B_*`). A pass's
/// bindings are given by these numbers in the GLSL; after loading they are
/// renumbered, and descriptor writes look the new number up by these.
#[allow(missing_docs)]
pub mod res {
    pub const FRAME_A: u32 = 0;
    pub const FRAME_B: u32 = 1;
    pub const LUMA_A: u32 = 10;
    pub const LUMA_B: u32 = 11;
    pub const LUMA_OUT: u32 = 20;
    pub const LUMA_LEVEL: u32 = 21;
    pub const HIST: u32 = 30;
    pub const STATE: u32 = 31;
    pub const READBACK: u32 = 32;
    pub const FLOW_COARSE: u32 = 40;
    pub const FLOW_OUT: u32 = 41;
    pub const FLOW: u32 = 42;
    pub const MOTION: u32 = 50;
    pub const STILL: u32 = 60;
    pub const STILL_REF: u32 = 61;
    pub const OUTPUT: u32 = 70;
    pub const OUTPUT_REF: u32 = 71;
    /// Every resource with its name in common.glsl (checked by a test).
    pub const ALL: [(&str, u32); 17] = [
        ("B_FRAME_A", FRAME_A),
        ("B_FRAME_B", FRAME_B),
        ("B_LUMA_A", LUMA_A),
        ("B_LUMA_B", LUMA_B),
        ("B_LUMA_OUT", LUMA_OUT),
        ("B_LUMA_LEVEL", LUMA_LEVEL),
        ("B_HIST", HIST),
        ("B_STATE", STATE),
        ("B_READBACK", READBACK),
        ("B_FLOW_COARSE", FLOW_COARSE),
        ("B_FLOW_OUT", FLOW_OUT),
        ("B_FLOW", FLOW),
        ("B_MOTION", MOTION),
        ("B_STILL", STILL),
        ("B_STILL_REF", STILL_REF),
        ("B_OUTPUT", OUTPUT),
        ("B_OUTPUT_REF", OUTPUT_REF),
    ];
}

/// Constants of common.glsl the host relies on (checked by a test).
pub mod consts {
    /// Levels in the pyramid at most (`MAX_LEVELS`).
    pub const MAX_LEVELS: u32 = 7;
    /// Flow block size in pixels (`BLOCK`).
    pub const BLOCK: u32 = 8;
    /// Flow vectors are in 1/`SUBPX` pixel (`SUBPX`).
    pub const SUBPX: f32 = 8.0;
    /// Bins per histogram (`HIST_BINS`).
    pub const HIST_BINS: u32 = 64;
    /// Histogram regions (`HIST_REGIONS`).
    pub const HIST_REGIONS: u32 = 9;
    /// Pyramid level the histograms are made from (`HIST_LEVEL`).
    pub const HIST_LEVEL: u32 = 2;
    /// Entries of the scene-result ring in the readback buffer (`READBACK_SLOTS`).
    pub const READBACK_SLOTS: u32 = 8;
    /// Push-constant flag: the interpolation keeps the still history.
    pub const FLAG_WRITE_HISTORY: u32 = 1;
    /// Push-constant flag: the flow level has no coarser level.
    pub const FLAG_COARSEST: u32 = 2;
    /// Push-constant flag: the interpolation weighs the motions of 3x3
    /// blocks (small pictures) rather than 2x2.
    pub const FLAG_WIDE: u32 = 4;
}

/// One compute pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Luma pyramid, all levels in one dispatch (fast path).
    Pyramid,
    /// Luma pyramid reference path: level 0.
    LumaRef,
    /// Luma pyramid reference path: one level from the one below.
    DownsampleRef,
    /// Counts differences between the fast and the reference pyramid.
    Compare,
    /// Per-region luma histograms.
    Histogram,
    /// Scene-change decision.
    Scene,
    /// One level of the block-matching optical flow (fast path).
    FlowSearch,
    /// One level of the block-matching optical flow (reference path).
    FlowSearchRef,
    /// Counts differences between the fast and the reference flow.
    CompareFlow,
    /// Per-block motion at time t.
    MotionSelect,
    /// The generated frame, per pixel (reference path).
    Interpolate,
    /// The generated frame, per tile of pixels that share their candidate
    /// motions (fast path; the same picture as [`Pass::Interpolate`]).
    InterpolateTile,
    /// Counts differences between the fast and the reference interpolation.
    CompareOutput,
}

impl Pass {
    /// Every pass.
    pub const ALL: [Pass; 13] = [
        Pass::Pyramid,
        Pass::LumaRef,
        Pass::DownsampleRef,
        Pass::Compare,
        Pass::Histogram,
        Pass::Scene,
        Pass::FlowSearch,
        Pass::FlowSearchRef,
        Pass::CompareFlow,
        Pass::MotionSelect,
        Pass::Interpolate,
        Pass::InterpolateTile,
        Pass::CompareOutput,
    ];

    /// The file name (without extension) in shaders/ and spirv/.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Pyramid => "pyramid",
            Pass::LumaRef => "luma_ref",
            Pass::DownsampleRef => "downsample_ref",
            Pass::Compare => "compare",
            Pass::Histogram => "histogram",
            Pass::Scene => "scene",
            Pass::FlowSearch => "flow_search",
            Pass::FlowSearchRef => "flow_search_ref",
            Pass::CompareFlow => "compare_flow",
            Pass::MotionSelect => "motion_select",
            Pass::Interpolate => "interpolate",
            Pass::InterpolateTile => "interpolate_tile",
            Pass::CompareOutput => "compare_output",
        }
    }

    /// The committed SPIR-V of the pass, as glslc wrote it.
    pub fn spirv_bytes(self) -> &'static [u8] {
        match self {
            Pass::Pyramid => include_bytes!("../spirv/pyramid.spv"),
            Pass::LumaRef => include_bytes!("../spirv/luma_ref.spv"),
            Pass::DownsampleRef => include_bytes!("../spirv/downsample_ref.spv"),
            Pass::Compare => include_bytes!("../spirv/compare.spv"),
            Pass::Histogram => include_bytes!("../spirv/histogram.spv"),
            Pass::Scene => include_bytes!("../spirv/scene.spv"),
            Pass::FlowSearch => include_bytes!("../spirv/flow_search.spv"),
            Pass::FlowSearchRef => include_bytes!("../spirv/flow_search_ref.spv"),
            Pass::CompareFlow => include_bytes!("../spirv/compare_flow.spv"),
            Pass::MotionSelect => include_bytes!("../spirv/motion_select.spv"),
            Pass::Interpolate => include_bytes!("../spirv/interpolate.spv"),
            Pass::InterpolateTile => include_bytes!("../spirv/interpolate_tile.spv"),
            Pass::CompareOutput => include_bytes!("../spirv/compare_output.spv"),
        }
    }

    /// The pass's SPIR-V with its bindings renumbered 0..n-1, and the table.
    pub fn renumbered(self) -> Result<(Vec<u32>, BindingTable), spirv::SpirvError> {
        let mut words = spirv::words_from_bytes(self.spirv_bytes())?;
        let table = spirv::renumber_bindings(&mut words)?;
        Ok((words, table))
    }
}

/// The specialization-constant sets a pass is built with, named (the
/// default first, named ""): for tools that compare them
/// (`fg shader-stats`).
pub fn spec_variants(pass: Pass) -> &'static [(&'static str, &'static [(u32, u32)])] {
    match pass {
        Pass::InterpolateTile => &[
            ("", &[(0, 0), (1, 8)]),
            ("tile 16", &[(0, 0), (1, 16)]),
            ("tilevis", &[(0, 1), (1, 8)]),
        ],
        Pass::MotionSelect => &[("", &[(0, 1)]), ("msps", &[(0, 0)])],
        _ => &[("", &[])],
    }
}

/// Size of the push-constant block (`Push` in common.glsl), in bytes.
pub const PUSH_BYTES: u32 = 40;

/// The push constants, laid out as `Push` in common.glsl.
#[derive(Debug, Clone, Copy, Default)]
pub struct Push {
    /// Frame size.
    pub size: [i32; 2],
    /// Level this dispatch works on.
    pub level: i32,
    /// Levels in the pyramid.
    pub levels: i32,
    /// Time of the generated frame.
    pub t: f32,
    /// `consts::FLAG_*`.
    pub flags: u32,
    /// Frame serial.
    pub serial: u32,
    /// Search radius.
    pub radius: i32,
    /// Histogram slot of the current frame.
    pub cur: u32,
    /// Side of the interpolation's motion blocks, in pixels.
    pub mblock: i32,
}

impl Push {
    /// The bytes to push.
    pub fn bytes(&self) -> [u8; PUSH_BYTES as usize] {
        let words: [u32; 10] = [
            self.size[0] as u32,
            self.size[1] as u32,
            self.level as u32,
            self.levels as u32,
            self.t.to_bits(),
            self.flags,
            self.serial,
            self.radius as u32,
            self.cur,
            self.mblock as u32,
        ];
        let mut out = [0u8; PUSH_BYTES as usize];
        for (i, w) in words.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

/// A loaded pass: its renumbered binding table, set layout and pipeline.
pub struct LoadedPass {
    /// Which pass.
    pub pass: Pass,
    /// Bindings after renumbering (set 0).
    pub table: BindingTable,
    /// The set layout built from `table`.
    pub set_layout: vk::DescriptorSetLayout,
    /// Layout: the set and the push constants.
    pub pipeline_layout: vk::PipelineLayout,
    /// The compute pipeline.
    pub pipeline: vk::Pipeline,
}

/// Loads one pass: renumbers its bindings, builds its set layout from the
/// table, creates its pipeline.
pub fn load(device: &ash::Device, pass: Pass) -> Result<LoadedPass, crate::CreateError> {
    load_with(device, pass, &[], vk::PipelineCreateFlags::empty())
}

/// [`load`] with specialization constants (`(constant_id, value)`, 32-bit
/// each) and pipeline creation flags (e.g. `CAPTURE_STATISTICS_KHR` for the
/// `fg shader-stats` tool).
pub fn load_with(
    device: &ash::Device,
    pass: Pass,
    constants: &[(u32, u32)],
    flags: vk::PipelineCreateFlags,
) -> Result<LoadedPass, crate::CreateError> {
    let (words, table) = pass.renumbered().map_err(|e| crate::CreateError::Shader {
        pass: pass.name(),
        error: e.to_string(),
    })?;
    let bindings: Vec<vk::DescriptorSetLayoutBinding> = table
        .set(0)
        .map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b.binding)
                .descriptor_type(b.descriptor_type)
                .descriptor_count(b.count)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let vk_err = |what: &'static str| {
        move |e: vk::Result| crate::CreateError::Vulkan {
            what,
            pass: pass.name(),
            result: e,
        }
    };
    // SAFETY: `device` is a valid device; the create infos point at locals
    // that outlive the calls. Objects are destroyed in `destroy`.
    unsafe {
        let set_layout = device
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(PUSH_BYTES)];
        let layouts = [set_layout];
        let pipeline_layout = device
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&layouts)
                    .push_constant_ranges(&ranges),
                None,
            )
            .map_err(vk_err("vkCreatePipelineLayout"))?;
        let module = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
            .map_err(vk_err("vkCreateShaderModule"))?;
        let entries: Vec<vk::SpecializationMapEntry> = constants
            .iter()
            .enumerate()
            .map(|(i, (id, _))| vk::SpecializationMapEntry {
                constant_id: *id,
                offset: 4 * i as u32,
                size: 4,
            })
            .collect();
        let data: Vec<u8> = constants
            .iter()
            .flat_map(|(_, v)| v.to_le_bytes())
            .collect();
        let spec = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(&data);
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        if !constants.is_empty() {
            stage = stage.specialization_info(&spec);
        }
        let info = vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .stage(stage)
            .layout(pipeline_layout);
        let result = device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None);
        device.destroy_shader_module(module, None);
        let pipeline = result.map_err(|(_, e)| vk_err("vkCreateComputePipelines")(e))?[0];
        Ok(LoadedPass {
            pass,
            table,
            set_layout,
            pipeline_layout,
            pipeline,
        })
    }
}

impl LoadedPass {
    /// Destroys the pipeline and its layouts.
    ///
    /// # Safety
    /// The GPU must be done with the pipeline, and `device` must be the one
    /// it was created on.
    pub unsafe fn destroy(&self, device: &ash::Device) {
        // SAFETY: the caller guarantees the objects are idle and ours.
        unsafe {
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}
