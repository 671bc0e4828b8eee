//! Presenting on VK_KHR_display, as the console's Vulkan drivers do: one
//! 3840×2160 display and plane, 119.88 Hz (when the title declares it) or
//! 59.94 Hz, FIFO only, `B8G8R8A8_UNORM`, three (ps5vk) or four (RADV)
//! swapchain images.
//!
//! Plain Vulkan through ash: it builds (and its pure parts are tested) on
//! the host; only the console has a display to run it on.

use crate::display_mode::{DisplayMode, NoUsableMode, choose_mode};
use ash::vk;
use std::ffi::CStr;
use std::fmt;

/// The instance extensions presenting needs.
pub const INSTANCE_EXTENSIONS: [&CStr; 2] = [ash::khr::surface::NAME, ash::khr::display::NAME];

/// Why the display could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisplayError {
    /// A Vulkan call failed.
    Vulkan {
        /// The call.
        call: &'static str,
        /// Its result.
        result: vk::Result,
    },
    /// The driver lists no display.
    NoDisplay,
    /// No plane can show the display.
    NoPlane,
    /// No usable mode (the offered ones are in the error).
    Mode(NoUsableMode),
    /// The surface does not offer FIFO presenting.
    NoFifo,
    /// The surface offers no usable format.
    NoFormat(Vec<vk::Format>),
}

impl fmt::Display for DisplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisplayError::Vulkan { call, result } => write!(f, "{call} failed: {result}"),
            DisplayError::NoDisplay => {
                f.write_str("the Vulkan driver lists no display (VK_KHR_display)")
            }
            DisplayError::NoPlane => f.write_str("no display plane supports the display"),
            DisplayError::Mode(e) => e.fmt(f),
            DisplayError::NoFifo => {
                f.write_str("the display surface does not offer FIFO presenting")
            }
            DisplayError::NoFormat(v) => write!(f, "no B8G8R8A8 surface format; offered {v:?}"),
        }
    }
}

impl std::error::Error for DisplayError {}

fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> DisplayError {
    move |result| DisplayError::Vulkan { call, result }
}

/// The display, mode and plane chosen to present on.
#[derive(Debug, Clone)]
pub struct DisplayChoice {
    /// The display.
    pub display: vk::DisplayKHR,
    /// The chosen mode.
    pub mode: vk::DisplayModeKHR,
    /// Its size and rate.
    pub info: DisplayMode,
    /// Every mode the display offers.
    pub offered: Vec<DisplayMode>,
    /// The plane to present on.
    pub plane: u32,
    /// The plane's stack index.
    pub plane_stack_index: u32,
}

/// Finds the first display, chooses its mode (see
/// [`crate::display_mode::choose_mode`]) and a plane that can show it.
///
/// # Safety
/// `display` must belong to a live instance and `pdev` to it.
pub unsafe fn choose_display(
    display: &ash::khr::display::Instance,
    pdev: vk::PhysicalDevice,
    allow_120: bool,
) -> Result<DisplayChoice, DisplayError> {
    // SAFETY: the caller's live instance and physical device.
    let displays = unsafe { display.get_physical_device_display_properties(pdev) }
        .map_err(vk_err("vkGetPhysicalDeviceDisplayPropertiesKHR"))?;
    let first = displays.first().ok_or(DisplayError::NoDisplay)?.display;
    // SAFETY: as above, with a display the driver listed.
    let modes = unsafe { display.get_display_mode_properties(pdev, first) }
        .map_err(vk_err("vkGetDisplayModePropertiesKHR"))?;
    let offered: Vec<DisplayMode> = modes
        .iter()
        .map(|m| DisplayMode {
            width: m.parameters.visible_region.width,
            height: m.parameters.visible_region.height,
            refresh_mhz: m.parameters.refresh_rate,
        })
        .collect();
    let index = choose_mode(&offered, allow_120).map_err(DisplayError::Mode)?;
    // SAFETY: as above.
    let planes = unsafe { display.get_physical_device_display_plane_properties(pdev) }
        .map_err(vk_err("vkGetPhysicalDeviceDisplayPlanePropertiesKHR"))?;
    for (plane, props) in planes.iter().enumerate() {
        // SAFETY: as above, with a plane index the driver listed.
        let supported = unsafe { display.get_display_plane_supported_displays(pdev, plane as u32) }
            .map_err(vk_err("vkGetDisplayPlaneSupportedDisplaysKHR"))?;
        if supported.contains(&first) {
            return Ok(DisplayChoice {
                display: first,
                mode: modes[index].display_mode,
                info: offered[index],
                offered,
                plane: plane as u32,
                plane_stack_index: props.current_stack_index,
            });
        }
    }
    Err(DisplayError::NoPlane)
}

/// Creates the surface on the chosen display plane.
///
/// # Safety
/// As [`choose_display`]; destroy the surface before the instance.
pub unsafe fn create_surface(
    display: &ash::khr::display::Instance,
    choice: &DisplayChoice,
) -> Result<vk::SurfaceKHR, DisplayError> {
    let info = vk::DisplaySurfaceCreateInfoKHR::default()
        .display_mode(choice.mode)
        .plane_index(choice.plane)
        .plane_stack_index(choice.plane_stack_index)
        .transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
        .global_alpha(1.0)
        .alpha_mode(vk::DisplayPlaneAlphaFlagsKHR::OPAQUE)
        .image_extent(vk::Extent2D {
            width: choice.info.width,
            height: choice.info.height,
        });
    // SAFETY: valid create info for the caller's live instance.
    unsafe { display.create_display_plane_surface(&info, None) }
        .map_err(vk_err("vkCreateDisplayPlaneSurfaceKHR"))
}

/// The swapchain to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapchainConfig {
    /// Image format.
    pub format: vk::Format,
    /// Colour space.
    pub color_space: vk::ColorSpaceKHR,
    /// Image size.
    pub extent: vk::Extent2D,
    /// Image count.
    pub image_count: u32,
}

/// Chooses the swapchain: FIFO (required), `B8G8R8A8_UNORM` (else
/// `B8G8R8A8_SRGB`), the surface's size (else the mode's), and three images
/// where the surface allows (ps5vk gives three, RADV four).
pub fn swapchain_config(
    caps: &vk::SurfaceCapabilitiesKHR,
    formats: &[vk::SurfaceFormatKHR],
    present_modes: &[vk::PresentModeKHR],
    mode: DisplayMode,
) -> Result<SwapchainConfig, DisplayError> {
    if !present_modes.contains(&vk::PresentModeKHR::FIFO) {
        return Err(DisplayError::NoFifo);
    }
    let format = [vk::Format::B8G8R8A8_UNORM, vk::Format::B8G8R8A8_SRGB]
        .iter()
        .find_map(|want| formats.iter().find(|f| f.format == *want))
        .ok_or_else(|| DisplayError::NoFormat(formats.iter().map(|f| f.format).collect()))?;
    let extent = if caps.current_extent.width == u32::MAX {
        vk::Extent2D {
            width: mode.width,
            height: mode.height,
        }
    } else {
        caps.current_extent
    };
    let mut image_count = caps.min_image_count.max(3);
    if caps.max_image_count != 0 {
        image_count = image_count.min(caps.max_image_count);
    }
    Ok(SwapchainConfig {
        format: format.format,
        color_space: format.color_space,
        extent,
        image_count,
    })
}

/// Creates the swapchain for `surface`.
///
/// # Safety
/// `loader` must belong to a live device that can present to `surface`.
pub unsafe fn create_swapchain(
    loader: &ash::khr::swapchain::Device,
    surface: vk::SurfaceKHR,
    config: &SwapchainConfig,
    usage: vk::ImageUsageFlags,
) -> Result<vk::SwapchainKHR, DisplayError> {
    let info = vk::SwapchainCreateInfoKHR::default()
        .surface(surface)
        .min_image_count(config.image_count)
        .image_format(config.format)
        .image_color_space(config.color_space)
        .image_extent(config.extent)
        .image_array_layers(1)
        .image_usage(usage)
        .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
        .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
        .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
        .present_mode(vk::PresentModeKHR::FIFO)
        .clipped(true);
    // SAFETY: valid create info for the caller's live device.
    unsafe { loader.create_swapchain(&info, None) }.map_err(vk_err("vkCreateSwapchainKHR"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODE: DisplayMode = DisplayMode {
        width: 3840,
        height: 2160,
        refresh_mhz: 119_880,
    };

    fn caps(min: u32, max: u32, w: u32) -> vk::SurfaceCapabilitiesKHR {
        vk::SurfaceCapabilitiesKHR {
            min_image_count: min,
            max_image_count: max,
            current_extent: vk::Extent2D {
                width: w,
                height: if w == u32::MAX { w } else { 2160 },
            },
            ..Default::default()
        }
    }

    fn fmt(f: vk::Format) -> vk::SurfaceFormatKHR {
        vk::SurfaceFormatKHR {
            format: f,
            color_space: vk::ColorSpaceKHR::SRGB_NONLINEAR,
        }
    }

    #[test]
    fn ps5vk_like_surface() {
        let c = swapchain_config(
            &caps(2, 3, 3840),
            &[fmt(vk::Format::B8G8R8A8_UNORM)],
            &[vk::PresentModeKHR::FIFO],
            MODE,
        )
        .unwrap();
        assert_eq!(c.format, vk::Format::B8G8R8A8_UNORM);
        assert_eq!(c.image_count, 3);
        assert_eq!(
            c.extent,
            vk::Extent2D {
                width: 3840,
                height: 2160
            }
        );
    }

    #[test]
    fn radv_like_surface() {
        let c = swapchain_config(
            &caps(4, 0, u32::MAX),
            &[
                fmt(vk::Format::B8G8R8A8_SRGB),
                fmt(vk::Format::B8G8R8A8_UNORM),
            ],
            &[vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::FIFO],
            MODE,
        )
        .unwrap();
        assert_eq!(c.format, vk::Format::B8G8R8A8_UNORM, "UNORM preferred");
        assert_eq!(c.image_count, 4);
        assert_eq!(
            c.extent,
            vk::Extent2D {
                width: 3840,
                height: 2160
            },
            "the mode's size"
        );
    }

    #[test]
    fn refuses_without_fifo_or_format() {
        let e = swapchain_config(
            &caps(2, 3, 3840),
            &[fmt(vk::Format::B8G8R8A8_UNORM)],
            &[],
            MODE,
        );
        assert_eq!(e, Err(DisplayError::NoFifo));
        let e = swapchain_config(
            &caps(2, 3, 3840),
            &[fmt(vk::Format::R8G8B8A8_UNORM)],
            &[vk::PresentModeKHR::FIFO],
            MODE,
        );
        assert_eq!(
            e,
            Err(DisplayError::NoFormat(vec![vk::Format::R8G8B8A8_UNORM]))
        );
        assert!(e.unwrap_err().to_string().contains("R8G8B8A8_UNORM"));
    }
}
