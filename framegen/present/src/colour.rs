//! The game's picture as it is shown: where it goes on the display (scaled,
//! keeping its aspect ratio, black borders) and its video-out colour
//! processing (gamma, limited RGB range).
//!
//! The GPU does this in `shaders/present.comp`; [`process_cpu`] is the same
//! math on the CPU, the reference the tests compare the shader against.

/// The game's video-out colour settings (a PS3 game's `cellVideoOutSetGamma`
/// and RGB output range).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VideoOutSettings {
    /// Gamma: each channel becomes `c ^ gamma` (1.0: unchanged; PS3 games
    /// use 0.8 to 1.2; GTA IV sets 1.2).
    pub gamma: f32,
    /// Limited RGB range: `[0, 1]` maps to `[16, 235] / 255`.
    pub limited_range: bool,
}

impl Default for VideoOutSettings {
    fn default() -> Self {
        VideoOutSettings {
            gamma: 1.0,
            limited_range: false,
        }
    }
}

/// Where the picture goes on the display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// The largest rectangle of the picture's aspect ratio that fits the
/// display, centred (black borders left and right, or above and below).
pub fn fit(src_w: u32, src_h: u32, dst_w: u32, dst_h: u32) -> Viewport {
    let (sw, sh, dw, dh) = (
        u64::from(src_w.max(1)),
        u64::from(src_h.max(1)),
        u64::from(dst_w),
        u64::from(dst_h),
    );
    let (w, h) = if sw * dh > dw * sh {
        // Wider than the display: full width, borders above and below.
        (dw, ((dw * sh * 2 + sw) / (sw * 2)).min(dh))
    } else {
        (((dh * sw * 2 + sh) / (sh * 2)).min(dw), dh)
    };
    Viewport {
        x: ((dw - w) / 2) as u32,
        y: ((dh - h) / 2) as u32,
        width: w as u32,
        height: h as u32,
    }
}

/// Push constants of `present.comp` (std430 layout, 40 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PushConstants {
    /// Display picture size.
    pub dst_size: [i32; 2],
    /// Viewport offset.
    pub vp_offset: [i32; 2],
    /// Viewport size.
    pub vp_size: [i32; 2],
    /// Game picture size.
    pub src_size: [i32; 2],
    /// Gamma.
    pub gamma: f32,
    /// Bit 0: limited range.
    pub flags: u32,
}

impl PushConstants {
    /// The constants for a `src_w` x `src_h` picture on a `dst_w` x `dst_h`
    /// display with `settings`.
    pub fn new(src_w: u32, src_h: u32, dst_w: u32, dst_h: u32, settings: VideoOutSettings) -> Self {
        let vp = fit(src_w, src_h, dst_w, dst_h);
        PushConstants {
            dst_size: [dst_w as i32, dst_h as i32],
            vp_offset: [vp.x as i32, vp.y as i32],
            vp_size: [vp.width as i32, vp.height as i32],
            src_size: [src_w as i32, src_h as i32],
            gamma: settings.gamma,
            flags: u32::from(settings.limited_range),
        }
    }

    /// The bytes, as pushed.
    pub fn bytes(&self) -> [u8; 40] {
        let mut b = [0u8; 40];
        let words = [
            self.dst_size[0] as u32,
            self.dst_size[1] as u32,
            self.vp_offset[0] as u32,
            self.vp_offset[1] as u32,
            self.vp_size[0] as u32,
            self.vp_size[1] as u32,
            self.src_size[0] as u32,
            self.src_size[1] as u32,
            self.gamma.to_bits(),
            self.flags,
        ];
        for (i, w) in words.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }
}

fn unorm(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8
}

/// The reference: `present.comp`'s math on the CPU. `src` is RGBA8
/// (`src_w` x `src_h`); returns the `dst_w` x `dst_h` RGBA8 picture.
pub fn process_cpu(
    src: &[u8],
    src_w: u32,
    src_h: u32,
    dst_w: u32,
    dst_h: u32,
    settings: VideoOutSettings,
) -> Vec<u8> {
    let p = PushConstants::new(src_w, src_h, dst_w, dst_h, settings);
    let mut out = vec![0u8; dst_w as usize * dst_h as usize * 4];
    let fetch = |x: i32, y: i32| -> [f32; 3] {
        let i = (y as usize * src_w as usize + x as usize) * 4;
        [
            f32::from(src[i]) / 255.0,
            f32::from(src[i + 1]) / 255.0,
            f32::from(src[i + 2]) / 255.0,
        ]
    };
    let scale = [
        p.src_size[0] as f32 / p.vp_size[0] as f32,
        p.src_size[1] as f32 / p.vp_size[1] as f32,
    ];
    for dy in 0..dst_h as i32 {
        for dx in 0..dst_w as i32 {
            let rel = [dx - p.vp_offset[0], dy - p.vp_offset[1]];
            let mut c = [0.0f32; 3];
            if rel[0] >= 0 && rel[1] >= 0 && rel[0] < p.vp_size[0] && rel[1] < p.vp_size[1] {
                let s = [
                    ((rel[0] as f32 + 0.5) * scale[0] - 0.5).clamp(0.0, (p.src_size[0] - 1) as f32),
                    ((rel[1] as f32 + 0.5) * scale[1] - 0.5).clamp(0.0, (p.src_size[1] - 1) as f32),
                ];
                let i0 = [s[0].floor() as i32, s[1].floor() as i32];
                let i1 = [
                    (i0[0] + 1).min(p.src_size[0] - 1),
                    (i0[1] + 1).min(p.src_size[1] - 1),
                ];
                let f = [s[0] - i0[0] as f32, s[1] - i0[1] as f32];
                let (a, b, e, g) = (
                    fetch(i0[0], i0[1]),
                    fetch(i1[0], i0[1]),
                    fetch(i0[0], i1[1]),
                    fetch(i1[0], i1[1]),
                );
                for k in 0..3 {
                    let top = a[k] + (b[k] - a[k]) * f[0];
                    let bottom = e[k] + (g[k] - e[k]) * f[0];
                    c[k] = top + (bottom - top) * f[1];
                    if p.gamma != 1.0 {
                        c[k] = c[k].powf(p.gamma);
                    }
                }
            }
            if p.flags & 1 != 0 {
                for v in &mut c {
                    *v = (*v * 219.0 + 16.0) / 255.0;
                }
            }
            let o = (dy as usize * dst_w as usize + dx as usize) * 4;
            out[o] = unorm(c[0]);
            out[o + 1] = unorm(c[1]);
            out[o + 2] = unorm(c[2]);
            out[o + 3] = 255;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_letterboxes_and_pillarboxes() {
        // 16:9 on 16:9: the whole display.
        assert_eq!(
            fit(1280, 720, 3840, 2160),
            Viewport {
                x: 0,
                y: 0,
                width: 3840,
                height: 2160
            }
        );
        // 4:3 on 16:9: pillarbox.
        assert_eq!(
            fit(640, 480, 960, 540),
            Viewport {
                x: 120,
                y: 0,
                width: 720,
                height: 540
            }
        );
        // 21:9-ish on 16:9: letterbox.
        assert_eq!(
            fit(1260, 540, 960, 540),
            Viewport {
                x: 0,
                y: 64,
                width: 960,
                height: 411
            }
        );
    }

    #[test]
    fn reference_borders_gamma_and_range() {
        // A 2x2 grey picture (128) on a 4x2 display: pillarboxed to 2x2 in the middle.
        let src = [128u8, 128, 128, 255].repeat(4);
        let out = process_cpu(&src, 2, 2, 4, 2, VideoOutSettings::default());
        assert_eq!(&out[0..4], &[0, 0, 0, 255], "border");
        assert_eq!(&out[4..8], &[128, 128, 128, 255]);
        let g = process_cpu(
            &src,
            2,
            2,
            4,
            2,
            VideoOutSettings {
                gamma: 1.2,
                limited_range: false,
            },
        );
        // (128/255)^1.2 * 255 = 111.6
        assert_eq!(g[4], 112);
        let l = process_cpu(
            &src,
            2,
            2,
            4,
            2,
            VideoOutSettings {
                gamma: 1.0,
                limited_range: true,
            },
        );
        assert_eq!(
            &l[0..3],
            &[16, 16, 16],
            "black is 16 in limited range, borders too"
        );
        // 128/255 * 219 + 16 = 125.9
        assert_eq!(l[4], 126);
    }

    #[test]
    fn push_constants_are_40_bytes_in_order() {
        let p = PushConstants::new(
            640,
            480,
            960,
            540,
            VideoOutSettings {
                gamma: 1.2,
                limited_range: true,
            },
        );
        let b = p.bytes();
        assert_eq!(&b[0..4], &960u32.to_le_bytes());
        assert_eq!(&b[8..12], &120u32.to_le_bytes());
        assert_eq!(&b[32..36], &1.2f32.to_bits().to_le_bytes());
        assert_eq!(&b[36..40], &1u32.to_le_bytes());
        assert_eq!(size_of::<PushConstants>(), 40);
    }
}
