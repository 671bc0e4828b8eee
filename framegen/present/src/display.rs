//! The display the present loop presents to: one trait for host-sim's
//! simulated VideoOut and the console's VK_KHR_display swapchain.
//!
//! What both have (`shared/FACTS.md`): one display, FIFO only (each present
//! shown for at least one refresh, in order), 119.88 Hz or 59.94 Hz modes
//! (119.88 only when the title's param.json declares high frame rates), 3
//! (ps5vk) or 4 (RADV) swapchain images, an acquire that waits when every
//! image is queued or on screen. The trait adds what the present loop needs
//! to know: how long each acquire waited (the pacer's drain), and when each
//! present went on screen (for the flagged dumps).

use ash::vk;

/// A display mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Refresh rate in millihertz (119880 for 119.88 Hz), as
    /// `VkDisplayModeParametersKHR::refreshRate` gives it.
    pub refresh_mhz: u32,
}

/// VideoOut's measured refresh period at 119.88 Hz, seconds (FACTS.md).
pub const PERIOD_119_88_S: f64 = 8.3416e-3;
/// VideoOut's measured refresh period at 59.94 Hz, seconds (FACTS.md).
pub const PERIOD_59_94_S: f64 = 16.6831e-3;

impl Mode {
    /// The refresh rate in hertz.
    pub fn hz(&self) -> f64 {
        f64::from(self.refresh_mhz) / 1000.0
    }

    /// The refresh period: VideoOut's measured one at 119.88 and 59.94 Hz,
    /// `1 / hz` otherwise.
    pub fn period_s(&self) -> f64 {
        match self.refresh_mhz {
            119_880 => PERIOD_119_88_S,
            59_940 => PERIOD_59_94_S,
            m => 1000.0 / f64::from(m.max(1)),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}@{:.2}", self.width, self.height, self.hz())
    }
}

/// What a display is.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayInfo {
    /// What it is, in words ("simulated VideoOut (radv)", "VK_KHR_display").
    pub name: String,
    /// The mode presented in.
    pub mode: Mode,
    /// The modes the display offered, in its order.
    pub offered: Vec<Mode>,
    /// Swapchain images.
    pub images: u32,
    /// Their format (`B8G8R8A8_UNORM` on the console).
    pub format: vk::Format,
    /// The layout the images must be in when presented
    /// (`PRESENT_SRC_KHR` for a real swapchain).
    pub present_layout: vk::ImageLayout,
}

/// An acquired swapchain image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Acquired {
    /// The image's index in [`Display::images`].
    pub image: u32,
    /// How long the acquire waited for an image, seconds (measured: the
    /// pacer's drain reads it).
    pub waited_s: f64,
    /// The semaphore the commands writing the image must wait on (null:
    /// none).
    pub wait: vk::Semaphore,
    /// The semaphore those commands must signal; the present waits on it
    /// (null: none).
    pub signal: vk::Semaphore,
}

/// What a present shows, as the present loop tags it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresentTag {
    /// The present's number, from 0.
    pub present: u64,
    /// The picture's number: consecutive presents of one picture (a
    /// generated frame shown twice) share it.
    pub picture: u64,
}

/// A present that went on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latched {
    /// Its tag.
    pub tag: PresentTag,
    /// The refresh it went on screen at (from 0).
    pub refresh: u64,
    /// When that refresh began, display clock seconds.
    pub at_s: f64,
}

/// Why the display failed.
#[derive(Debug, thiserror::Error)]
pub enum DisplayError {
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The call.
        call: &'static str,
        /// Its result.
        result: vk::Result,
    },
    /// The display's own rules were broken (a caller bug, or a lost device).
    #[error("display: {0}")]
    Other(String),
}

/// A FIFO display with its swapchain and its clock.
///
/// The present loop calls, per present: [`Display::acquire`], records and
/// submits its commands writing [`Display::images`]`[image]` (waiting on
/// `wait`, signalling `signal`), then [`Display::present`]. It learns which
/// present went on screen when from [`Display::take_latched`].
pub trait Display {
    /// What the display is.
    fn info(&self) -> DisplayInfo;

    /// The swapchain images (usable as transfer destination and source).
    fn images(&self) -> &[vk::Image];

    /// The display's clock, seconds: virtual time for a simulated display
    /// in virtual-time mode, real time otherwise.
    fn now_s(&self) -> f64;

    /// Waits until the clock reads `t_s` (sleeps in real time, moves the
    /// clock in virtual time); refreshes due meanwhile happen.
    fn wait_until(&mut self, t_s: f64);

    /// Acquires an image, waiting while every image is queued or on screen.
    fn acquire(&mut self) -> Result<Acquired, DisplayError>;

    /// Presents an acquired image, after the commands that wrote it were
    /// submitted.
    fn present(&mut self, image: u32, tag: PresentTag) -> Result<(), DisplayError>;

    /// Moves the presents that went on screen since the last call to `out`,
    /// in order.
    fn take_latched(&mut self, out: &mut Vec<Latched>);

    /// Refreshes run so far.
    fn refreshes(&self) -> u64;

    /// Waits until every present made has gone on screen (the end of a run).
    fn flush(&mut self) -> Result<(), DisplayError>;
}
