//! A Vulkan device of our own, for the `fg` tool and the tests (the
//! renderer that embeds the interpolator brings its own device instead).
//!
//! The loader is linked at load time (`libvulkan.so.1`); its
//! `vkGetInstanceProcAddr` is handed to ash, and every other function comes
//! through ash from there (no dlopen).

use std::ffi::c_char;

use ash::vk;

use crate::VulkanContext;

#[link(name = "libvulkan.so.1", kind = "dylib", modifiers = "+verbatim")]
unsafe extern "system" {
    fn vkGetInstanceProcAddr(instance: vk::Instance, name: *const c_char)
    -> vk::PFN_vkVoidFunction;
}

/// Why the headless device could not be set up, or a transfer failed.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// A Vulkan call failed.
    #[error("{0} failed: {1}")]
    Vulkan(&'static str, vk::Result),
    /// No device matched.
    #[error("no Vulkan device matches '{wanted}' (devices: {available})")]
    NoDevice {
        /// What was asked for.
        wanted: String,
        /// What there is.
        available: String,
    },
    /// No Vulkan device at all, or none with a compute queue.
    #[error("no Vulkan device with a compute queue (is mesa-vulkan-drivers installed?)")]
    NoComputeDevice,
    /// No host-visible memory for a staging buffer.
    #[error("no host-visible memory type")]
    NoHostMemory,
}

/// Options for [`Headless::new`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Picks the device: an index into the list, or a part of its name
    /// (case-insensitive). `None`: the first device with a compute queue,
    /// preferring a real GPU over a CPU driver.
    pub device: Option<String>,
    /// Leaves `shaderStorageImageExtendedFormats` disabled even where the
    /// device has it (to test the interpolator's feature check).
    pub without_extended_formats: bool,
    /// Enables `VK_KHR_pipeline_executable_properties` where the device has
    /// it, so that pipelines made with `CAPTURE_STATISTICS_KHR` report the
    /// driver's statistics (registers, spills...; `fg shader-stats`).
    pub pipeline_statistics: bool,
}

/// An instance, a device with one compute queue, and a command pool.
pub struct Headless {
    #[allow(dead_code)]
    entry: ash::Entry,
    /// The instance.
    pub instance: ash::Instance,
    /// The device.
    pub device: ash::Device,
    /// Its physical device.
    pub physical_device: vk::PhysicalDevice,
    /// The queue family used.
    pub queue_family_index: u32,
    /// The queue.
    pub queue: vk::Queue,
    /// What was enabled on the device.
    pub enabled_features: vk::PhysicalDeviceFeatures,
    /// The device's name.
    pub device_name: String,
    /// Whether `VK_KHR_pipeline_executable_properties` is enabled (asked by
    /// [`Options::pipeline_statistics`] and present).
    pub pipeline_statistics: bool,
    pool: vk::CommandPool,
    mem_props: vk::PhysicalDeviceMemoryProperties,
}

/// A host-visible buffer for uploads and downloads.
pub struct Staging {
    /// The buffer.
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    /// Size in bytes.
    pub size: usize,
    device: ash::Device,
}

fn entry() -> ash::Entry {
    // SAFETY: vkGetInstanceProcAddr is the loader's, linked into the process.
    unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: vkGetInstanceProcAddr,
        })
    }
}

fn make_instance(entry: &ash::Entry) -> Result<ash::Instance, HeadlessError> {
    let app = vk::ApplicationInfo::default()
        .application_name(c"framegen")
        .api_version(vk::make_api_version(0, 1, 1, 0));
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: valid create info.
    unsafe { entry.create_instance(&info, None) }
        .map_err(|e| HeadlessError::Vulkan("vkCreateInstance", e))
}

fn name_of(instance: &ash::Instance, pd: vk::PhysicalDevice) -> String {
    // SAFETY: a physical device of `instance`.
    let props = unsafe { instance.get_physical_device_properties(pd) };
    props
        .device_name_as_c_str()
        .unwrap_or(c"?")
        .to_string_lossy()
        .into_owned()
}

/// The names of the Vulkan devices, in order (for `--device`).
pub fn list_devices() -> Result<Vec<String>, HeadlessError> {
    let entry = entry();
    let instance = make_instance(&entry)?;
    // SAFETY: our instance, destroyed below.
    let pds = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| HeadlessError::Vulkan("vkEnumeratePhysicalDevices", e))?;
    let names = pds.iter().map(|&pd| name_of(&instance, pd)).collect();
    // SAFETY: nothing else uses the instance.
    unsafe { instance.destroy_instance(None) };
    Ok(names)
}

impl Headless {
    /// Creates an instance and a device as `opts` say.
    pub fn new(opts: &Options) -> Result<Headless, HeadlessError> {
        let entry = entry();
        let instance = make_instance(&entry)?;
        match Self::with_instance(entry, instance.clone(), opts) {
            Ok(h) => Ok(h),
            Err(e) => {
                // SAFETY: nothing else uses the instance.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn with_instance(
        entry: ash::Entry,
        instance: ash::Instance,
        opts: &Options,
    ) -> Result<Headless, HeadlessError> {
        // SAFETY: our instance.
        let pds = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| HeadlessError::Vulkan("vkEnumeratePhysicalDevices", e))?;
        let compute_family = |pd| {
            // SAFETY: a physical device of our instance.
            let fams = unsafe { instance.get_physical_device_queue_family_properties(pd) };
            fams.iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .map(|i| i as u32)
        };
        let names: Vec<String> = pds.iter().map(|&pd| name_of(&instance, pd)).collect();
        let chosen = match &opts.device {
            Some(want) => {
                let lw = want.to_lowercase();
                let by_index = want.parse::<usize>().ok().filter(|&i| i < pds.len());
                by_index
                    .or_else(|| names.iter().position(|n| n.to_lowercase().contains(&lw)))
                    .ok_or_else(|| HeadlessError::NoDevice {
                        wanted: want.clone(),
                        available: names
                            .iter()
                            .enumerate()
                            .map(|(i, n)| format!("{i}: {n}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                    })?
            }
            None => {
                let is_cpu = |pd| {
                    // SAFETY: a physical device of our instance.
                    unsafe { instance.get_physical_device_properties(pd) }.device_type
                        == vk::PhysicalDeviceType::CPU
                };
                let candidates: Vec<usize> = (0..pds.len())
                    .filter(|&i| compute_family(pds[i]).is_some())
                    .collect();
                candidates
                    .iter()
                    .copied()
                    .find(|&i| !is_cpu(pds[i]))
                    .or(candidates.first().copied())
                    .ok_or(HeadlessError::NoComputeDevice)?
            }
        };
        let pd = pds[chosen];
        let family = compute_family(pd).ok_or(HeadlessError::NoComputeDevice)?;
        // SAFETY: a physical device of our instance.
        let supported = unsafe { instance.get_physical_device_features(pd) };
        let mut enabled = vk::PhysicalDeviceFeatures::default();
        if !opts.without_extended_formats {
            enabled.shader_storage_image_extended_formats =
                supported.shader_storage_image_extended_formats;
        }
        let prio = [1.0f32];
        let qinfo = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let stats_ext = ash::khr::pipeline_executable_properties::NAME;
        let has_stats = opts.pipeline_statistics && {
            // SAFETY: a physical device of our instance.
            let exts =
                unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap_or_default();
            exts.iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == stats_ext))
        };
        let ext_names = [stats_ext.as_ptr()];
        let mut stats_features =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        let mut dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qinfo)
            .enabled_features(&enabled);
        if has_stats {
            dinfo = dinfo
                .enabled_extension_names(&ext_names)
                .push_next(&mut stats_features);
        }
        // SAFETY: valid create info for a physical device of our instance.
        let device = unsafe { instance.create_device(pd, &dinfo, None) }
            .map_err(|e| HeadlessError::Vulkan("vkCreateDevice", e))?;
        // SAFETY: the family has one queue.
        let queue = unsafe { device.get_device_queue(family, 0) };
        // SAFETY: valid create info.
        let pool = unsafe {
            device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
        }
        .map_err(|e| HeadlessError::Vulkan("vkCreateCommandPool", e))?;
        // SAFETY: as above.
        let mem_props = unsafe { instance.get_physical_device_memory_properties(pd) };
        Ok(Headless {
            entry,
            instance,
            device,
            physical_device: pd,
            queue_family_index: family,
            queue,
            enabled_features: enabled,
            device_name: names[chosen].clone(),
            pipeline_statistics: has_stats,
            pool,
            mem_props,
        })
    }

    /// The context to create a [`crate::FrameGen`] with.
    pub fn context(&self) -> VulkanContext {
        VulkanContext {
            instance: self.instance.clone(),
            device: self.device.clone(),
            physical_device: self.physical_device,
            queue_family_index: self.queue_family_index,
            queue: self.queue,
            enabled_features: self.enabled_features,
        }
    }

    /// Records `f` into a fresh command buffer, submits it and waits.
    pub fn submit_and_wait<R>(
        &self,
        f: impl FnOnce(vk::CommandBuffer) -> R,
    ) -> Result<R, HeadlessError> {
        let d = &self.device;
        let err = |what| move |e| HeadlessError::Vulkan(what, e);
        // SAFETY: our pool, device and queue; the command buffer is freed
        // after the wait.
        unsafe {
            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(err("vkAllocateCommandBuffers"))?[0];
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .map_err(err("vkBeginCommandBuffer"))?;
            let r = f(cmd);
            d.end_command_buffer(cmd)
                .map_err(err("vkEndCommandBuffer"))?;
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(err("vkCreateFence"))?;
            let res = d
                .queue_submit(self.queue, &submit, fence)
                .and_then(|_| d.wait_for_fences(&[fence], true, u64::MAX));
            d.destroy_fence(fence, None);
            d.free_command_buffers(self.pool, &cmds);
            res.map_err(err("vkQueueSubmit/vkWaitForFences"))?;
            Ok(r)
        }
    }

    /// A host-visible buffer of `size` bytes.
    pub fn staging(&self, size: usize) -> Result<Staging, HeadlessError> {
        let d = &self.device;
        let err = |what| move |e| HeadlessError::Vulkan(what, e);
        // SAFETY: valid create infos; freed by Staging's Drop.
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size as u64).usage(
                        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                    ),
                    None,
                )
                .map_err(err("vkCreateBuffer"))?;
            let req = d.get_buffer_memory_requirements(buffer);
            let want =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let ty = (0..self.mem_props.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && self.mem_props.memory_types[i as usize]
                            .property_flags
                            .contains(want)
                })
                .ok_or(HeadlessError::NoHostMemory)?;
            let memory = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(ty),
                    None,
                )
                .map_err(err("vkAllocateMemory"))?;
            d.bind_buffer_memory(buffer, memory, 0)
                .map_err(err("vkBindBufferMemory"))?;
            let ptr = d
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(err("vkMapMemory"))? as *mut u8;
            Ok(Staging {
                buffer,
                memory,
                ptr,
                size,
                device: d.clone(),
            })
        }
    }
}

impl Staging {
    /// Copies `data` to the start of the buffer.
    pub fn write(&mut self, data: &[u8]) {
        assert!(data.len() <= self.size, "staging buffer too small");
        // SAFETY: `ptr` maps `size` bytes of host-coherent memory.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr, data.len()) };
    }

    /// The buffer's bytes (after the GPU wrote them and was waited for).
    pub fn read(&self) -> &[u8] {
        // SAFETY: `ptr` maps `size` bytes of host-coherent memory, which
        // the GPU is done writing (caller's contract: after a wait).
        unsafe { std::slice::from_raw_parts(self.ptr, self.size) }
    }

    /// Records a copy of the whole buffer into a 2D `image` (GENERAL layout).
    pub fn copy_to_image(&self, cmd: vk::CommandBuffer, image: vk::Image, width: u32, height: u32) {
        let region = [buffer_image_region(width, height)];
        // SAFETY: recording into a command buffer in the recording state.
        unsafe {
            self.device.cmd_copy_buffer_to_image(
                cmd,
                self.buffer,
                image,
                vk::ImageLayout::GENERAL,
                &region,
            )
        };
    }

    /// Records a copy of a 2D `image` (GENERAL layout) into the buffer, then
    /// a barrier that makes it visible to the host.
    pub fn copy_from_image(
        &self,
        cmd: vk::CommandBuffer,
        image: vk::Image,
        width: u32,
        height: u32,
    ) {
        let region = [buffer_image_region(width, height)];
        let mb = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: recording into a command buffer in the recording state.
        unsafe {
            self.device.cmd_copy_image_to_buffer(
                cmd,
                image,
                vk::ImageLayout::GENERAL,
                self.buffer,
                &region,
            );
            self.device.cmd_pipeline_barrier(
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
}

fn buffer_image_region(width: u32, height: u32) -> vk::BufferImageCopy {
    vk::BufferImageCopy {
        buffer_offset: 0,
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
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // SAFETY: ours; the GPU is done with it (users wait after submits).
        unsafe {
            self.device.destroy_buffer(self.buffer, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

impl Drop for Headless {
    fn drop(&mut self) {
        // SAFETY: everything made from the device was dropped before (users
        // drop FrameGen and Staging first); wait for the queue to be safe.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// The device name as the driver reports it, for log lines.
pub fn describe(h: &Headless) -> &str {
    &h.device_name
}
