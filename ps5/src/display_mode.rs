//! Choosing the display mode and the VideoOut output mode.
//!
//! The console's Vulkan drivers present through VK_KHR_display on one
//! 3840×2160 display whose modes are 119.88 Hz (listed only when the running
//! title's param.json declares high frame rates) and 59.94 Hz (FACTS.md).
//! The payload takes 3840×2160 at 119.88 Hz when it is offered and the title
//! declares it, else 3840×2160 at 59.94 Hz.

use core::fmt;

/// One display mode as VK_KHR_display describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisplayMode {
    /// Visible width in pixels.
    pub width: u32,
    /// Visible height in pixels.
    pub height: u32,
    /// Refresh rate in millihertz (`VkDisplayModeParametersKHR::refreshRate`:
    /// 119880 for 119.88 Hz).
    pub refresh_mhz: u32,
}

impl DisplayMode {
    /// The refresh rate in hertz.
    pub fn hz(&self) -> f64 {
        f64::from(self.refresh_mhz) / 1000.0
    }

    /// The refresh class: 120 for 119.88/120 Hz, 60 for 59.94/60 Hz, else `None`.
    pub fn class(&self) -> Option<u32> {
        match self.refresh_mhz {
            119_000..=120_500 => Some(120),
            59_000..=60_500 => Some(60),
            _ => None,
        }
    }
}

impl fmt::Display for DisplayMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}@{:.2}Hz", self.width, self.height, self.hz())
    }
}

/// The width of the console's display mode.
pub const UHD_WIDTH: u32 = 3840;
/// The height of the console's display mode.
pub const UHD_HEIGHT: u32 = 2160;

/// Why no mode was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoUsableMode {
    /// The modes the driver offered.
    pub offered: Vec<DisplayMode>,
}

impl fmt::Display for NoUsableMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the display offers no 59.94 or 119.88 Hz mode; it offers:")?;
        if self.offered.is_empty() {
            f.write_str(" nothing")?;
        }
        for m in &self.offered {
            write!(f, " {m}")?;
        }
        Ok(())
    }
}

impl std::error::Error for NoUsableMode {}

/// Chooses among `offered`: 3840×2160 at 119.88 Hz when `allow_120` (the
/// title declares it) and it is offered, else 3840×2160 at 59.94 Hz; where
/// the display has no 3840×2160 mode, the largest one of the same rates.
/// Returns the index into `offered`.
pub fn choose_mode(offered: &[DisplayMode], allow_120: bool) -> Result<usize, NoUsableMode> {
    let area = |m: &DisplayMode| u64::from(m.width) * u64::from(m.height);
    let best_of = |class: u32| {
        offered
            .iter()
            .enumerate()
            .filter(|(_, m)| m.class() == Some(class))
            // 3840x2160 first, then the largest, then the rate nearest to NTSC's.
            .max_by_key(|(_, m)| {
                let uhd = m.width == UHD_WIDTH && m.height == UHD_HEIGHT;
                let ntsc = if class == 120 { 119_880 } else { 59_940 };
                (
                    uhd,
                    area(m),
                    core::cmp::Reverse(m.refresh_mhz.abs_diff(ntsc)),
                )
            })
            .map(|(i, _)| i)
    };
    let chosen = if allow_120 {
        best_of(120).or_else(|| best_of(60))
    } else {
        best_of(60)
    };
    chosen.ok_or_else(|| NoUsableMode {
        offered: offered.to_vec(),
    })
}

/// VideoOut output mode 1: the default (59.94 Hz); restored before exit
/// because the mode outlives the process.
pub const OUTPUT_MODE_DEFAULT: u64 = 1;
/// VideoOut output mode 15: 119.88 Hz.
pub const OUTPUT_MODE_120HZ: u64 = 15;

/// VideoOut refresh-rate ids (FACTS.md) and their rates in hertz.
pub fn refresh_rate_hz(id: u32) -> Option<f64> {
    match id {
        3 => Some(59.94),
        13 => Some(119.88),
        35 => Some(89.91),
        _ => None,
    }
}

/// The measured vblank period at a refresh class, in milliseconds (FACTS.md).
pub fn vblank_period_ms(class: u32) -> Option<f64> {
    match class {
        60 => Some(16.6831),
        120 => Some(8.3416),
        _ => None,
    }
}

/// What to do with the VideoOut output mode before presenting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputPlan {
    /// Configure output mode 15 (119.88 Hz), then set the flip rate to 0.
    Configure120,
    /// Leave the output mode alone (59.94 Hz), set the flip rate to 0.
    Keep60,
}

/// Decides the output mode: 120 Hz only when the title declares it and
/// `sceVideoOutIsOutputSupported(handle, 15)` answered > 0.
pub fn output_plan(title_declares_120: bool, is_output_supported: i32) -> OutputPlan {
    if title_declares_120 && is_output_supported > 0 {
        OutputPlan::Configure120
    } else {
        OutputPlan::Keep60
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M120: DisplayMode = DisplayMode {
        width: 3840,
        height: 2160,
        refresh_mhz: 119_880,
    };
    const M60: DisplayMode = DisplayMode {
        width: 3840,
        height: 2160,
        refresh_mhz: 59_940,
    };

    #[test]
    fn prefers_120_when_declared_and_offered() {
        // The driver lists 119.88 first (FACTS.md); order must not matter.
        assert_eq!(choose_mode(&[M120, M60], true), Ok(0));
        assert_eq!(choose_mode(&[M60, M120], true), Ok(1));
    }

    #[test]
    fn never_120_when_not_declared() {
        assert_eq!(choose_mode(&[M120, M60], false), Ok(1));
        assert!(choose_mode(&[M120], false).is_err());
    }

    #[test]
    fn falls_back_to_60() {
        assert_eq!(choose_mode(&[M60], true), Ok(0));
    }

    #[test]
    fn prefers_uhd_then_largest() {
        let hd60 = DisplayMode {
            width: 1920,
            height: 1080,
            refresh_mhz: 60_000,
        };
        let hd120 = DisplayMode {
            width: 1920,
            height: 1080,
            refresh_mhz: 120_000,
        };
        assert_eq!(choose_mode(&[hd60, M60], false), Ok(1));
        assert_eq!(
            choose_mode(&[hd120, M60], true),
            Ok(0),
            "120 Hz wins over resolution"
        );
        let qhd = DisplayMode {
            width: 2560,
            height: 1440,
            refresh_mhz: 59_940,
        };
        assert_eq!(choose_mode(&[hd60, qhd], false), Ok(1));
        // 59.94 preferred to 60.00 at the same size.
        let m6000 = DisplayMode {
            refresh_mhz: 60_000,
            ..M60
        };
        assert_eq!(choose_mode(&[m6000, M60], false), Ok(1));
    }

    #[test]
    fn error_lists_offered_modes() {
        let odd = DisplayMode {
            width: 3840,
            height: 2160,
            refresh_mhz: 50_000,
        };
        let e = choose_mode(&[odd], true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the display offers no 59.94 or 119.88 Hz mode; it offers: 3840x2160@50.00Hz"
        );
        assert!(
            choose_mode(&[], true)
                .unwrap_err()
                .to_string()
                .ends_with("nothing")
        );
    }

    #[test]
    fn output_plans() {
        assert_eq!(output_plan(true, 1), OutputPlan::Configure120);
        assert_eq!(output_plan(true, 0), OutputPlan::Keep60);
        assert_eq!(output_plan(true, -2_144_796_650), OutputPlan::Keep60);
        assert_eq!(output_plan(false, 1), OutputPlan::Keep60);
        assert_eq!(refresh_rate_hz(13), Some(119.88));
        assert_eq!(vblank_period_ms(120), Some(8.3416));
    }
}
