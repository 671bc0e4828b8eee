//! Small Vulkan helpers: images and host-visible buffers with their memory,
//! a ring of command buffers with fences, barriers.

use ash::vk;

use crate::PresentError;

/// Maps a Vulkan error of `call` to [`PresentError::Vulkan`].
pub(crate) fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> PresentError {
    move |result| PresentError::Vulkan { call, result }
}

/// Finds a memory type in `bits` with `want`.
pub fn memory_type(
    props: &vk::PhysicalDeviceMemoryProperties,
    bits: u32,
    want: vk::MemoryPropertyFlags,
) -> Option<u32> {
    (0..props.memory_type_count).find(|&i| {
        bits & (1 << i) != 0 && props.memory_types[i as usize].property_flags.contains(want)
    })
}

/// A 2D image with its memory and (optionally) a view.
pub struct OwnedImage {
    /// The image.
    pub image: vk::Image,
    /// Its view (null when not made).
    pub view: vk::ImageView,
    memory: vk::DeviceMemory,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Bytes of device memory.
    pub bytes: u64,
}

impl OwnedImage {
    /// Creates a `width` x `height` image of `format` with `usage`, in
    /// device-local memory, with a view when `view` is true.
    pub fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        format: vk::Format,
        width: u32,
        height: u32,
        usage: vk::ImageUsageFlags,
        view: bool,
    ) -> Result<OwnedImage, PresentError> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid device and create info; destroyed in `destroy`.
        unsafe {
            let image = device
                .create_image(&info, None)
                .map_err(vk_err("vkCreateImage"))?;
            let req = device.get_image_memory_requirements(image);
            let Some(ty) = memory_type(
                props,
                req.memory_type_bits,
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
            )
            .or_else(|| {
                memory_type(
                    props,
                    req.memory_type_bits,
                    vk::MemoryPropertyFlags::empty(),
                )
            }) else {
                device.destroy_image(image, None);
                return Err(PresentError::NoMemoryType("image"));
            };
            let memory = match allocate(device, req.size, ty) {
                Ok(m) => m,
                Err(e) => {
                    device.destroy_image(image, None);
                    return Err(e);
                }
            };
            let mut img = OwnedImage {
                image,
                view: vk::ImageView::null(),
                memory,
                width,
                height,
                bytes: req.size,
            };
            if let Err(e) = device.bind_image_memory(image, memory, 0) {
                img.destroy(device);
                return Err(PresentError::Vulkan {
                    call: "vkBindImageMemory",
                    result: e,
                });
            }
            if view {
                match make_view(device, image, format) {
                    Ok(v) => img.view = v,
                    Err(e) => {
                        img.destroy(device);
                        return Err(e);
                    }
                }
            }
            Ok(img)
        }
    }

    /// Destroys the image, its view and its memory.
    pub fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: ours; the caller made sure the GPU is done with them.
        unsafe {
            if self.view != vk::ImageView::null() {
                device.destroy_image_view(self.view, None);
            }
            device.destroy_image(self.image, None);
            device.free_memory(self.memory, None);
        }
        self.view = vk::ImageView::null();
    }
}

/// A 2D colour view of `image`.
pub fn make_view(
    device: &ash::Device,
    image: vk::Image,
    format: vk::Format,
) -> Result<vk::ImageView, PresentError> {
    let info = vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(format)
        .subresource_range(color_range());
    // SAFETY: valid device, an image of it, valid create info.
    unsafe { device.create_image_view(&info, None) }.map_err(vk_err("vkCreateImageView"))
}

/// The colour aspect, mip 0, layer 0.
pub fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// The colour aspect, mip 0, layer 0, as layers.
pub fn color_layers() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// A copy between a tightly packed buffer (from offset 0) and a whole
/// `width`×`height` colour image.
pub fn whole_image_copy(width: u32, height: u32) -> vk::BufferImageCopy {
    vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: color_layers(),
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D {
            width,
            height,
            depth: 1,
        },
    }
}

/// Allocates `size` bytes of memory type `ty` (the caller frees it, or
/// destroys what it was for when this fails).
///
/// # Safety
/// `device` must be a valid device and `ty` one of its memory types.
unsafe fn allocate(
    device: &ash::Device,
    size: vk::DeviceSize,
    ty: u32,
) -> Result<vk::DeviceMemory, PresentError> {
    // SAFETY: the caller's contract; the allocate info is complete.
    unsafe {
        device.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(size)
                .memory_type_index(ty),
            None,
        )
    }
    .map_err(vk_err("vkAllocateMemory"))
}

/// A host-visible, host-coherent buffer, mapped for its whole life.
pub struct HostBuffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    /// Size in bytes.
    pub size: usize,
}

// SAFETY: the mapping is plain memory owned by this value; access goes
// through &self/&mut self.
unsafe impl Send for HostBuffer {}

impl HostBuffer {
    /// A buffer of `size` bytes for `usage`.
    pub fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        size: usize,
        usage: vk::BufferUsageFlags,
    ) -> Result<HostBuffer, PresentError> {
        let size = size.max(4);
        // SAFETY: valid create infos; everything is freed in `destroy`.
        unsafe {
            let buffer = device
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size as u64)
                        .usage(usage),
                    None,
                )
                .map_err(vk_err("vkCreateBuffer"))?;
            let req = device.get_buffer_memory_requirements(buffer);
            let want =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let Some(ty) = memory_type(props, req.memory_type_bits, want) else {
                device.destroy_buffer(buffer, None);
                return Err(PresentError::NoMemoryType("host-visible buffer"));
            };
            let memory = match allocate(device, req.size, ty) {
                Ok(m) => m,
                Err(e) => {
                    device.destroy_buffer(buffer, None);
                    return Err(e);
                }
            };
            let mapped = device.bind_buffer_memory(buffer, memory, 0).and_then(|_| {
                device.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            });
            match mapped {
                Ok(ptr) => Ok(HostBuffer {
                    buffer,
                    memory,
                    ptr: ptr.cast(),
                    size,
                }),
                Err(e) => {
                    device.destroy_buffer(buffer, None);
                    device.free_memory(memory, None);
                    Err(PresentError::Vulkan {
                        call: "vkMapMemory",
                        result: e,
                    })
                }
            }
        }
    }

    /// The bytes (after the GPU finished writing them; the caller waits).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `size` bytes of host-coherent memory for the
        // life of `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size) }
    }

    /// The bytes, to write (while the GPU does not read them).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size) }
    }

    /// Frees the buffer.
    pub fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: ours; the caller made sure the GPU is done with it.
        unsafe {
            device.destroy_buffer(self.buffer, None);
            device.free_memory(self.memory, None);
        }
    }
}

/// A ring of primary command buffers, each with a fence that says when the
/// GPU is done with it.
pub struct CommandRing {
    pool: vk::CommandPool,
    cmds: Vec<vk::CommandBuffer>,
    fences: Vec<vk::Fence>,
    /// Whether each slot was submitted and not yet seen done.
    pending: Vec<bool>,
    next: usize,
}

impl CommandRing {
    /// `n` command buffers of `queue_family`.
    pub fn new(
        device: &ash::Device,
        queue_family: u32,
        n: usize,
    ) -> Result<CommandRing, PresentError> {
        // SAFETY: valid create infos; destroyed in `destroy`.
        unsafe {
            let pool = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(queue_family)
                        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                    None,
                )
                .map_err(vk_err("vkCreateCommandPool"))?;
            let cmds = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(n as u32),
                )
                .map_err(vk_err("vkAllocateCommandBuffers"))?;
            let mut fences = Vec::with_capacity(n);
            for _ in 0..n {
                fences.push(
                    device
                        .create_fence(&vk::FenceCreateInfo::default(), None)
                        .map_err(vk_err("vkCreateFence"))?,
                );
            }
            Ok(CommandRing {
                pool,
                cmds,
                fences,
                pending: vec![false; n],
                next: 0,
            })
        }
    }

    /// The next command buffer, begun; waits for the GPU to finish with it
    /// when it is still in flight (the ring is the most work the loop keeps
    /// queued). Returns its slot.
    pub fn begin(
        &mut self,
        device: &ash::Device,
    ) -> Result<(usize, vk::CommandBuffer), PresentError> {
        let slot = self.next;
        self.next = (self.next + 1) % self.cmds.len();
        self.wait(device, slot)?;
        let cmd = self.cmds[slot];
        // SAFETY: the GPU is done with `cmd` (waited above).
        unsafe {
            device
                .reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())
                .map_err(vk_err("vkResetCommandBuffer"))?;
            device
                .begin_command_buffer(
                    cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(vk_err("vkBeginCommandBuffer"))?;
        }
        Ok((slot, cmd))
    }

    /// Ends and submits slot `slot`'s command buffer, waiting on `wait` and
    /// signalling `signal` (either may be null).
    pub fn submit(
        &mut self,
        device: &ash::Device,
        queue: vk::Queue,
        slot: usize,
        wait: vk::Semaphore,
        signal: vk::Semaphore,
    ) -> Result<(), PresentError> {
        let cmd = [self.cmds[slot]];
        let waits = [wait];
        let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
        let signals = [signal];
        let mut info = vk::SubmitInfo::default().command_buffers(&cmd);
        if wait != vk::Semaphore::null() {
            info = info.wait_semaphores(&waits).wait_dst_stage_mask(&stages);
        }
        if signal != vk::Semaphore::null() {
            info = info.signal_semaphores(&signals);
        }
        // SAFETY: a command buffer in the recording state of our pool; its
        // fence is unsignalled (reset in `wait`).
        unsafe {
            device
                .end_command_buffer(cmd[0])
                .map_err(vk_err("vkEndCommandBuffer"))?;
            device
                .queue_submit(queue, &[info], self.fences[slot])
                .map_err(vk_err("vkQueueSubmit"))?;
        }
        self.pending[slot] = true;
        Ok(())
    }

    /// Whether slot `slot`'s last submission is done (never waits).
    pub fn done(&self, device: &ash::Device, slot: usize) -> bool {
        // SAFETY: our fence.
        !self.pending[slot]
            || unsafe { device.get_fence_status(self.fences[slot]) }.unwrap_or(false)
    }

    /// The slot that will be handed out next.
    pub fn next_slot(&self) -> usize {
        self.next
    }

    /// Waits for slot `slot`'s submission, if any.
    pub fn wait(&mut self, device: &ash::Device, slot: usize) -> Result<(), PresentError> {
        if self.pending[slot] {
            let f = [self.fences[slot]];
            // SAFETY: our fence, submitted.
            unsafe {
                device
                    .wait_for_fences(&f, true, u64::MAX)
                    .map_err(vk_err("vkWaitForFences"))?;
                device.reset_fences(&f).map_err(vk_err("vkResetFences"))?;
            }
            self.pending[slot] = false;
        }
        Ok(())
    }

    /// Waits for every submission.
    pub fn wait_all(&mut self, device: &ash::Device) -> Result<(), PresentError> {
        for s in 0..self.cmds.len() {
            self.wait(device, s)?;
        }
        Ok(())
    }

    /// Destroys the ring (waits for the GPU first).
    pub fn destroy(&mut self, device: &ash::Device) {
        let _ = self.wait_all(device);
        // SAFETY: ours, and idle (waited above).
        unsafe {
            for f in &self.fences {
                device.destroy_fence(*f, None);
            }
            device.destroy_command_pool(self.pool, None);
        }
    }
}

/// A global memory barrier from `src` to `dst`.
pub fn memory_barrier(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    src_stage: vk::PipelineStageFlags,
    dst_stage: vk::PipelineStageFlags,
    src: vk::AccessFlags,
    dst: vk::AccessFlags,
) {
    let mb = [vk::MemoryBarrier::default()
        .src_access_mask(src)
        .dst_access_mask(dst)];
    // SAFETY: `cmd` is recording (caller's contract).
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &mb,
            &[],
            &[],
        )
    };
}

/// A layout transition of a whole colour image.
#[allow(clippy::too_many_arguments)]
pub fn image_barrier(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    src_stage: vk::PipelineStageFlags,
    dst_stage: vk::PipelineStageFlags,
    src: vk::AccessFlags,
    dst: vk::AccessFlags,
) {
    let b = [vk::ImageMemoryBarrier::default()
        .old_layout(old)
        .new_layout(new)
        .src_access_mask(src)
        .dst_access_mask(dst)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(color_range())];
    // SAFETY: `cmd` is recording (caller's contract).
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &b,
        )
    };
}

/// Records a blit of the whole `src` (`sw` x `sh`, GENERAL) onto the whole
/// `dst` (`dw` x `dh`, GENERAL), converting formats.
#[allow(clippy::too_many_arguments)]
pub fn blit(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    src: vk::Image,
    sw: u32,
    sh: u32,
    dst: vk::Image,
    dw: u32,
    dh: u32,
    filter: vk::Filter,
) {
    let region = [vk::ImageBlit {
        src_subresource: color_layers(),
        src_offsets: [
            vk::Offset3D::default(),
            vk::Offset3D {
                x: sw as i32,
                y: sh as i32,
                z: 1,
            },
        ],
        dst_subresource: color_layers(),
        dst_offsets: [
            vk::Offset3D::default(),
            vk::Offset3D {
                x: dw as i32,
                y: dh as i32,
                z: 1,
            },
        ],
    }];
    // SAFETY: `cmd` is recording; the images are the caller's, in GENERAL.
    unsafe {
        device.cmd_blit_image(
            cmd,
            src,
            vk::ImageLayout::GENERAL,
            dst,
            vk::ImageLayout::GENERAL,
            &region,
            filter,
        )
    };
}
