//! Device memory, images and buffers owned by the interpolator.

use ash::vk;

use crate::CreateError;

/// What a piece of memory is for, in the memory report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The game's frames and the generated frame.
    Picture,
    /// Everything else: pyramids, flow, history, histograms, readback.
    Working,
}

/// An image with its memory and views.
pub struct Image {
    /// The image.
    pub image: vk::Image,
    /// Its memory (dedicated).
    pub memory: vk::DeviceMemory,
    /// A view of every mip level, for sampling (null when not sampled).
    pub sampled: vk::ImageView,
    /// One view per mip level, for storage (empty when not a storage image).
    pub levels: Vec<vk::ImageView>,
    /// Bytes of memory bound.
    pub bytes: u64,
    /// What it is for.
    pub kind: Kind,
    /// Mip levels.
    pub mips: u32,
}

/// A buffer with its memory.
pub struct Buffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Its memory (dedicated).
    pub memory: vk::DeviceMemory,
    /// Mapped pointer when host visible.
    pub mapped: *mut u8,
    /// Bytes of memory bound.
    pub bytes: u64,
}

/// Allocates and frees the interpolator's memory.
pub struct Allocator<'a> {
    /// The device.
    pub device: &'a ash::Device,
    /// The device's memory types.
    pub props: vk::PhysicalDeviceMemoryProperties,
}

impl Allocator<'_> {
    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32, CreateError> {
        (0..self.props.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.props.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .ok_or(CreateError::NoMemoryType { flags: want })
    }

    fn allocate(
        &self,
        req: vk::MemoryRequirements,
        want: vk::MemoryPropertyFlags,
        fallback: vk::MemoryPropertyFlags,
        what: &'static str,
    ) -> Result<vk::DeviceMemory, CreateError> {
        let ty = self
            .memory_type(req.memory_type_bits, want)
            .or_else(|_| self.memory_type(req.memory_type_bits, fallback))?;
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(ty);
        // SAFETY: valid device and allocate info.
        unsafe { self.device.allocate_memory(&info, None) }.map_err(|e| CreateError::Vulkan {
            what: "vkAllocateMemory",
            pass: what,
            result: e,
        })
    }

    /// Creates a 2D image in device-local memory, with a sampled view (when
    /// `usage` has SAMPLED) and per-level storage views (when it has STORAGE).
    #[allow(clippy::too_many_arguments)]
    pub fn image(
        &self,
        what: &'static str,
        kind: Kind,
        format: vk::Format,
        width: u32,
        height: u32,
        mips: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<Image, CreateError> {
        let err = |w: &'static str| {
            move |e| CreateError::Vulkan {
                what: w,
                pass: what,
                result: e,
            }
        };
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(mips)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid device and create info; every object made here is
        // destroyed in `free_image`.
        unsafe {
            let image = self
                .device
                .create_image(&info, None)
                .map_err(err("vkCreateImage"))?;
            let req = self.device.get_image_memory_requirements(image);
            let memory = self.allocate(
                req,
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
                vk::MemoryPropertyFlags::empty(),
                what,
            )?;
            self.device
                .bind_image_memory(image, memory, 0)
                .map_err(err("vkBindImageMemory"))?;
            let view = |base: u32, count: u32| {
                let info = vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(format)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        base_mip_level: base,
                        level_count: count,
                        base_array_layer: 0,
                        layer_count: 1,
                    });
                self.device
                    .create_image_view(&info, None)
                    .map_err(err("vkCreateImageView"))
            };
            let sampled = if usage.contains(vk::ImageUsageFlags::SAMPLED) {
                view(0, mips)?
            } else {
                vk::ImageView::null()
            };
            let mut levels = Vec::new();
            if usage.contains(vk::ImageUsageFlags::STORAGE) {
                for l in 0..mips {
                    levels.push(view(l, 1)?);
                }
            }
            Ok(Image {
                image,
                memory,
                sampled,
                levels,
                bytes: req.size,
                kind,
                mips,
            })
        }
    }

    /// Creates a buffer; host visible and mapped when `host` is set.
    pub fn buffer(
        &self,
        what: &'static str,
        size: u64,
        usage: vk::BufferUsageFlags,
        host: bool,
    ) -> Result<Buffer, CreateError> {
        let err = |w: &'static str| {
            move |e| CreateError::Vulkan {
                what: w,
                pass: what,
                result: e,
            }
        };
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info; freed in `free_buffer`.
        unsafe {
            let buffer = self
                .device
                .create_buffer(&info, None)
                .map_err(err("vkCreateBuffer"))?;
            let req = self.device.get_buffer_memory_requirements(buffer);
            let (want, fallback) = if host {
                let hv =
                    vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
                (hv | vk::MemoryPropertyFlags::HOST_CACHED, hv)
            } else {
                (
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                    vk::MemoryPropertyFlags::empty(),
                )
            };
            let memory = self.allocate(req, want, fallback, what)?;
            self.device
                .bind_buffer_memory(buffer, memory, 0)
                .map_err(err("vkBindBufferMemory"))?;
            let mapped = if host {
                self.device
                    .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                    .map_err(err("vkMapMemory"))? as *mut u8
            } else {
                std::ptr::null_mut()
            };
            if !mapped.is_null() {
                std::ptr::write_bytes(mapped, 0, size as usize);
            }
            Ok(Buffer {
                buffer,
                memory,
                mapped,
                bytes: req.size,
            })
        }
    }
}

/// Frees an image and its views.
///
/// # Safety
/// The GPU must be done with it; `device` must be the one that made it.
pub unsafe fn free_image(device: &ash::Device, img: &Image) {
    // SAFETY: the caller guarantees the objects are idle and ours.
    unsafe {
        for v in &img.levels {
            device.destroy_image_view(*v, None);
        }
        if img.sampled != vk::ImageView::null() {
            device.destroy_image_view(img.sampled, None);
        }
        device.destroy_image(img.image, None);
        device.free_memory(img.memory, None);
    }
}

/// Frees a buffer.
///
/// # Safety
/// The GPU must be done with it; `device` must be the one that made it.
pub unsafe fn free_buffer(device: &ash::Device, buf: &Buffer) {
    // SAFETY: the caller guarantees the objects are idle and ours.
    unsafe {
        device.destroy_buffer(buf.buffer, None);
        device.free_memory(buf.memory, None);
    }
}
