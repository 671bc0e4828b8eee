//! The simulated VideoOut display: one display, a FIFO swapchain of 4 (RADV)
//! or 3 (ps5vk) `B8G8R8A8_UNORM` images, refreshes at VideoOut's measured
//! periods, in real time or in virtual time.
//!
//! The FIFO rules (presents shown in order, each for at least one refresh;
//! an acquire waits while every image is queued or on screen) are
//! framegen-pacer's [`FifoDisplay`], driven here by a clock. In virtual time
//! the clock only moves when the loop waits (deterministic: runs repeat
//! exactly); in real time waits sleep and the clock is the wall clock.

use std::time::{Duration, Instant};

use ash::vk;
use framegen_pacer::fifo::{FifoDisplay, Refresh};
use framegen_present::gpu::OwnedImage;
use framegen_present::{Acquired, Display, DisplayError, DisplayInfo, Latched, Mode, PresentTag};

/// Where the first refresh falls, as a fraction of the period (as in the
/// pacer's simulator: frames and refreshes do not start together).
pub const FIRST_REFRESH_PHASE: f64 = 0.37;

/// The console driver whose swapchain is simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Profile {
    /// RADV: 4 swapchain images.
    Radv,
    /// ps5vk: 3 swapchain images.
    Ps5vk,
}

impl Profile {
    /// Swapchain images.
    pub fn images(self) -> u8 {
        match self {
            Profile::Radv => 4,
            Profile::Ps5vk => 3,
        }
    }

    /// The profile's name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Radv => "radv",
            Profile::Ps5vk => "ps5vk",
        }
    }
}

/// The display's clock.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// Virtual time: moves only when the loop waits.
    Virtual {
        /// Now, seconds.
        now_s: f64,
    },
    /// The wall clock, from its start.
    Real {
        /// The start.
        start: Instant,
    },
}

impl Clock {
    /// A clock in virtual time, or in real time from now.
    pub fn new(virtual_time: bool) -> Clock {
        if virtual_time {
            Clock::Virtual { now_s: 0.0 }
        } else {
            Clock::Real {
                start: Instant::now(),
            }
        }
    }

    /// Now, seconds.
    pub fn now_s(&self) -> f64 {
        match self {
            Clock::Virtual { now_s } => *now_s,
            Clock::Real { start } => start.elapsed().as_secs_f64(),
        }
    }

    /// Waits until `t_s` (no earlier than now).
    pub fn wait_until(&mut self, t_s: f64) {
        match self {
            Clock::Virtual { now_s } => *now_s = now_s.max(t_s),
            Clock::Real { start } => {
                let dt = t_s - start.elapsed().as_secs_f64();
                if dt > 0.0 {
                    std::thread::sleep(Duration::from_secs_f64(dt));
                }
            }
        }
    }

    /// Whether this is virtual time.
    pub fn is_virtual(&self) -> bool {
        matches!(self, Clock::Virtual { .. })
    }
}

/// What the FIFO model carries per present: the loop's tag and the image.
type Content = (PresentTag, u8);

/// The simulated display.
pub struct SimVideoOut {
    device: ash::Device,
    images: Vec<OwnedImage>,
    handles: Vec<vk::Image>,
    fifo: FifoDisplay<Content>,
    clock: Clock,
    mode: Mode,
    offered: Vec<Mode>,
    profile: Profile,
    latched: Vec<Latched>,
    on_screen: Option<u8>,
    acquires: u64,
    waits: u64,
}

impl SimVideoOut {
    /// A display in `mode` (one of `offered`), with `profile`'s image count,
    /// its images made on `device`.
    pub fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        mode: Mode,
        offered: Vec<Mode>,
        profile: Profile,
        clock: Clock,
    ) -> Result<SimVideoOut, DisplayError> {
        let period = mode.period_s();
        let fifo = FifoDisplay::new(period, period * FIRST_REFRESH_PHASE, profile.images())
            .map_err(|e| DisplayError::Other(e.to_string()))?;
        let mut images = Vec::new();
        for _ in 0..profile.images() {
            images.push(
                OwnedImage::new(
                    device,
                    props,
                    vk::Format::B8G8R8A8_UNORM,
                    mode.width,
                    mode.height,
                    vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC,
                    false,
                )
                .map_err(|e| DisplayError::Other(format!("swapchain image: {e}")))?,
            );
        }
        let handles = images.iter().map(|i| i.image).collect();
        Ok(SimVideoOut {
            device: device.clone(),
            images,
            handles,
            fifo,
            clock,
            mode,
            offered,
            profile,
            latched: Vec::new(),
            on_screen: None,
            acquires: 0,
            waits: 0,
        })
    }

    fn run_refreshes(&mut self, t_s: f64) {
        let latched = &mut self.latched;
        let on_screen = &mut self.on_screen;
        self.fifo.advance_to(t_s, &mut |r: Refresh<Content>| {
            on_refresh(latched, on_screen, r)
        });
    }

    /// The image on screen now (for a window that mirrors the display), in
    /// `GENERAL` layout.
    pub fn on_screen_image(&self) -> Option<vk::Image> {
        self.on_screen.map(|i| self.handles[usize::from(i)])
    }

    /// The clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Acquires so far, and how many of them waited for a refresh.
    pub fn acquire_counts(&self) -> (u64, u64) {
        (self.acquires, self.waits)
    }

    /// Presents queued and not yet on screen.
    pub fn queued(&self) -> usize {
        self.fifo.queued()
    }
}

fn on_refresh(latched: &mut Vec<Latched>, on_screen: &mut Option<u8>, r: Refresh<Content>) {
    if r.latched
        && let Some((tag, image)) = r.shown
    {
        *on_screen = Some(image);
        latched.push(Latched {
            tag,
            refresh: r.index,
            at_s: r.at_s,
        });
    }
}

impl Display for SimVideoOut {
    fn info(&self) -> DisplayInfo {
        DisplayInfo {
            name: format!("simulated VideoOut ({})", self.profile.name()),
            mode: self.mode,
            offered: self.offered.clone(),
            images: u32::from(self.profile.images()),
            format: vk::Format::B8G8R8A8_UNORM,
            present_layout: vk::ImageLayout::GENERAL,
        }
    }

    fn images(&self) -> &[vk::Image] {
        &self.handles
    }

    fn now_s(&self) -> f64 {
        self.clock.now_s()
    }

    fn wait_until(&mut self, t_s: f64) {
        self.clock.wait_until(t_s);
        let now = self.clock.now_s();
        self.run_refreshes(now);
    }

    fn acquire(&mut self) -> Result<Acquired, DisplayError> {
        let t0 = self.clock.now_s();
        let latched = &mut self.latched;
        let on_screen = &mut self.on_screen;
        let a = self
            .fifo
            .acquire(t0, &mut |r: Refresh<Content>| {
                on_refresh(latched, on_screen, r)
            })
            .map_err(|e| DisplayError::Other(e.to_string()))?;
        // The model says when an image is free; the clock waits for it.
        self.clock.wait_until(a.at_s);
        let waited = match self.clock {
            Clock::Virtual { .. } => a.waited_s,
            Clock::Real { .. } => self.clock.now_s() - t0,
        };
        self.acquires += 1;
        if a.waited_s > 0.0 {
            self.waits += 1;
        }
        Ok(Acquired {
            image: u32::from(a.image),
            waited_s: waited,
            wait: vk::Semaphore::null(),
            signal: vk::Semaphore::null(),
        })
    }

    fn present(&mut self, image: u32, tag: PresentTag) -> Result<(), DisplayError> {
        let now = self.clock.now_s();
        self.fifo
            .present(image as u8, now, (tag, image as u8))
            .map_err(|e| DisplayError::Other(e.to_string()))
    }

    fn take_latched(&mut self, out: &mut Vec<Latched>) {
        let now = self.clock.now_s();
        self.run_refreshes(now);
        out.append(&mut self.latched);
    }

    fn refreshes(&self) -> u64 {
        self.fifo.refreshes()
    }

    fn flush(&mut self) -> Result<(), DisplayError> {
        // Run refreshes until every queued present is on screen (at most
        // one refresh per queued present).
        let mut guard = 0;
        while self.fifo.queued() > 0 && guard < 64 {
            let next = self.fifo.next_refresh_s();
            self.wait_until(next);
            guard += 1;
        }
        Ok(())
    }
}

impl Drop for SimVideoOut {
    fn drop(&mut self) {
        // SAFETY: waiting for the device before freeing the images it uses.
        let _ = unsafe { self.device.device_wait_idle() };
        for i in &mut self.images {
            i.destroy(&self.device);
        }
    }
}
