//! The console display for the shared present loop: the VK_KHR_display
//! swapchain behind framegen-present's [`Display`] trait. Only this differs
//! from host-sim, whose simulated VideoOut implements the same trait.

use crate::display_mode::DisplayMode;
use crate::khr_display::{self, DisplayChoice, SwapchainConfig};
use crate::latch::LatchModel;
use ash::vk;
use framegen_present::display::{PERIOD_59_94_S, PERIOD_119_88_S};
use framegen_present::{Acquired, Display, DisplayError, DisplayInfo, Latched, Mode, PresentTag};
use std::time::{Duration, Instant};

/// Acquire semaphores in rotation: more than the present loop can have in
/// flight, so one is never reused before the work that waits on it ran.
const ACQUIRE_SEMAPHORES: usize = 16;

fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> DisplayError {
    move |result| DisplayError::Vulkan { call, result }
}

fn mode_of(m: DisplayMode) -> Mode {
    Mode {
        width: m.width,
        height: m.height,
        refresh_mhz: m.refresh_mhz,
    }
}

/// The console's display: a FIFO swapchain on VK_KHR_display, its clock
/// (real time from its creation) and the FIFO estimate of when each present
/// went on screen ([`LatchModel`]).
pub struct Ps5Display {
    device: ash::Device,
    queue: vk::Queue,
    swapchain_fns: ash::khr::swapchain::Device,
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    acquire_semaphores: Vec<vk::Semaphore>,
    render_semaphores: Vec<vk::Semaphore>,
    next_acquire: usize,
    info: DisplayInfo,
    start: Instant,
    latch: LatchModel,
}

impl Ps5Display {
    /// Creates the swapchain on `surface` (made for `choice`) and its
    /// semaphores, on `device`'s `queue`.
    ///
    /// # Safety
    /// `device`, `queue` and `surface` must be live and belong together;
    /// `config` must come from the surface's capabilities.
    pub unsafe fn new(
        instance: &ash::Instance,
        device: &ash::Device,
        queue: vk::Queue,
        surface: vk::SurfaceKHR,
        choice: &DisplayChoice,
        config: &SwapchainConfig,
        driver: &str,
    ) -> Result<Ps5Display, DisplayError> {
        let swapchain_fns = ash::khr::swapchain::Device::new(instance, device);
        let usage = vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC;
        // SAFETY: the caller's live device and surface.
        let swapchain =
            unsafe { khr_display::create_swapchain(&swapchain_fns, surface, config, usage) }
                .map_err(|e| DisplayError::Other(e.to_string()))?;
        let mut d = Ps5Display {
            device: device.clone(),
            queue,
            swapchain_fns,
            swapchain,
            images: Vec::new(),
            acquire_semaphores: Vec::new(),
            render_semaphores: Vec::new(),
            next_acquire: 0,
            info: DisplayInfo {
                name: format!("VK_KHR_display ({driver})"),
                mode: mode_of(choice.info),
                offered: choice.offered.iter().copied().map(mode_of).collect(),
                images: 0,
                format: config.format,
                present_layout: vk::ImageLayout::PRESENT_SRC_KHR,
            },
            start: Instant::now(),
            latch: LatchModel::new(match choice.info.refresh_mhz {
                119_880 => PERIOD_119_88_S,
                59_940 => PERIOD_59_94_S,
                m => 1000.0 / f64::from(m.max(1)),
            }),
        };
        // SAFETY: the swapchain just created.
        d.images = unsafe { d.swapchain_fns.get_swapchain_images(swapchain) }
            .map_err(vk_err("vkGetSwapchainImagesKHR"))?;
        d.info.images = d.images.len() as u32;
        let n = ACQUIRE_SEMAPHORES + d.images.len();
        for i in 0..n {
            // SAFETY: a plain binary semaphore on the live device; destroyed in Drop.
            let s = unsafe { device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }
                .map_err(vk_err("vkCreateSemaphore"))?;
            if i < ACQUIRE_SEMAPHORES {
                d.acquire_semaphores.push(s);
            } else {
                d.render_semaphores.push(s);
            }
        }
        Ok(d)
    }
}

impl Drop for Ps5Display {
    fn drop(&mut self) {
        // SAFETY: the device is idle after the wait; every object is ours.
        unsafe {
            let _ = self.device.queue_wait_idle(self.queue);
            for &s in self
                .acquire_semaphores
                .iter()
                .chain(&self.render_semaphores)
            {
                self.device.destroy_semaphore(s, None);
            }
            self.swapchain_fns.destroy_swapchain(self.swapchain, None);
        }
    }
}

impl Display for Ps5Display {
    fn info(&self) -> DisplayInfo {
        self.info.clone()
    }

    fn images(&self) -> &[vk::Image] {
        &self.images
    }

    fn now_s(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn wait_until(&mut self, t_s: f64) {
        let now = self.now_s();
        if t_s > now {
            std::thread::sleep(Duration::from_secs_f64(t_s - now));
        }
    }

    fn acquire(&mut self) -> Result<Acquired, DisplayError> {
        let sem = self.acquire_semaphores[self.next_acquire];
        self.next_acquire = (self.next_acquire + 1) % self.acquire_semaphores.len();
        let t = self.now_s();
        // SAFETY: our live swapchain; `sem` is unsignalled (its last wait ran:
        // the rotation is longer than the work the present loop keeps queued).
        let (image, _suboptimal) = unsafe {
            self.swapchain_fns
                .acquire_next_image(self.swapchain, u64::MAX, sem, vk::Fence::null())
        }
        .map_err(vk_err("vkAcquireNextImageKHR"))?;
        Ok(Acquired {
            image,
            waited_s: self.now_s() - t,
            wait: sem,
            signal: self.render_semaphores[image as usize],
        })
    }

    fn present(&mut self, image: u32, tag: PresentTag) -> Result<(), DisplayError> {
        let waits = [self.render_semaphores[image as usize]];
        let swapchains = [self.swapchain];
        let indices = [image];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: an image acquired from our swapchain, whose writing work
        // signals `waits[0]`.
        unsafe { self.swapchain_fns.queue_present(self.queue, &info) }
            .map_err(vk_err("vkQueuePresentKHR"))?;
        let now = self.now_s();
        self.latch.presented(tag, now);
        Ok(())
    }

    fn take_latched(&mut self, out: &mut Vec<Latched>) {
        let now = self.now_s();
        self.latch.take_until(now, out);
    }

    fn refreshes(&self) -> u64 {
        self.latch.refreshes(self.now_s())
    }

    fn flush(&mut self) -> Result<(), DisplayError> {
        // SAFETY: our live queue.
        unsafe { self.device.queue_wait_idle(self.queue) }.map_err(vk_err("vkQueueWaitIdle"))?;
        if let Some(t) = self.latch.last_latch_s() {
            self.wait_until(t + self.latch.period_s() * 0.01);
        }
        Ok(())
    }
}
