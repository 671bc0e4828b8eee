//! The game loop host-sim and the PS5 payload share: the title renders a
//! frame into a command buffer on the present loop's queue, the loop waits
//! until the frame is due (the game's ticks, lowered by the latency hold,
//! late when an acquire blocked), and the present loop shows it with the
//! generated frames the pacer asks for.

use anyhow::Result;
use ash::vk;
use framegen_present::gpu::CommandRing;
use framegen_present::{Display, FrameReport, GameFrame, PresentLoop};

use crate::title::{RenderSlot, Title};

/// Command buffers the loop keeps in flight (the title's frame recording).
pub const SLOTS: usize = 3;

/// One game loop: its schedule and its command buffers.
pub struct GameLoop {
    device: ash::Device,
    queue: vk::Queue,
    ring: CommandRing,
    sched_s: f64,
    after_presents_s: f64,
    frames: u64,
}

impl GameLoop {
    /// A loop recording on `queue` (of `queue_family`, the present loop's).
    pub fn new(device: &ash::Device, queue_family: u32, queue: vk::Queue) -> Result<GameLoop> {
        Ok(GameLoop {
            device: device.clone(),
            queue,
            ring: CommandRing::new(device, queue_family, SLOTS)?,
            sched_s: 0.0,
            after_presents_s: 0.0,
            frames: 0,
        })
    }

    /// Game frames shown so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// One game frame: `title` renders it, the loop waits on `display`'s
    /// clock until it is due, and `pl` presents it. `Ok(None)`: the title
    /// has ended (nothing was presented).
    pub fn frame(
        &mut self,
        title: &mut dyn Title,
        pl: &mut PresentLoop,
        display: &mut dyn Display,
    ) -> Result<Option<FrameReport>> {
        let (slot, cmd) = self.ring.begin(&self.device)?;
        let tf = match title.render(RenderSlot {
            cmd,
            slot,
            slots: SLOTS,
        }) {
            Ok(Some(tf)) => tf,
            other => {
                // Nothing to show: the empty command buffer still goes, so
                // the ring's slot is free again.
                self.ring.submit(
                    &self.device,
                    self.queue,
                    slot,
                    vk::Semaphore::null(),
                    vk::Semaphore::null(),
                )?;
                return other.map(|_| None);
            }
        };
        self.ring.submit(
            &self.device,
            self.queue,
            slot,
            vk::Semaphore::null(),
            vk::Semaphore::null(),
        )?;
        if self.frames > 0 {
            // The game loop's own rate, lowered by the latency hold; a
            // loop that waited in an acquire starts late.
            let mut interval = f64::from(tf.ticks) / title.tick_hz();
            if let Some(h) = pl.hold_fps(title.frame_limit_fps(), None) {
                interval = interval.max(1.0 / h);
            }
            self.sched_s = (self.sched_s + interval).max(self.after_presents_s);
        }
        self.frames += 1;
        display.wait_until(self.sched_s);
        let frame = GameFrame {
            view: tf.view,
            width: tf.width,
            height: tf.height,
            ticks: tf.ticks,
            source_hz: title.tick_hz(),
            settings: tf.settings,
            cut: tf.cut,
            speed_pct: 100.0,
            limiter_nominal: true,
        };
        let report = pl.present_frame(display, &frame)?;
        self.after_presents_s = display.now_s();
        Ok(Some(report))
    }

    /// Waits for the GPU to finish the loop's work and frees it.
    pub fn destroy(mut self) {
        self.ring.destroy(&self.device);
    }
}
