//! The recompiled demo as a [`Title`]: the PS3 game of `runtime/demo`
//! (lifted PPU code on LV2, the HLE modules and the RSX FIFO processor, on
//! threads of its own) draws its frames on the CPU and flips them; each
//! flipped frame is copied through a staging buffer into the title's
//! picture, an `R8G8B8A8_UNORM` image the present loop samples.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use ash::vk;
use demo::{Demo, DemoFrame, DemoOptions, GuestExit};
use framegen_present::VideoOutSettings;
use framegen_present::gpu::{self, HostBuffer, OwnedImage};
use platform::Platform;
use serde_json::json;

use crate::title::{RenderSlot, Title, TitleFrame};

/// How long the loop waits for the game's next frame before it calls the
/// game stuck (it makes one every 33 ms).
pub const FRAME_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the game gets to quit when the run ends.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(3);

/// Which clock the frames' ticks come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DemoTiming {
    /// The game's flip times: ticks of the 59.94 Hz clock between two
    /// flips, as measured (real-time runs, the console). A host slower
    /// than the game shows up as longer frames.
    Measured,
    /// The game's own step: it moves its world by one 1/30 s step a frame
    /// whatever the time, so every frame is 2 ticks. For a display whose
    /// clock is virtual (it stands still while the host works), where the
    /// game's real flip times mean nothing.
    GameSteps,
}

/// How the demo title runs.
#[derive(Clone)]
pub struct DemoTitleOptions {
    /// Lifted code (the default) or the interpreter.
    pub lifted: bool,
    /// The pad script (headless runs); `None`: the platform's pads (a
    /// window's keyboard, the console's controller).
    pub pad_script: Option<String>,
    /// The platform the game runs on (threads, time, files, pads, guest
    /// memory); `None`: the host's.
    pub platform: Option<Arc<dyn Platform>>,
    /// The folder the game's files live in.
    pub fs_root: std::path::PathBuf,
    /// The ticks' clock.
    pub timing: DemoTiming,
    /// The game's video-out colour settings.
    pub settings: VideoOutSettings,
    /// How lifted guest code ends (see `hle::personality::GuestExit`).
    pub guest_exit: GuestExit,
}

impl Default for DemoTitleOptions {
    fn default() -> Self {
        let d = DemoOptions::default();
        DemoTitleOptions {
            lifted: d.lifted,
            pad_script: d.pad_script,
            platform: None,
            fs_root: d.fs_root,
            timing: DemoTiming::Measured,
            settings: VideoOutSettings::default(),
            guest_exit: d.guest_exit,
        }
    }
}

/// The ticks of one frame of the game's own step (30 fps on 59.94 Hz).
pub const STEP_TICKS: u32 = 2;

/// The recompiled demo, running.
pub struct DemoTitle {
    device: ash::Device,
    props: vk::PhysicalDeviceMemoryProperties,
    opts: DemoTitleOptions,
    demo: Option<Demo>,
    picture: Option<OwnedImage>,
    size: (u32, u32),
    staging: Vec<Option<HostBuffer>>,
    frames: u64,
    last_flip: u64,
    ended: Option<serde_json::Value>,
}

impl DemoTitle {
    /// Boots the game; its picture is made on `device` with its first frame.
    pub fn start(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        opts: DemoTitleOptions,
    ) -> Result<DemoTitle> {
        let demo = Demo::start(DemoOptions {
            lifted: opts.lifted,
            pad_script: opts.pad_script.clone(),
            fs_root: opts.fs_root.clone(),
            platform: opts.platform.clone(),
            guest_exit: opts.guest_exit,
            ..DemoOptions::default()
        })
        .map_err(anyhow::Error::msg)
        .context("starting the recompiled demo")?;
        Ok(DemoTitle {
            device: device.clone(),
            props: *props,
            opts,
            demo: Some(demo),
            picture: None,
            size: (0, 0),
            staging: Vec::new(),
            frames: 0,
            last_flip: 0,
            ended: None,
        })
    }

    /// The picture (for tests that read it back).
    pub fn picture(&self) -> Option<vk::Image> {
        self.picture.as_ref().map(|p| p.image)
    }

    fn ensure_picture(&mut self, w: u32, h: u32) -> Result<()> {
        if self.size == (w, h) && self.picture.is_some() {
            return Ok(());
        }
        if let Some(mut old) = self.picture.take() {
            // A new resolution: the old picture may still be read.
            // SAFETY: waiting for the device before destroying the image.
            unsafe { self.device.device_wait_idle() }.context("vkDeviceWaitIdle")?;
            old.destroy(&self.device);
        }
        self.picture = Some(
            OwnedImage::new(
                &self.device,
                &self.props,
                vk::Format::R8G8B8A8_UNORM,
                w,
                h,
                vk::ImageUsageFlags::TRANSFER_DST
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::STORAGE
                    | vk::ImageUsageFlags::TRANSFER_SRC,
                true,
            )
            .context("the demo's picture")?,
        );
        self.size = (w, h);
        Ok(())
    }

    fn staging(&mut self, at: RenderSlot, bytes: usize) -> Result<&mut HostBuffer> {
        if self.staging.len() < at.slots {
            self.staging.resize_with(at.slots, || None);
        }
        let slot = &mut self.staging[at.slot];
        if slot.as_ref().is_some_and(|b| b.size < bytes) {
            // Its last copy has finished (the slot's contract).
            if let Some(mut b) = slot.take() {
                b.destroy(&self.device);
            }
        }
        if slot.is_none() {
            *slot = Some(
                HostBuffer::new(
                    &self.device,
                    &self.props,
                    bytes,
                    vk::BufferUsageFlags::TRANSFER_SRC,
                )
                .context("the demo's staging buffer")?,
            );
        }
        Ok(slot.as_mut().expect("made above"))
    }

    fn upload(&mut self, at: RenderSlot, f: &DemoFrame) -> Result<TitleFrame> {
        let bytes = (f.width as usize) * (f.height as usize) * 4;
        if f.rgba.len() != bytes {
            bail!(
                "the demo's frame {} is {} bytes, not {}x{}x4",
                f.flip,
                f.rgba.len(),
                f.width,
                f.height
            );
        }
        let first = self.picture.is_none() || self.size != (f.width, f.height);
        self.ensure_picture(f.width, f.height)?;
        let staging = self.staging(at, bytes)?;
        staging.bytes_mut()[..bytes].copy_from_slice(&f.rgba);
        let buffer = staging.buffer;
        let picture = self.picture.as_ref().expect("made above");
        let d = &self.device;
        // The last frame's reads of the picture (the present loop's
        // scaler) come first.
        gpu::image_barrier(
            d,
            at.cmd,
            picture.image,
            if first {
                vk::ImageLayout::UNDEFINED
            } else {
                vk::ImageLayout::GENERAL
            },
            vk::ImageLayout::GENERAL,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::MEMORY_READ,
            vk::AccessFlags::TRANSFER_WRITE,
        );
        let region = [gpu::whole_image_copy(f.width, f.height)];
        // SAFETY: `at.cmd` is recording; the buffer holds the whole
        // picture; the image is in GENERAL layout.
        unsafe {
            d.cmd_copy_buffer_to_image(
                at.cmd,
                buffer,
                picture.image,
                vk::ImageLayout::GENERAL,
                &region,
            );
        }
        gpu::image_barrier(
            d,
            at.cmd,
            picture.image,
            vk::ImageLayout::GENERAL,
            vk::ImageLayout::GENERAL,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::TRANSFER_READ,
        );
        let ticks = match self.opts.timing {
            DemoTiming::Measured => f.ticks,
            DemoTiming::GameSteps => STEP_TICKS,
        };
        Ok(TitleFrame {
            view: picture.view,
            width: f.width,
            height: f.height,
            ticks,
            cut: false,
            settings: self.opts.settings,
        })
    }

    fn stop(&mut self) -> serde_json::Value {
        let Some(demo) = self.demo.take() else {
            return self.ended.clone().unwrap_or(serde_json::Value::Null);
        };
        let status = demo.exit_status().or_else(|| demo.stop(STOP_TIMEOUT));
        let (entries, steps) = demo.interpreted().unwrap_or((0, 0));
        if status.is_none() {
            log::warn!(
                "the demo did not quit within {} s of being asked",
                STOP_TIMEOUT.as_secs()
            );
        }
        let v = json!({
            "exit_status": status,
            "frames": self.frames,
            "last_flip": self.last_flip,
            "lifted": self.opts.lifted,
            "interpreter_entries": entries,
            "interpreted_instructions": steps,
        });
        self.ended = Some(v.clone());
        v
    }
}

impl Title for DemoTitle {
    fn name(&self) -> String {
        format!(
            "demo ({})",
            if self.opts.lifted {
                "recompiled"
            } else {
                "interpreter"
            }
        )
    }

    fn tick_hz(&self) -> f64 {
        demo::TICK_HZ
    }

    fn frame_limit_fps(&self) -> Option<f64> {
        Some(demo::TICK_HZ / f64::from(STEP_TICKS))
    }

    fn render(&mut self, at: RenderSlot) -> Result<Option<TitleFrame>> {
        let Some(demo) = &self.demo else {
            return Ok(None);
        };
        let Some(f) = demo.next_frame(FRAME_TIMEOUT) else {
            if let Some(status) = demo.exit_status() {
                log::info!(
                    "the demo ended (status {status}) after {} frames",
                    self.frames
                );
                self.stop();
                return Ok(None);
            }
            bail!(
                "the demo made no frame for {} s after frame {} (its threads: RUST_LOG=lv2=debug,hle=debug)",
                FRAME_TIMEOUT.as_secs(),
                self.last_flip
            );
        };
        let tf = self.upload(at, &f)?;
        self.frames += 1;
        self.last_flip = f.flip;
        Ok(Some(tf))
    }

    fn describe(&self) -> serde_json::Value {
        json!({
            "name": self.name(),
            "game": "runtime/demo (guest/demo.c, lifted to Rust)",
            "tick_hz": demo::TICK_HZ,
            "game_fps": demo::TICK_HZ / f64::from(STEP_TICKS),
            "timing": match self.opts.timing {
                DemoTiming::Measured => "measured (flip times)",
                DemoTiming::GameSteps => "game steps (2 ticks a frame)",
            },
            "pad": match &self.opts.pad_script {
                Some(s) => format!("script {s}"),
                None => "the platform's pads".to_owned(),
            },
            "gamma": self.opts.settings.gamma,
            "limited_range": self.opts.settings.limited_range,
        })
    }

    fn end(&mut self) -> serde_json::Value {
        self.stop()
    }
}

impl Drop for DemoTitle {
    fn drop(&mut self) {
        self.stop();
        let d = &self.device;
        // SAFETY: waiting for the device, then destroying our objects.
        unsafe {
            let _ = d.device_wait_idle();
        }
        for b in self.staging.iter_mut().flatten() {
            b.destroy(d);
        }
        if let Some(p) = self.picture.as_mut() {
            p.destroy(d);
        }
    }
}
