//! `fg shader-stats`: what the driver reports about each pass's compiled
//! pipeline (`VK_KHR_pipeline_executable_properties`: registers, shared
//! memory, spills, instruction counts, in the driver's own words). A
//! development aid: it answers "is this pass limited by registers?" without
//! a profiler.

use anyhow::{Context, Result, bail};
use ash::vk;
use framegen::headless::{Headless, Options};
use framegen::shaders::{self, Pass};

/// Arguments of `fg shader-stats`.
#[derive(clap::Args)]
pub struct Args {
    /// Vulkan device: an index or part of its name.
    #[arg(long)]
    device: Option<String>,
    /// Only passes whose name contains this.
    #[arg(long)]
    pass: Option<String>,
}

pub fn run(args: &Args) -> Result<()> {
    let h = Headless::new(&Options {
        device: args.device.clone(),
        pipeline_statistics: true,
        ..Options::default()
    })
    .context("setting up the Vulkan device")?;
    if !h.pipeline_statistics {
        bail!(
            "{} has no VK_KHR_pipeline_executable_properties: no statistics to show",
            h.device_name
        );
    }
    println!("fg shader-stats: {}", h.device_name);
    let ext = ash::khr::pipeline_executable_properties::Device::new(&h.instance, &h.device);
    for pass in Pass::ALL {
        if args
            .pass
            .as_ref()
            .is_some_and(|p| !pass.name().contains(p.as_str()))
        {
            continue;
        }
        for (label, constants) in shaders::spec_variants(pass) {
            let lp = shaders::load_with(
                &h.device,
                pass,
                constants,
                vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR,
            )?;
            let name = if label.is_empty() {
                pass.name().to_string()
            } else {
                format!("{} [{label}]", pass.name())
            };
            let line = stats_line(&ext, lp.pipeline).unwrap_or_else(|e| format!("({e})"));
            println!("  {name:<28} {line}");
            // SAFETY: the pipeline was never used; our device.
            unsafe { lp.destroy(&h.device) };
        }
    }
    Ok(())
}

fn stats_line(
    ext: &ash::khr::pipeline_executable_properties::Device,
    pipeline: vk::Pipeline,
) -> Result<String, vk::Result> {
    // SAFETY: a pipeline of this device, made with CAPTURE_STATISTICS_KHR.
    let execs = unsafe {
        ext.get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(pipeline))
    }?;
    let mut parts = Vec::new();
    for i in 0..execs.len() as u32 {
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(i);
        // SAFETY: as above; `i` is below the executable count.
        let stats = unsafe { ext.get_pipeline_executable_statistics(&info) }?;
        for s in stats {
            let name = s
                .name_as_c_str()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // SAFETY: the union member read is the one `format` names.
            let value = unsafe {
                match s.format {
                    vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                        (s.value.b32 != 0).to_string()
                    }
                    vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                    vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                    vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                        format!("{:.2}", s.value.f64)
                    }
                    _ => "?".into(),
                }
            };
            parts.push(format!("{name}={value}"));
        }
    }
    Ok(parts.join(", "))
}
