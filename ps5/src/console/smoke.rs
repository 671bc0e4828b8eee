//! What the payload presents until the title is part of it: a picture the
//! payload clears to a slowly changing colour, as a 30 fps game on a 59.94 Hz
//! game clock, through the shared present loop. It exercises everything
//! between a game's picture and the screen (the scaler, the interpolator,
//! the pacer, acquires, presents, the overlay, the dump), not the title.
//!
//! The title is host-sim's built-in scene (`host_sim::scene`), which the
//! payload cannot link yet: host-sim's library links the desktop Vulkan
//! loader (`libvulkan.so.1`) and opens libxcb. Once the scene and its
//! `Title` trait are in a crate of their own, this module goes and the
//! payload runs host-sim's `make_title` in its loop.

use ash::vk;
use framegen_present::gpu::{CommandRing, OwnedImage, image_barrier};
use framegen_present::{Display, GameFrame, PresentLoop, RunTotals, VideoOutSettings};

/// The picture's size (a PS3 title's 720p).
const WIDTH: u32 = 1280;
/// The picture's height.
const HEIGHT: u32 = 720;
/// Game-clock ticks per new frame (30 fps on 59.94 Hz).
const TICKS: u32 = 2;
/// The game clock.
const TICK_HZ: f64 = 59.94;

/// The dump header's description of what was presented.
pub fn describe() -> serde_json::Value {
    serde_json::json!({
        "name": "present-loop smoke (cleared picture)",
        "width": WIDTH,
        "height": HEIGHT,
        "fps": TICK_HZ / f64::from(TICKS),
    })
}

/// Presents for `seconds` of display clock and finishes the loop.
pub fn run(
    ctx: &framegen::VulkanContext,
    display: &mut dyn Display,
    mut pl: PresentLoop,
    seconds: f64,
) -> Result<RunTotals, Box<dyn std::error::Error>> {
    let device = &ctx.device;
    // SAFETY: the caller's live instance and physical device.
    let props = unsafe {
        ctx.instance
            .get_physical_device_memory_properties(ctx.physical_device)
    };
    let usage = vk::ImageUsageFlags::STORAGE
        | vk::ImageUsageFlags::SAMPLED
        | vk::ImageUsageFlags::TRANSFER_DST;
    let mut picture = OwnedImage::new(
        device,
        &props,
        vk::Format::R8G8B8A8_UNORM,
        WIDTH,
        HEIGHT,
        usage,
        true,
    )?;
    let mut ring = CommandRing::new(device, ctx.queue_family_index, 3)?;
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        let (mut sched, mut frame) = (0.0f64, 0u64);
        while display.now_s() < seconds {
            let (slot, cmd) = ring.begin(device)?;
            let old = if frame == 0 {
                vk::ImageLayout::UNDEFINED
            } else {
                vk::ImageLayout::GENERAL
            };
            image_barrier(
                device,
                cmd,
                picture.image,
                old,
                vk::ImageLayout::GENERAL,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::SHADER_READ,
                vk::AccessFlags::TRANSFER_WRITE,
            );
            let t = frame as f64 * f64::from(TICKS) / TICK_HZ;
            let colour = vk::ClearColorValue {
                float32: [
                    (0.5 + 0.5 * (t * 0.7).sin()) as f32,
                    (0.5 + 0.5 * (t * 1.1).sin()) as f32,
                    0.4,
                    1.0,
                ],
            };
            // SAFETY: `cmd` is recording; the picture is in GENERAL layout.
            unsafe {
                device.cmd_clear_color_image(
                    cmd,
                    picture.image,
                    vk::ImageLayout::GENERAL,
                    &colour,
                    &[framegen_present::gpu::color_range()],
                );
            }
            image_barrier(
                device,
                cmd,
                picture.image,
                vk::ImageLayout::GENERAL,
                vk::ImageLayout::GENERAL,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::AccessFlags::SHADER_READ,
            );
            ring.submit(
                device,
                ctx.queue,
                slot,
                vk::Semaphore::null(),
                vk::Semaphore::null(),
            )?;
            if frame > 0 {
                let mut interval = f64::from(TICKS) / TICK_HZ;
                if let Some(h) = pl.hold_fps(Some(TICK_HZ / f64::from(TICKS)), None) {
                    interval = interval.max(1.0 / h);
                }
                sched = (sched + interval).max(display.now_s());
            }
            display.wait_until(sched);
            let report = pl.present_frame(
                display,
                &GameFrame {
                    view: picture.view,
                    width: WIDTH,
                    height: HEIGHT,
                    ticks: TICKS,
                    source_hz: TICK_HZ,
                    settings: VideoOutSettings::default(),
                    cut: frame == 0,
                    speed_pct: 100.0,
                    limiter_nominal: true,
                },
            )?;
            if let Some(s) = &report.status {
                log::info!("{s}");
            }
            frame += 1;
        }
        Ok(())
    })();
    let totals = match result {
        Ok(()) => pl.finish(display)?,
        Err(e) => {
            drop(pl);
            ring.wait_all(device)?;
            ring.destroy(device);
            picture.destroy(device);
            return Err(e);
        }
    };
    ring.wait_all(device)?;
    ring.destroy(device);
    picture.destroy(device);
    Ok(totals)
}
