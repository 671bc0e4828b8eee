//! Frame generation on Vulkan compute: the frames between two of the game's.
//!
//! The caller owns the Vulkan instance, device and queue ([`VulkanContext`]);
//! [`FrameGen`] records its passes into the caller's command buffers. All
//! function pointers come through ash from the caller's instance and device.
//!
//! A frame:
//! 1. [`FrameGen::prepare`] (images to `GENERAL` the first time);
//! 2. the caller copies or draws this frame's picture into
//!    [`FrameGen::frame_image`] (`GENERAL` layout);
//! 3. [`FrameGen::record`]: the luma pyramid and the optical flow always run,
//!    the interpolation unless `reset`; it returns whether
//!    [`FrameGen::output_image`] was made;
//! 4. the caller presents `output_image()` (a transfer read), then the game's
//!    frame; with [`FrameGen::set_generated`] above 1, [`FrameGen::interpolate_next`]
//!    makes each further frame into the same image;
//! 5. [`FrameGen::advance`]: this frame becomes the previous one.
//!
//! The passes (GLSL in `shaders/`, SPIR-V in `spirv/`): a luma pyramid;
//! 64-bin luma histograms of 3x3 screen sections compared for scene cuts;
//! coarse-to-fine block-matching optical flow in both directions; per-block
//! motion for the generated frame's time, chosen among flow candidates by a
//! bilateral match and the two flows' agreement (visibility); per-pixel
//! motion-compensated blending that takes covered and revealed content from
//! the one frame that shows it; and a still-region history that keeps static
//! HUD and text in place.

mod caps;
mod gpu;
#[cfg(feature = "headless")]
pub mod headless;
mod interpolator;
#[cfg(feature = "headless")]
pub mod runner;
pub mod shaders;
pub mod spirv;
pub mod synth;

pub use caps::{DeviceCaps, STORAGE_FORMATS, check as check_caps};
pub use interpolator::{
    FrameGen, GpuTime, MemoryUse, SceneReport, flow_base_level, pyramid_levels,
};

use ash::vk;

/// The caller's Vulkan objects. The caller keeps them alive for as long as
/// any [`FrameGen`] made from them.
#[derive(Clone)]
pub struct VulkanContext {
    /// The instance (its function pointers, through ash).
    pub instance: ash::Instance,
    /// The logical device (its function pointers, through ash).
    pub device: ash::Device,
    /// The physical device `device` was made from.
    pub physical_device: vk::PhysicalDevice,
    /// Family of the queue the command buffers are submitted to.
    pub queue_family_index: u32,
    /// The queue (the interpolator only records; the caller submits).
    pub queue: vk::Queue,
    /// The features the caller enabled when it created `device` (Vulkan
    /// cannot report them afterwards; creation checks
    /// `shaderStorageImageExtendedFormats` here).
    pub enabled_features: vk::PhysicalDeviceFeatures,
}

/// Which version of the optimised passes runs: the luma pyramid (one
/// dispatch with subgroup quads against one per level) and the block search
/// (work split over all invocations against one invocation per candidate).
/// The plain versions are kept behind this switch and give the same results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Path {
    /// The optimised passes.
    #[default]
    Fast,
    /// The plain passes.
    Reference,
    /// Both, compared on the GPU (every luma texel, every final flow
    /// vector); see [`FrameGen::reference_mismatches`]. Tests run in this mode.
    Both,
}

impl Path {
    /// From the environment variable `FRAMEGEN_REFERENCE`: `0` (or unset)
    /// fast, `1` reference, `2` both and compare.
    pub fn from_env() -> Path {
        match std::env::var("FRAMEGEN_REFERENCE").as_deref() {
            Ok("1") => Path::Reference,
            Ok("2") => Path::Both,
            _ => Path::Fast,
        }
    }
}

/// What the interpolator is created for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Picture width in pixels (normally the shown picture's).
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
    /// Format of [`FrameGen::frame_image`]: `R8G8B8A8_UNORM` (default) or
    /// `B8G8R8A8_UNORM` (for pipelines that draw in a BGRA swapchain's
    /// format). The output is the same either way.
    pub frame_format: vk::Format,
    /// Fast or reference passes ([`Path::from_env`] by default).
    pub path: Path,
    /// Pyramid level of the final optical flow (0: 8x8-pixel blocks of the
    /// picture, 1: 16x16, 2: 32x32); `None` picks by size
    /// ([`flow_base_level`]).
    pub flow_level: Option<u32>,
}

impl Config {
    /// A configuration for `width` x `height` RGBA8 frames.
    pub fn new(width: u32, height: u32) -> Config {
        Config {
            width,
            height,
            frame_format: vk::Format::R8G8B8A8_UNORM,
            path: Path::from_env(),
            flow_level: None,
        }
    }
}

/// Smallest frame side the pyramid supports (three levels of 8x8 blocks).
pub const MIN_SIDE: u32 = 32;

/// Why [`FrameGen::new`] failed.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The device lacks something the shaders use.
    #[error("the Vulkan device lacks {feature}: {why}")]
    MissingFeature {
        /// What is missing, in Vulkan's words.
        feature: &'static str,
        /// What needs it.
        why: &'static str,
    },
    /// A format cannot be used as the passes use it.
    #[error("the Vulkan device cannot use {format:?} as a {usage}: {why}")]
    FormatUnsupported {
        /// The format.
        format: vk::Format,
        /// How it is used.
        usage: &'static str,
        /// What needs it.
        why: &'static str,
    },
    /// The device is older than Vulkan 1.1.
    #[error("the Vulkan device supports Vulkan {found}; the interpolator needs 1.1")]
    ApiVersion {
        /// The version the device reports.
        found: String,
    },
    /// The configuration is not usable.
    #[error("bad configuration: {0}")]
    BadConfig(String),
    /// No memory type fits.
    #[error("no memory type with {flags:?}")]
    NoMemoryType {
        /// The properties asked for.
        flags: vk::MemoryPropertyFlags,
    },
    /// A shader module could not be read.
    #[error("shader {pass}: {error}")]
    Shader {
        /// The pass.
        pass: &'static str,
        /// What is wrong with it.
        error: String,
    },
    /// A Vulkan call failed.
    #[error("{what} failed for {pass}: {result}")]
    Vulkan {
        /// The call.
        what: &'static str,
        /// The pass or resource it was for.
        pass: &'static str,
        /// The result.
        result: vk::Result,
    },
}
