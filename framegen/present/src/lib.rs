//! The present loop that host-sim and the PS5 build share.
//!
//! Per game frame ([`PresentLoop::present_frame`]): the pacer decides;
//! the game's picture is scaled to the display (bilinear, black borders for
//! another aspect ratio) and given the game's colour processing (gamma,
//! limited range) by one compute shader ([`scaler`]), whose output is both
//! the game's presented frame and, copied, the interpolator's
//! `frame_image()`; `record()`; the generated frames are presented as the
//! pacer says (the first acquire's wait goes to the drain), then the game's
//! frame; `advance()`. Every present gets the overlay (frame counter,
//! notifications). [`PresentLoop::hold_fps`] is the latency hold the game
//! loop applies. Each picture shown becomes a flagged dump record.
//!
//! The display is a [`Display`]: host-sim's simulated VideoOut or the
//! console's VK_KHR_display swapchain. No window-system code here.

pub mod colour;
pub mod display;
pub mod gpu;
pub mod overlay;
pub mod present_loop;
pub mod scaler;
pub mod status;

pub use colour::VideoOutSettings;
pub use display::{Acquired, Display, DisplayError, DisplayInfo, Latched, Mode, PresentTag};
pub use present_loop::{FrameReport, GameFrame, PresentConfig, PresentLoop, RunTotals};
pub use status::Status;

/// Why the present loop failed.
#[derive(Debug, thiserror::Error)]
pub enum PresentError {
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The call.
        call: &'static str,
        /// Its result.
        result: ash::vk::Result,
    },
    /// No memory type fits.
    #[error("no suitable Vulkan memory type for the {0}")]
    NoMemoryType(&'static str),
    /// The committed SPIR-V is unusable.
    #[error("shader: {0}")]
    Shader(String),
    /// The interpolator could not be created.
    #[error("frame generation: {0}")]
    FrameGen(framegen::CreateError),
    /// The display failed.
    #[error("{0}")]
    Display(DisplayError),
    /// The dump could not be written.
    #[error("frame dump: {0}")]
    Dump(framegen_dump::WriteError),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}
