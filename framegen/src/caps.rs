//! What the interpolator needs from the device, and the check that creation
//! runs before anything else.
//!
//! The check works on a [`DeviceCaps`] value, not on the device, so that a
//! test can present a device that lacks any one thing and see the error that
//! names it.

use ash::vk;

use crate::{Config, CreateError, VulkanContext};

/// Storage-image formats the passes write, and why.
pub const STORAGE_FORMATS: [(vk::Format, &str); 4] = [
    (vk::Format::R8_UNORM, "luma pyramid and still history (r8)"),
    (vk::Format::R16G16_SINT, "optical flow vectors (rg16i)"),
    (vk::Format::R16G16B16A16_SINT, "per-block motion (rgba16i)"),
    (vk::Format::R8G8B8A8_UNORM, "the generated frame (rgba8)"),
];

/// Shared memory the largest pass uses (flow_search.comp, about 3 KiB), in
/// bytes, with room (16 KiB is Vulkan's guaranteed minimum).
pub const SHARED_MEMORY_BYTES: u32 = 16 * 1024;

/// Everything creation checks, as queried from the physical device and as
/// enabled by the caller on the logical device.
#[derive(Debug, Clone)]
pub struct DeviceCaps {
    /// `VkPhysicalDeviceProperties::apiVersion`.
    pub api_version: u32,
    /// Whether `shaderStorageImageExtendedFormats` is enabled on the device.
    pub storage_image_extended_formats: bool,
    /// Stages with subgroup operations (`VkPhysicalDeviceSubgroupProperties`).
    pub subgroup_stages: vk::ShaderStageFlags,
    /// Subgroup operations supported (`VkPhysicalDeviceSubgroupProperties`).
    pub subgroup_operations: vk::SubgroupFeatureFlags,
    /// Subgroup size (quads need at least 4).
    pub subgroup_size: u32,
    /// Queue family flags of the queue given to us.
    pub queue_flags: vk::QueueFlags,
    /// `timestampValidBits` of that queue family (0: no timestamps).
    pub timestamp_valid_bits: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// `maxComputeSharedMemorySize`.
    pub max_compute_shared_memory: u32,
    /// `maxImageDimension2D`.
    pub max_image_dimension_2d: u32,
    /// Optimal-tiling features of each storage format in [`STORAGE_FORMATS`],
    /// and of the frame format, in that order.
    pub format_features: Vec<(vk::Format, vk::FormatFeatureFlags)>,
}

impl DeviceCaps {
    /// Queries the caps of the caller's device. `enabled` are the features
    /// the caller enabled when it created the device.
    pub fn query(ctx: &VulkanContext, frame_format: vk::Format) -> DeviceCaps {
        let inst = &ctx.instance;
        let pd = ctx.physical_device;
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        // SAFETY: `pd` is a physical device of `inst` (the caller's contract
        // for VulkanContext); the output structs are valid and chained.
        unsafe { inst.get_physical_device_properties2(pd, &mut props2) };
        let props = props2.properties;
        // SAFETY: as above.
        let families = unsafe { inst.get_physical_device_queue_family_properties(pd) };
        let family = families
            .get(ctx.queue_family_index as usize)
            .copied()
            .unwrap_or_default();
        let mut format_features = Vec::new();
        for f in STORAGE_FORMATS
            .iter()
            .map(|(f, _)| *f)
            .chain([frame_format])
        {
            // SAFETY: as above.
            let fp = unsafe { inst.get_physical_device_format_properties(pd, f) };
            format_features.push((f, fp.optimal_tiling_features));
        }
        DeviceCaps {
            api_version: props.api_version,
            storage_image_extended_formats: ctx
                .enabled_features
                .shader_storage_image_extended_formats
                == vk::TRUE,
            subgroup_stages: subgroup.supported_stages,
            subgroup_operations: subgroup.supported_operations,
            subgroup_size: subgroup.subgroup_size,
            queue_flags: family.queue_flags,
            timestamp_valid_bits: family.timestamp_valid_bits,
            timestamp_period: props.limits.timestamp_period,
            max_compute_shared_memory: props.limits.max_compute_shared_memory_size,
            max_image_dimension_2d: props.limits.max_image_dimension2_d,
            format_features,
        }
    }

    /// Whether the queue can write timestamps (the GPU timer is off otherwise).
    pub fn has_timestamps(&self) -> bool {
        self.timestamp_valid_bits > 0 && self.timestamp_period > 0.0
    }

    fn features_of(&self, f: vk::Format) -> vk::FormatFeatureFlags {
        self.format_features
            .iter()
            .find(|(g, _)| *g == f)
            .map(|(_, x)| *x)
            .unwrap_or_default()
    }
}

/// Checks `caps` against what the passes use, for frames of `config`.
pub fn check(caps: &DeviceCaps, config: &Config) -> Result<(), CreateError> {
    if vk::api_version_major(caps.api_version) < 1
        || (vk::api_version_major(caps.api_version) == 1
            && vk::api_version_minor(caps.api_version) < 1)
    {
        return Err(CreateError::ApiVersion {
            found: format!(
                "{}.{}",
                vk::api_version_major(caps.api_version),
                vk::api_version_minor(caps.api_version)
            ),
        });
    }
    if !caps.queue_flags.contains(vk::QueueFlags::COMPUTE) {
        return Err(CreateError::MissingFeature {
            feature: "a queue with VK_QUEUE_COMPUTE_BIT",
            why: "every pass is a compute dispatch",
        });
    }
    if !caps.storage_image_extended_formats {
        return Err(CreateError::MissingFeature {
            feature: "shaderStorageImageExtendedFormats (enabled on the device)",
            why: "the optical flow writes R8 and R16G16 storage images",
        });
    }
    if !caps.subgroup_stages.contains(vk::ShaderStageFlags::COMPUTE)
        || !caps
            .subgroup_operations
            .contains(vk::SubgroupFeatureFlags::QUAD)
        || caps.subgroup_size < 4
    {
        return Err(CreateError::MissingFeature {
            feature: "subgroup quad operations in compute shaders (VK_SUBGROUP_FEATURE_QUAD_BIT)",
            why: "the luma pyramid reduces 2x2 squares with quad swaps",
        });
    }
    if caps.max_compute_shared_memory < SHARED_MEMORY_BYTES {
        return Err(CreateError::MissingFeature {
            feature: "maxComputeSharedMemorySize of 16 KiB",
            why: "the block search keeps its window in shared memory",
        });
    }
    if config.width > caps.max_image_dimension_2d || config.height > caps.max_image_dimension_2d {
        return Err(CreateError::MissingFeature {
            feature: "maxImageDimension2D at least the frame size",
            why: "the frames are 2D images of the configured size",
        });
    }
    for (f, why) in STORAGE_FORMATS {
        if !caps
            .features_of(f)
            .contains(vk::FormatFeatureFlags::STORAGE_IMAGE)
        {
            return Err(CreateError::FormatUnsupported {
                format: f,
                usage: "storage image",
                why,
            });
        }
    }
    let frame = caps.features_of(config.frame_format);
    let need = vk::FormatFeatureFlags::SAMPLED_IMAGE
        | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR
        | vk::FormatFeatureFlags::TRANSFER_DST;
    if !frame.contains(need) {
        return Err(CreateError::FormatUnsupported {
            format: config.frame_format,
            usage: "sampled image with linear filtering and transfer destination",
            why: "the game's frame is copied in and sampled by the passes",
        });
    }
    if !caps
        .features_of(vk::Format::R8_UNORM)
        .contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR)
    {
        return Err(CreateError::FormatUnsupported {
            format: vk::Format::R8_UNORM,
            usage: "sampled image with linear filtering",
            why: "the motion search samples the luma pyramid between pixels",
        });
    }
    Ok(())
}
