//! host-sim's Vulkan instance and device (lavapipe on a desktop without a
//! GPU), with the X11 surface extensions when a window is asked for.
//!
//! The loader is linked at load time (`libvulkan.so.1`); every other
//! function comes through ash from its `vkGetInstanceProcAddr`.

use std::ffi::{CStr, c_char};

use anyhow::{Context, Result, bail};
use ash::vk;
use framegen::VulkanContext;

#[link(name = "libvulkan.so.1", kind = "dylib", modifiers = "+verbatim")]
unsafe extern "system" {
    fn vkGetInstanceProcAddr(instance: vk::Instance, name: *const c_char)
    -> vk::PFN_vkVoidFunction;
}

/// The instance, the device and its one queue.
pub struct Gpu {
    /// The loader's entry points.
    pub entry: ash::Entry,
    /// The instance.
    pub instance: ash::Instance,
    /// The device.
    pub device: ash::Device,
    /// Its physical device.
    pub physical_device: vk::PhysicalDevice,
    /// The queue family (graphics, compute and transfer).
    pub queue_family: u32,
    /// The queue.
    pub queue: vk::Queue,
    /// Features enabled on the device.
    pub enabled_features: vk::PhysicalDeviceFeatures,
    /// The device's name.
    pub name: String,
    /// Whether the X11 surface and swapchain extensions are enabled.
    pub window_extensions: bool,
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

impl Gpu {
    /// Creates the instance and device. `device` picks one by index or by a
    /// part of its name (default: the first real GPU, else the first
    /// device, lavapipe on a machine without a GPU); `window` enables the
    /// X11 surface (xcb) and swapchain extensions.
    pub fn new(device: Option<&str>, window: bool) -> Result<Gpu> {
        // SAFETY: vkGetInstanceProcAddr is the loader's, linked into the process.
        let entry = unsafe {
            ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: vkGetInstanceProcAddr,
            })
        };
        let app = vk::ApplicationInfo::default()
            .application_name(c"host-sim")
            .api_version(vk::make_api_version(0, 1, 1, 0));
        let mut exts: Vec<*const c_char> = Vec::new();
        if window {
            exts.push(ash::khr::surface::NAME.as_ptr());
            exts.push(ash::khr::xcb_surface::NAME.as_ptr());
        }
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&exts);
        // SAFETY: valid create info.
        let instance = unsafe { entry.create_instance(&info, None) }.with_context(|| {
            if window {
                "vkCreateInstance with VK_KHR_xcb_surface failed (is mesa-vulkan-drivers installed?)"
            } else {
                "vkCreateInstance failed (is libvulkan1 with mesa-vulkan-drivers installed?)"
            }
        })?;
        match Self::with_instance(entry, instance.clone(), device, window) {
            Ok(g) => Ok(g),
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
        want: Option<&str>,
        window: bool,
    ) -> Result<Gpu> {
        // SAFETY: our instance.
        let pds = unsafe { instance.enumerate_physical_devices() }
            .context("vkEnumeratePhysicalDevices")?;
        let family_of = |pd| {
            // SAFETY: a physical device of our instance.
            let fams = unsafe { instance.get_physical_device_queue_family_properties(pd) };
            fams.iter()
                .position(|f| {
                    f.queue_flags
                        .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
                })
                .map(|i| i as u32)
        };
        let names: Vec<String> = pds.iter().map(|&pd| name_of(&instance, pd)).collect();
        let usable: Vec<usize> = (0..pds.len())
            .filter(|&i| family_of(pds[i]).is_some())
            .collect();
        let chosen = match want {
            Some(w) => {
                let lw = w.to_lowercase();
                w.parse::<usize>()
                    .ok()
                    .filter(|i| usable.contains(i))
                    .or_else(|| {
                        usable
                            .iter()
                            .copied()
                            .find(|&i| names[i].to_lowercase().contains(&lw))
                    })
                    .with_context(|| {
                        format!(
                            "no Vulkan device matches '{w}' (devices: {})",
                            names.join(", ")
                        )
                    })?
            }
            None => {
                let is_cpu = |i: usize| {
                    // SAFETY: a physical device of our instance.
                    unsafe { instance.get_physical_device_properties(pds[i]) }.device_type
                        == vk::PhysicalDeviceType::CPU
                };
                match usable
                    .iter()
                    .copied()
                    .find(|&i| !is_cpu(i))
                    .or(usable.first().copied())
                {
                    Some(i) => i,
                    None => bail!(
                        "no Vulkan device with a graphics and compute queue (install mesa-vulkan-drivers for lavapipe)"
                    ),
                }
            }
        };
        let pd = pds[chosen];
        let family = family_of(pd).expect("usable devices have the family");
        // SAFETY: a physical device of our instance.
        let supported = unsafe { instance.get_physical_device_features(pd) };
        let enabled = vk::PhysicalDeviceFeatures {
            shader_storage_image_extended_formats: supported.shader_storage_image_extended_formats,
            ..Default::default()
        };
        let prio = [1.0f32];
        let qinfo = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let dev_exts: Vec<*const c_char> = if window {
            vec![ash::khr::swapchain::NAME.as_ptr()]
        } else {
            Vec::new()
        };
        let dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qinfo)
            .enabled_features(&enabled)
            .enabled_extension_names(&dev_exts);
        // SAFETY: valid create info for a physical device of our instance.
        let device = unsafe { instance.create_device(pd, &dinfo, None) }
            .with_context(|| format!("vkCreateDevice on {}", names[chosen]))?;
        // SAFETY: the family has one queue.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Ok(Gpu {
            entry,
            instance,
            device,
            physical_device: pd,
            queue_family: family,
            queue,
            enabled_features: enabled,
            name: names[chosen].clone(),
            window_extensions: window,
        })
    }

    /// The context the present loop and the interpolator are made with.
    pub fn context(&self) -> VulkanContext {
        VulkanContext {
            instance: self.instance.clone(),
            device: self.device.clone(),
            physical_device: self.physical_device,
            queue_family_index: self.queue_family,
            queue: self.queue,
            enabled_features: self.enabled_features,
        }
    }

    /// The device's memory types.
    pub fn memory_properties(&self) -> vk::PhysicalDeviceMemoryProperties {
        // SAFETY: our instance and physical device.
        unsafe {
            self.instance
                .get_physical_device_memory_properties(self.physical_device)
        }
    }

    /// The Vulkan driver's name and version, for the summary.
    pub fn driver(&self) -> String {
        // SAFETY: our instance and physical device.
        let props = unsafe {
            self.instance
                .get_physical_device_properties(self.physical_device)
        };
        if props.api_version < vk::API_VERSION_1_2 {
            return self.name.clone();
        }
        let mut drv = vk::PhysicalDeviceDriverProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut drv);
        // SAFETY: our instance and physical device; the driver properties are
        // core in Vulkan 1.2, which the device has (checked above).
        unsafe {
            self.instance
                .get_physical_device_properties2(self.physical_device, &mut p2)
        };
        let info = drv
            .driver_info_as_c_str()
            .unwrap_or(c"")
            .to_string_lossy()
            .into_owned();
        let name: &CStr = drv.driver_name_as_c_str().unwrap_or(c"");
        format!("{} {}", name.to_string_lossy(), info)
            .trim()
            .to_string()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: everything made from the device was dropped before (the
        // run drops the present loop, the title and the display first).
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
