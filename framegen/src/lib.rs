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

/// Which version of the interpolation pass the fast path runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InterpVariant {
    /// Per tile of pixels that share their candidate motions
    /// (`interpolate_tile.comp`): the reference's picture, bit for bit.
    #[default]
    Tile,
    /// As `Tile`, with the visibility test once per tile rather than per
    /// pixel (not the reference's picture; for measurements).
    TileVis,
    /// The per-pixel pass (`interpolate.comp`, the reference) on the fast
    /// path too.
    Pixel,
}

/// Alternatives of the passes, for comparing them on a device
/// (`fg bench-gpu --variants`) and for the quality bench. The default is
/// what the library uses; [`Variant::parse`] reads the names the tools take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Variant {
    /// The interpolation pass of the fast path.
    pub interp: InterpVariant,
    /// Side of the interpolation's motion blocks in pixels, 8 or 16; `None`:
    /// 16 where the flow is at level 2 or coarser (1440p, 2160p), else 8.
    /// Small pictures (flow at level 0) always use 8.
    pub motion_block: Option<u32>,
    /// Motion selection scores one sample per invocation over all
    /// candidates (quad sums and shared atomics), rather than one distinct
    /// candidate per invocation over all samples (the same result; the
    /// earlier layout, slightly slower on the H200).
    pub motion_per_sample: bool,
}

impl Variant {
    /// The names [`Variant::parse`] takes, with what each does.
    pub const NAMES: [(&'static str, &'static str); 7] = [
        ("base", "the default (nothing changed)"),
        (
            "tile",
            "interpolation per tile of a motion block's size (the default)",
        ),
        ("tilevis", "interpolation per tile, visibility per tile"),
        ("pixel", "interpolation per pixel (the reference pass)"),
        ("mb8", "motion blocks of 8x8 pixels at every size"),
        (
            "mb16",
            "motion blocks of 16x16 pixels (where the flow is at level 1 or 2)",
        ),
        (
            "msps",
            "motion selection: one invocation per sample (same result)",
        ),
    ];

    /// Parses `+`- or `,`-separated names of [`Variant::NAMES`] (`base` or
    /// empty: the default).
    pub fn parse(s: &str) -> Result<Variant, String> {
        let mut v = Variant::default();
        for name in s.split([',', '+']).map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "base" => {}
                "tile" => v.interp = InterpVariant::Tile,
                "tilevis" => v.interp = InterpVariant::TileVis,
                "pixel" => v.interp = InterpVariant::Pixel,
                "mb8" => v.motion_block = Some(8),
                "mb16" => v.motion_block = Some(16),
                "msps" => v.motion_per_sample = true,
                other => {
                    let known: Vec<&str> = Variant::NAMES.iter().map(|(n, _)| *n).collect();
                    return Err(format!(
                        "unknown variant '{other}' (known: {})",
                        known.join(", ")
                    ));
                }
            }
        }
        Ok(v)
    }

    /// From the environment variable `FRAMEGEN_VARIANT` (see
    /// [`Variant::parse`]); the default when it is unset or not understood
    /// (which is logged).
    pub fn from_env() -> Variant {
        match std::env::var("FRAMEGEN_VARIANT") {
            Ok(s) => Variant::parse(&s).unwrap_or_else(|e| {
                log::warn!("FRAMEGEN_VARIANT: {e}; using the default");
                Variant::default()
            }),
            Err(_) => Variant::default(),
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
    /// Pass alternatives ([`Variant::from_env`] by default).
    pub variant: Variant,
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
            variant: Variant::from_env(),
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

#[cfg(test)]
mod tests {
    use super::{InterpVariant, Variant};

    #[test]
    fn variant_names_parse() {
        assert_eq!(Variant::parse("").unwrap(), Variant::default());
        assert_eq!(Variant::parse("base").unwrap(), Variant::default());
        let v = Variant::parse("pixel+mb8, msps").unwrap();
        assert_eq!(v.interp, InterpVariant::Pixel);
        assert_eq!(v.motion_block, Some(8));
        assert!(v.motion_per_sample);
        for (name, _) in Variant::NAMES {
            assert!(Variant::parse(name).is_ok(), "{name}");
        }
        let e = Variant::parse("mb8+bogus").unwrap_err();
        assert!(e.contains("'bogus'") && e.contains("tilevis"), "{e}");
    }
}
