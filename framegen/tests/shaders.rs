//! The committed SPIR-V, the binding renumbering and the resource numbers.

mod common;

use std::path::Path;

use ash::vk;
use framegen::shaders::{Pass, consts, res};
use framegen::spirv;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn spirv_is_current() {
    if !common::require("glslc") {
        return;
    }
    let out = std::process::Command::new(crate_dir().join("regen-shaders.sh"))
        .arg("--check")
        .output()
        .expect("running regen-shaders.sh --check");
    assert!(
        out.status.success(),
        "committed SPIR-V is stale; run ./x regen\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn resource_numbers_match_common_glsl() {
    let glsl = std::fs::read_to_string(crate_dir().join("shaders/common.glsl")).unwrap();
    let define = |name: &str| -> Option<String> {
        glsl.lines().find_map(|l| {
            let mut it = l.split_whitespace();
            (it.next() == Some("#define") && it.next() == Some(name))
                .then(|| it.next().unwrap().to_string())
        })
    };
    for (name, value) in res::ALL {
        assert_eq!(
            define(name),
            Some(value.to_string()),
            "{name} in common.glsl"
        );
    }
    assert_eq!(define("MAX_LEVELS"), Some(consts::MAX_LEVELS.to_string()));
    assert_eq!(define("BLOCK"), Some(consts::BLOCK.to_string()));
    assert_eq!(define("HIST_BINS"), Some(consts::HIST_BINS.to_string()));
    assert_eq!(
        define("HIST_REGIONS"),
        Some(consts::HIST_REGIONS.to_string())
    );
    assert_eq!(
        define("READBACK_SLOTS"),
        Some(consts::READBACK_SLOTS.to_string())
    );
    assert_eq!(
        define("FLAG_WRITE_HISTORY"),
        Some(format!("{}u", consts::FLAG_WRITE_HISTORY))
    );
    assert_eq!(
        define("FLAG_COARSEST"),
        Some(format!("{}u", consts::FLAG_COARSEST))
    );
}

fn sparse_module() -> Vec<u32> {
    let bytes = std::fs::read(crate_dir().join("tests/data/sparse_bindings.spv")).unwrap();
    spirv::words_from_bytes(&bytes).unwrap()
}

fn spirv_val(words: &[u32], what: &str) {
    if !common::require("spirv-val") {
        return;
    }
    let path = std::env::temp_dir().join(format!("framegen-{}-{what}.spv", std::process::id()));
    std::fs::write(&path, spirv::bytes_from_words(words)).unwrap();
    let out = std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "spirv-val rejects {what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn sparse_bindings_are_renumbered() {
    let mut words = sparse_module();
    let before = spirv::reflect_bindings(&words).unwrap();
    let originals: Vec<u32> = before.bindings.iter().map(|b| b.original).collect();
    assert_eq!(originals, [0, 100, 200, 300, 405]);
    let table = spirv::renumber_bindings(&mut words).unwrap();
    for (i, orig) in [0u32, 100, 200, 300, 405].iter().enumerate() {
        let b = table.by_original(0, *orig).unwrap();
        assert_eq!(b.binding, i as u32, "binding {orig}");
        assert_eq!(b.descriptor_type, vk::DescriptorType::STORAGE_BUFFER);
        assert_eq!(b.count, 1);
    }
    // The module itself now says 0..4.
    let after = spirv::reflect_bindings(&words).unwrap();
    let now: Vec<u32> = after.bindings.iter().map(|b| b.original).collect();
    assert_eq!(now, [0, 1, 2, 3, 4]);
    // Renumbering is idempotent.
    let mut again = words.clone();
    spirv::renumber_bindings(&mut again).unwrap();
    assert_eq!(again, words);
    spirv_val(&words, "sparse");
}

#[test]
fn every_pass_renumbers_to_a_valid_module() {
    for pass in Pass::ALL {
        let (words, table) = pass.renumbered().unwrap();
        let numbers: Vec<u32> = table.set(0).map(|b| b.binding).collect();
        assert_eq!(
            numbers,
            (0..numbers.len() as u32).collect::<Vec<_>>(),
            "{}",
            pass.name()
        );
        assert!(table.bindings.iter().all(|b| b.set == 0));
        spirv_val(&words, pass.name());
    }
}

#[test]
fn descriptor_types_are_read_from_the_module() {
    let (_, t) = Pass::Interpolate.renumbered().unwrap();
    let ty = |r| t.by_original(0, r).unwrap().descriptor_type;
    assert_eq!(ty(res::FRAME_A), vk::DescriptorType::COMBINED_IMAGE_SAMPLER);
    assert_eq!(ty(res::OUTPUT), vk::DescriptorType::STORAGE_IMAGE);
    assert_eq!(ty(res::STATE), vk::DescriptorType::STORAGE_BUFFER);
    assert_eq!(t.by_original(0, res::FLOW).unwrap().count, 2);
    let (_, p) = Pass::Pyramid.renumbered().unwrap();
    assert_eq!(
        p.by_original(0, res::LUMA_OUT).unwrap().count,
        consts::MAX_LEVELS
    );
}

/// Runs the renumbered sparse module on the device with buffers bound
/// through the table: each buffer must get its own original number.
#[test]
fn sparse_module_binds_correctly_on_the_device() {
    let h = framegen::headless::Headless::new(&Default::default()).expect("a Vulkan device");
    let d = &h.device;
    let mut words = sparse_module();
    let table = spirv::renumber_bindings(&mut words).unwrap();
    let origs = [0u32, 100, 200, 300, 405];
    let bufs: Vec<_> = origs.iter().map(|_| h.staging(4).unwrap()).collect();
    // SAFETY: plain object creation and use on our own device; every
    // object is destroyed before the device.
    unsafe {
        let bindings: Vec<_> = table
            .set(0)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(b.descriptor_type)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let sl = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        let sls = [sl];
        let pl = d
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&sls),
                None,
            )
            .unwrap();
        let module = d
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
            .unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let pipe = d
            .create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(pl)],
                None,
            )
            .unwrap()[0];
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 5,
        }];
        let pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
            .unwrap();
        let set = d
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&sls),
            )
            .unwrap()[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bufs
            .iter()
            .map(|b| {
                [vk::DescriptorBufferInfo {
                    buffer: b.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }]
            })
            .collect();
        let writes: Vec<_> = origs
            .iter()
            .zip(&infos)
            .map(|(o, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(table.by_original(0, *o).unwrap().binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        d.update_descriptor_sets(&writes, &[]);
        h.submit_and_wait(|cmd| {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipe);
            d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, pl, 0, &[set], &[]);
            d.cmd_dispatch(cmd, 1, 1, 1);
            let mb = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &mb,
                &[],
                &[],
            );
        })
        .unwrap();
        for (o, b) in origs.iter().zip(&bufs) {
            let v = u32::from_le_bytes(b.read()[..4].try_into().unwrap());
            assert_eq!(v, 1000 + o, "buffer bound for original binding {o}");
        }
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline(pipe, None);
        d.destroy_shader_module(module, None);
        d.destroy_pipeline_layout(pl, None);
        d.destroy_descriptor_set_layout(sl, None);
    }
}
