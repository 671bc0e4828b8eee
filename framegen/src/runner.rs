//! Runs the interpolator on pictures in memory, on a [`Headless`] device: the
//! frame cycle as a renderer would record it, with uploads and downloads.
//! The `fg` tool, the benchmarks and the tests use it.

use ash::vk;

use crate::headless::{Headless, HeadlessError, Options, Staging};
use crate::{Config, CreateError, FrameGen};

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Setting up the device or a transfer failed.
    #[error(transparent)]
    Headless(#[from] HeadlessError),
    /// Creating the interpolator failed.
    #[error(transparent)]
    Create(#[from] CreateError),
    /// A picture has the wrong size.
    #[error("picture has {got} bytes, expected {want} ({width}x{height} RGBA8)")]
    BadPicture {
        /// Bytes given.
        got: usize,
        /// Bytes expected.
        want: usize,
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
}

/// A device, an interpolator and staging buffers for one picture size.
pub struct Runner {
    fg: Option<FrameGen>,
    upload: Option<Staging>,
    download: Option<Staging>,
    h: Headless,
    frame_bytes: usize,
    /// Frames run by the `run_staged*` calls so far: the next staged
    /// picture is this one modulo their count, so that calls continue the
    /// sequence rather than restart it.
    staged_frames: u64,
}

impl Runner {
    /// Sets up a device as `opts` say and an interpolator for `config`.
    pub fn new(opts: &Options, config: &Config) -> Result<Runner, RunError> {
        let h = Headless::new(opts)?;
        let fg = FrameGen::new(&h.context(), config)?;
        let frame_bytes = (config.width * config.height * 4) as usize;
        let upload = h.staging(frame_bytes)?;
        let download = h.staging(frame_bytes * 3)?;
        Ok(Runner {
            fg: Some(fg),
            upload: Some(upload),
            download: Some(download),
            h,
            frame_bytes,
            staged_frames: 0,
        })
    }

    /// The interpolator.
    pub fn fg(&self) -> &FrameGen {
        self.fg.as_ref().expect("alive until drop")
    }

    /// The interpolator, mutably.
    pub fn fg_mut(&mut self) -> &mut FrameGen {
        self.fg.as_mut().expect("alive until drop")
    }

    /// The device.
    pub fn headless(&self) -> &Headless {
        &self.h
    }

    /// Feeds one game frame (bytes in the configured frame format's order,
    /// tightly packed) and returns the generated frames (RGBA8), none when
    /// `reset` or when `read` is false. Waits for the GPU.
    pub fn push_frame(
        &mut self,
        picture: &[u8],
        reset: bool,
        read: bool,
    ) -> Result<Vec<Vec<u8>>, RunError> {
        let cfg = *self.fg().config();
        if picture.len() != self.frame_bytes {
            return Err(RunError::BadPicture {
                got: picture.len(),
                want: self.frame_bytes,
                width: cfg.width,
                height: cfg.height,
            });
        }
        let mut upload = self.upload.take().expect("staging");
        upload.write(picture);
        let download = self.download.take().expect("staging");
        let fg = self.fg.as_mut().expect("alive");
        let n = fg.generated();
        let d = self.h.device.clone();
        let made = self.h.submit_and_wait(|cmd| {
            fg.prepare(cmd);
            upload.copy_to_image(cmd, fg.frame_image(), cfg.width, cfg.height);
            let made = fg.record(cmd, reset);
            if made && read {
                for i in 0..n {
                    if i > 0 {
                        fg.interpolate_next(cmd, i);
                    }
                    copy_out(
                        &d,
                        cmd,
                        &download,
                        fg.output_image(),
                        cfg.width,
                        cfg.height,
                        i as usize * (cfg.width * cfg.height * 4) as usize,
                    );
                }
            }
            made
        });
        self.upload = Some(upload);
        self.download = Some(download);
        let made = made?;
        self.fg_mut().advance();
        if !(made && read) {
            return Ok(Vec::new());
        }
        let bytes = self.download.as_ref().expect("staging").read();
        Ok((0..n as usize)
            .map(|i| bytes[i * self.frame_bytes..(i + 1) * self.frame_bytes].to_vec())
            .collect())
    }

    /// Uploads pictures into staging buffers of their own, for
    /// [`Runner::run_staged`].
    pub fn stage(&self, pictures: &[Vec<u8>]) -> Result<Vec<Staging>, RunError> {
        pictures
            .iter()
            .map(|p| {
                let mut st = self.h.staging(p.len())?;
                st.write(p);
                Ok(st)
            })
            .collect()
    }

    /// Runs `count` frame cycles over the staged pictures (in turn, going on
    /// from where the last call stopped), four per submission so that the
    /// GPU stays busy (no reads, no uploads between frames); the first is a
    /// reset when `reset_first`.
    pub fn run_staged(
        &mut self,
        staged: &[Staging],
        count: u32,
        reset_first: bool,
    ) -> Result<(), RunError> {
        self.run_staged_with(staged, count, reset_first, true)
    }

    /// [`Runner::run_staged`], optionally without the uploads after the
    /// first two frames (the frame images keep what they had): for timing
    /// without the host-to-device transfers.
    pub fn run_staged_with(
        &mut self,
        staged: &[Staging],
        count: u32,
        reset_first: bool,
        upload: bool,
    ) -> Result<(), RunError> {
        self.run_staged_loaded(staged, count, reset_first, upload, None)
    }

    /// [`Runner::run_staged_with`], and before each frame `load.1` frames of
    /// another interpolator `load.0` made on this runner's device (its
    /// frame images keep what they have): work outside the timed frames
    /// that keeps the GPU as busy as a game's rendering would, so that its
    /// clocks are those of a loaded GPU.
    pub fn run_staged_loaded(
        &mut self,
        staged: &[Staging],
        count: u32,
        reset_first: bool,
        upload: bool,
        mut load: Option<(&mut FrameGen, u32)>,
    ) -> Result<(), RunError> {
        let cfg = *self.fg().config();
        let done = self.staged_frames;
        let mut k = 0u32;
        while k < count {
            let n = (count - k).min(4);
            let fg = self.fg.as_mut().expect("alive");
            self.h.submit_and_wait(|cmd| {
                for i in 0..n {
                    if let Some((other, frames)) = load.as_mut() {
                        for _ in 0..*frames {
                            other.prepare(cmd);
                            other.record(cmd, false);
                            other.advance();
                        }
                    }
                    let n_done = done + u64::from(k + i);
                    let st = &staged[(n_done % staged.len() as u64) as usize];
                    fg.prepare(cmd);
                    if upload || n_done < 2 {
                        st.copy_to_image(cmd, fg.frame_image(), cfg.width, cfg.height);
                    }
                    fg.record(cmd, reset_first && k + i == 0);
                    for j in 1..fg.generated() {
                        fg.interpolate_next(cmd, j);
                    }
                    fg.advance();
                }
            })?;
            k += n;
            self.staged_frames += u64::from(n);
        }
        Ok(())
    }

    /// Reads the last frame's final flow fields, `[forward, backward]`, in
    /// picture pixels, row-major over [`FrameGen::flow_extent`] blocks.
    pub fn read_flow(&mut self) -> Result<[Vec<[f32; 2]>; 2], RunError> {
        let (bw, bh) = self.fg().flow_extent();
        let scale = (1u32 << self.fg().flow_level()) as f32 / crate::shaders::consts::SUBPX;
        let n = (bw * bh) as usize;
        let st = self.h.staging(n * 4 * 2)?;
        let imgs = self.fg().flow_images();
        let d = self.h.device.clone();
        self.h.submit_and_wait(|cmd| {
            for (k, img) in imgs.iter().enumerate() {
                copy_out(&d, cmd, &st, *img, bw, bh, k * n * 4);
            }
        })?;
        let bytes = st.read();
        let field = |k: usize| {
            (0..n)
                .map(|i| {
                    let o = k * n * 4 + i * 4;
                    let x = i16::from_le_bytes([bytes[o], bytes[o + 1]]);
                    let y = i16::from_le_bytes([bytes[o + 2], bytes[o + 3]]);
                    [f32::from(x) * scale, f32::from(y) * scale]
                })
                .collect::<Vec<_>>()
        };
        Ok([field(0), field(1)])
    }
}

fn copy_out(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    st: &Staging,
    image: vk::Image,
    width: u32,
    height: u32,
    offset: usize,
) {
    let region = [vk::BufferImageCopy {
        buffer_offset: offset as u64,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        },
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D {
            width,
            height,
            depth: 1,
        },
    }];
    let mb = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)];
    // SAFETY: recording into a command buffer in the recording state; the
    // image is in GENERAL layout and made visible to transfer reads by the
    // interpolator's barriers.
    unsafe {
        d.cmd_copy_image_to_buffer(cmd, image, vk::ImageLayout::GENERAL, st.buffer, &region);
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &mb,
            &[],
            &[],
        );
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        // SAFETY: waiting for the device before freeing what it may use.
        unsafe {
            let _ = self.h.device.device_wait_idle();
        }
        self.fg = None;
        self.upload = None;
        self.download = None;
    }
}
