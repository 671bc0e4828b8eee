//! A FIFO test display in virtual time (RGBA8 images), a device, and
//! picture upload/readback for the present loop's tests.
#![allow(dead_code)]

use ash::vk;
use framegen::headless::{Headless, Options, Staging};
use framegen_pacer::fifo::{FifoDisplay, Refresh};
use framegen_present::gpu::OwnedImage;
use framegen_present::{Acquired, Display, DisplayError, DisplayInfo, Latched, Mode, PresentTag};

/// A device (lavapipe on the desktop).
pub fn headless() -> Headless {
    Headless::new(&Options::default()).expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)")
}

pub fn props(h: &Headless) -> vk::PhysicalDeviceMemoryProperties {
    // SAFETY: the headless instance and its physical device.
    unsafe {
        h.instance
            .get_physical_device_memory_properties(h.physical_device)
    }
}

/// A FIFO display in virtual time.
pub struct TestDisplay {
    device: ash::Device,
    images: Vec<OwnedImage>,
    handles: Vec<vk::Image>,
    fifo: FifoDisplay<PresentTag>,
    now: f64,
    mode: Mode,
    latched: Vec<Latched>,
    pub waits: Vec<f64>,
}

impl TestDisplay {
    pub fn new(h: &Headless, mode: Mode, images: u8) -> TestDisplay {
        let period = mode.period_s();
        let mut imgs = Vec::new();
        for _ in 0..images {
            imgs.push(
                OwnedImage::new(
                    &h.device,
                    &props(h),
                    vk::Format::R8G8B8A8_UNORM,
                    mode.width,
                    mode.height,
                    vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC,
                    false,
                )
                .unwrap(),
            );
        }
        let handles = imgs.iter().map(|i| i.image).collect();
        TestDisplay {
            device: h.device.clone(),
            images: imgs,
            handles,
            fifo: FifoDisplay::new(period, period * 0.37, images).unwrap(),
            now: 0.0,
            mode,
            latched: Vec::new(),
            waits: Vec::new(),
        }
    }

    fn run(&mut self, t: f64) {
        let latched = &mut self.latched;
        self.fifo
            .advance_to(t, &mut |r: Refresh<PresentTag>| push(latched, r));
    }
}

fn push(latched: &mut Vec<Latched>, r: Refresh<PresentTag>) {
    if r.latched
        && let Some(tag) = r.shown
    {
        latched.push(Latched {
            tag,
            refresh: r.index,
            at_s: r.at_s,
        });
    }
}

impl Display for TestDisplay {
    fn info(&self) -> DisplayInfo {
        DisplayInfo {
            name: "test display".into(),
            mode: self.mode,
            offered: vec![self.mode],
            images: self.images.len() as u32,
            format: vk::Format::R8G8B8A8_UNORM,
            present_layout: vk::ImageLayout::GENERAL,
        }
    }
    fn images(&self) -> &[vk::Image] {
        &self.handles
    }
    fn now_s(&self) -> f64 {
        self.now
    }
    fn wait_until(&mut self, t_s: f64) {
        self.now = self.now.max(t_s);
        self.run(self.now);
    }
    fn acquire(&mut self) -> Result<Acquired, DisplayError> {
        let latched = &mut self.latched;
        let a = self
            .fifo
            .acquire(self.now, &mut |r: Refresh<PresentTag>| push(latched, r))
            .map_err(|e| DisplayError::Other(e.to_string()))?;
        self.now = a.at_s;
        self.waits.push(a.waited_s);
        Ok(Acquired {
            image: u32::from(a.image),
            waited_s: a.waited_s,
            wait: vk::Semaphore::null(),
            signal: vk::Semaphore::null(),
        })
    }
    fn present(&mut self, image: u32, tag: PresentTag) -> Result<(), DisplayError> {
        self.fifo
            .present(image as u8, self.now, tag)
            .map_err(|e| DisplayError::Other(e.to_string()))
    }
    fn take_latched(&mut self, out: &mut Vec<Latched>) {
        self.run(self.now);
        out.append(&mut self.latched);
    }
    fn refreshes(&self) -> u64 {
        self.fifo.refreshes()
    }
    fn flush(&mut self) -> Result<(), DisplayError> {
        while self.fifo.queued() > 0 {
            let t = self.fifo.next_refresh_s();
            self.wait_until(t);
        }
        Ok(())
    }
}

impl Drop for TestDisplay {
    fn drop(&mut self) {
        // SAFETY: waiting before freeing the images.
        let _ = unsafe { self.device.device_wait_idle() };
        for i in &mut self.images {
            i.destroy(&self.device);
        }
    }
}

/// An RGBA8 picture on the GPU (`SAMPLED`, `GENERAL` layout) made from
/// `rgba`.
pub fn upload(h: &Headless, w: u32, ht: u32, rgba: &[u8]) -> OwnedImage {
    let img = OwnedImage::new(
        &h.device,
        &props(h),
        vk::Format::R8G8B8A8_UNORM,
        w,
        ht,
        vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_DST
            | vk::ImageUsageFlags::TRANSFER_SRC,
        true,
    )
    .unwrap();
    let mut st: Staging = h.staging(rgba.len()).unwrap();
    st.write(rgba);
    h.submit_and_wait(|cmd| {
        framegen_present::gpu::image_barrier(
            &h.device,
            cmd,
            img.image,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::GENERAL,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::empty(),
            vk::AccessFlags::TRANSFER_WRITE,
        );
        st.copy_to_image(cmd, img.image, w, ht);
    })
    .unwrap();
    img
}

/// Reads an RGBA8 image (`GENERAL` layout) back.
pub fn download(h: &Headless, image: vk::Image, w: u32, ht: u32) -> Vec<u8> {
    let st = h.staging((w * ht * 4) as usize).unwrap();
    h.submit_and_wait(|cmd| {
        framegen_present::gpu::memory_barrier(
            &h.device,
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::MEMORY_WRITE,
            vk::AccessFlags::TRANSFER_READ,
        );
        st.copy_from_image(cmd, image, w, ht);
    })
    .unwrap();
    st.read().to_vec()
}

/// The largest per-channel difference (RGB) between two RGBA8 pictures,
/// outside the rectangle `skip` (x, y, w, h).
pub fn max_diff(a: &[u8], b: &[u8], w: u32, skip: Option<(u32, u32, u32, u32)>) -> u8 {
    let mut m = 0u8;
    for (i, (pa, pb)) in a.chunks_exact(4).zip(b.chunks_exact(4)).enumerate() {
        let (x, y) = (i as u32 % w, i as u32 / w);
        if let Some((sx, sy, sw, sh)) = skip
            && x >= sx
            && x < sx + sw
            && y >= sy
            && y < sy + sh
        {
            continue;
        }
        for c in 0..3 {
            m = m.max(pa[c].abs_diff(pb[c]));
        }
    }
    m
}
