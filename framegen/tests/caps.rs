//! Creation on a device that lacks something the shaders use fails with an
//! error that names it.

use ash::vk;
use framegen::{
    Config, CreateError, DeviceCaps, FrameGen, check_caps,
    headless::{Headless, Options},
};

fn good_caps() -> DeviceCaps {
    DeviceCaps {
        api_version: vk::make_api_version(0, 1, 3, 0),
        storage_image_extended_formats: true,
        subgroup_stages: vk::ShaderStageFlags::COMPUTE,
        subgroup_operations: vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::QUAD,
        subgroup_size: 32,
        queue_flags: vk::QueueFlags::COMPUTE,
        timestamp_valid_bits: 64,
        timestamp_period: 1.0,
        max_compute_shared_memory: 32768,
        max_image_dimension_2d: 16384,
        format_features: [
            vk::Format::R8_UNORM,
            vk::Format::R16G16_SINT,
            vk::Format::R16G16B16A16_SINT,
            vk::Format::R8G8B8A8_UNORM,
        ]
        .into_iter()
        .map(|f| {
            (
                f,
                vk::FormatFeatureFlags::STORAGE_IMAGE
                    | vk::FormatFeatureFlags::SAMPLED_IMAGE
                    | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR
                    | vk::FormatFeatureFlags::TRANSFER_DST,
            )
        })
        .collect(),
    }
}

fn message(caps: &DeviceCaps) -> String {
    check_caps(caps, &Config::new(256, 144))
        .expect_err("check passed")
        .to_string()
}

#[test]
fn a_complete_device_passes() {
    check_caps(&good_caps(), &Config::new(256, 144)).unwrap();
}

#[test]
fn each_missing_feature_is_named() {
    let mut c = good_caps();
    c.storage_image_extended_formats = false;
    assert!(
        message(&c).contains("shaderStorageImageExtendedFormats"),
        "{}",
        message(&c)
    );

    let mut c = good_caps();
    c.subgroup_operations = vk::SubgroupFeatureFlags::BASIC;
    assert!(
        message(&c).contains("VK_SUBGROUP_FEATURE_QUAD_BIT"),
        "{}",
        message(&c)
    );

    let mut c = good_caps();
    c.subgroup_stages = vk::ShaderStageFlags::FRAGMENT;
    assert!(
        message(&c).contains("subgroup quad operations in compute"),
        "{}",
        message(&c)
    );

    let mut c = good_caps();
    c.api_version = vk::make_api_version(0, 1, 0, 0);
    assert!(message(&c).contains("Vulkan 1.0"), "{}", message(&c));

    let mut c = good_caps();
    c.format_features[1].1 = vk::FormatFeatureFlags::SAMPLED_IMAGE;
    assert!(message(&c).contains("R16G16_SINT"), "{}", message(&c));

    let mut c = good_caps();
    c.queue_flags = vk::QueueFlags::TRANSFER;
    assert!(
        message(&c).contains("VK_QUEUE_COMPUTE_BIT"),
        "{}",
        message(&c)
    );
}

#[test]
fn timestamps_are_optional() {
    let mut c = good_caps();
    c.timestamp_valid_bits = 0;
    check_caps(&c, &Config::new(256, 144)).unwrap();
    assert!(!c.has_timestamps());
}

/// For real: lavapipe has the feature, but the device is made without it.
#[test]
fn real_device_without_extended_formats() {
    let h = Headless::new(&Options {
        without_extended_formats: true,
        ..Options::default()
    })
    .unwrap();
    match FrameGen::new(&h.context(), &Config::new(128, 96)) {
        Err(e @ CreateError::MissingFeature { .. }) => {
            assert!(
                e.to_string().contains("shaderStorageImageExtendedFormats"),
                "{e}"
            );
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("created on a device without shaderStorageImageExtendedFormats"),
    }
}

#[test]
fn bad_configurations_are_refused() {
    let h = Headless::new(&Options::default()).unwrap();
    let mut c = Config::new(16, 96);
    assert!(matches!(
        FrameGen::new(&h.context(), &c),
        Err(CreateError::BadConfig(_))
    ));
    c = Config::new(128, 96);
    c.frame_format = vk::Format::R16G16B16A16_SFLOAT;
    let e = FrameGen::new(&h.context(), &c).err().expect("refused");
    assert!(e.to_string().contains("R16G16B16A16_SFLOAT"), "{e}");
}
