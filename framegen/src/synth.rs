//! Procedural moving pictures, rendered on the CPU, for the tests and the
//! quality benchmark: a textured plane under a known motion (translation,
//! rotation, zoom) and a scene of objects moving over a panning background
//! with a static HUD. The texture is a continuous function of position, so a
//! frame at any time and under any transform is rendered exactly (no
//! resampling), and the frames in between are the ground truth.

/// Hashes a lattice point to 0..1.
fn hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x8da6_b343)
        ^ (y as u32).wrapping_mul(0xd816_3841)
        ^ seed.wrapping_mul(0xcb1a_b31f);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5bd1_e995);
    h ^= h >> 15;
    (h & 0xffff) as f32 / 65535.0
}

/// Smooth value noise at lattice spacing 1.
fn noise(x: f32, y: f32, seed: u32) -> f32 {
    let (xf, yf) = (x.floor(), y.floor());
    let (xi, yi) = (xf as i32, yf as i32);
    let (fx, fy) = (x - xf, y - yf);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (s(fx), s(fy));
    let a = hash(xi, yi, seed);
    let b = hash(xi + 1, yi, seed);
    let c = hash(xi, yi + 1, seed);
    let d = hash(xi + 1, yi + 1, seed);
    let top = a + (b - a) * sx;
    let bot = c + (d - c) * sx;
    top + (bot - top) * sy
}

/// A colourful texture with detail at several scales and some hard edges,
/// as a continuous function of the position (pixels), 0..1 per channel.
pub fn texture(x: f32, y: f32, seed: u32) -> [f32; 3] {
    let mut out = [0.0f32; 3];
    for (c, o) in out.iter_mut().enumerate() {
        let s = seed.wrapping_mul(3).wrapping_add(c as u32);
        let mut v = 0.0;
        let mut amp = 0.5;
        let mut freq = 1.0 / 24.0;
        for oct in 0..4 {
            v += amp * noise(x * freq, y * freq, s.wrapping_add(oct * 17));
            amp *= 0.5;
            freq *= 2.0;
        }
        // Hard-edged cells: a second, coarse noise thresholded.
        let cell = noise(x / 40.0, y / 40.0, s ^ 0x55) > 0.55;
        *o = (v * 1.1 + if cell { 0.25 } else { 0.0 } - 0.1).clamp(0.0, 1.0);
    }
    out
}

fn to8(v: f32) -> u8 {
    (v * 255.0 + 0.5).clamp(0.0, 255.0) as u8
}

/// A 2D affine motion of the plane about the picture centre: a point at `p`
/// in frame A is at `centre + zoom * R(angle) * (p - centre) + shift` in B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    /// Translation in pixels.
    pub shift: [f32; 2],
    /// Rotation in radians.
    pub angle: f32,
    /// Scale factor.
    pub zoom: f32,
}

impl Motion {
    /// A pure translation.
    pub fn shift(dx: f32, dy: f32) -> Motion {
        Motion {
            shift: [dx, dy],
            angle: 0.0,
            zoom: 1.0,
        }
    }

    /// This motion taken a fraction `t` of the way (0: none, 1: all).
    pub fn at(&self, t: f32) -> Motion {
        Motion {
            shift: [self.shift[0] * t, self.shift[1] * t],
            angle: self.angle * t,
            zoom: self.zoom.powf(t),
        }
    }

    /// Where a point of frame A is after the motion.
    pub fn apply(&self, p: [f32; 2], centre: [f32; 2]) -> [f32; 2] {
        let (s, c) = self.angle.sin_cos();
        let (x, y) = (p[0] - centre[0], p[1] - centre[1]);
        [
            centre[0] + self.zoom * (c * x - s * y) + self.shift[0],
            centre[1] + self.zoom * (s * x + c * y) + self.shift[1],
        ]
    }

    /// Where the point that is at `q` after the motion was before it.
    pub fn invert(&self, q: [f32; 2], centre: [f32; 2]) -> [f32; 2] {
        let (s, c) = self.angle.sin_cos();
        let (x, y) = (
            q[0] - self.shift[0] - centre[0],
            q[1] - self.shift[1] - centre[1],
        );
        [
            centre[0] + (c * x + s * y) / self.zoom,
            centre[1] + (-s * x + c * y) / self.zoom,
        ]
    }
}

/// Renders rows of a picture in parallel: `pixel(x, y)` gives RGB 0..1.
fn render_rows(width: u32, height: u32, pixel: &(dyn Fn(u32, u32) -> [f32; 3] + Sync)) -> Vec<u8> {
    let mut out = vec![0u8; (width * height * 4) as usize];
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16);
    let rows_per = (height as usize).div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (i, chunk) in out.chunks_mut(rows_per * width as usize * 4).enumerate() {
            s.spawn(move || {
                for (j, px) in chunk.chunks_exact_mut(4).enumerate() {
                    let idx = i * rows_per * width as usize + j;
                    let (x, y) = ((idx % width as usize) as u32, (idx / width as usize) as u32);
                    let c = pixel(x, y);
                    px.copy_from_slice(&[to8(c[0]), to8(c[1]), to8(c[2]), 255]);
                }
            });
        }
    });
    out
}

const SAMPLES: [(f32, f32); 4] = [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)];

/// Renders the textured plane after `motion`, RGBA8, 2x2 supersampled.
pub fn render_plane(width: u32, height: u32, motion: &Motion, seed: u32) -> Vec<u8> {
    let centre = [width as f32 / 2.0, height as f32 / 2.0];
    render_rows(width, height, &|x, y| {
        let mut acc = [0.0f32; 3];
        for (sx, sy) in SAMPLES {
            let p = motion.invert([x as f32 + sx, y as f32 + sy], centre);
            let c = texture(p[0], p[1], seed);
            for k in 0..3 {
                acc[k] += c[k] * 0.25;
            }
        }
        acc
    })
}

/// The benchmark's scene at time `t` (in frames): a background panning
/// diagonally, three textured discs and a rectangle moving on their own
/// paths over it (covering and revealing it), and a static HUD (bars and
/// blocky digits) in the top-left corner. RGBA8, 2x2 supersampled.
pub fn render_scene(width: u32, height: u32, t: f32, seed: u32) -> Vec<u8> {
    let (w, h) = (width as f32, height as f32);
    let s = w.min(h);
    // (centre x, centre y, radius, velocity x, velocity y, texture seed)
    let discs = [
        (0.3 * w, 0.55 * h, 0.16 * s, 3.5, 1.2, seed + 11),
        (0.7 * w, 0.35 * h, 0.12 * s, -4.5, 2.0, seed + 12),
        (0.55 * w, 0.75 * h, 0.10 * s, 2.0, -3.0, seed + 13),
    ];
    let rect = (
        0.15 * w,
        0.2 * h,
        0.22 * s,
        0.12 * s,
        6.0f32,
        0.5f32,
        seed + 14,
    );
    render_rows(width, height, &|x, y| {
        let mut acc = [0.0f32; 3];
        for (sx, sy) in SAMPLES {
            let (px, py) = (x as f32 + sx, y as f32 + sy);
            let mut c = texture(px - 2.5 * t, py - 1.0 * t, seed);
            let (rx, ry, rw, rh, vx, vy, rs) = rect;
            let (ox, oy) = (rx + vx * t, ry + vy * t);
            if px >= ox && px < ox + rw && py >= oy && py < oy + rh {
                c = texture(px - ox, py - oy, rs);
            }
            for &(cx, cy, r, vx, vy, ds) in &discs {
                let (dx, dy) = (px - (cx + vx * t), py - (cy + vy * t));
                if dx * dx + dy * dy < r * r {
                    c = texture(dx + 100.0, dy + 100.0, ds);
                }
            }
            if let Some(v) = hud(px, py, s) {
                c = [v, v, v];
            }
            for k in 0..3 {
                acc[k] += c[k] * 0.25;
            }
        }
        acc
    })
}

/// A static HUD: a white frame with blocky digit-like strokes, at the top left.
fn hud(px: f32, py: f32, s: f32) -> Option<f32> {
    let u = s / 100.0;
    let (x0, y0, x1, y1) = (2.0 * u, 2.0 * u, 34.0 * u, 12.0 * u);
    if px < x0 || py < y0 || px >= x1 || py >= y1 {
        return None;
    }
    let border = px < x0 + u || py < y0 + u || px >= x1 - u || py >= y1 - u;
    if border {
        return Some(1.0);
    }
    // Strokes: a pattern of thin bars, like text.
    let cx = ((px - x0) / u) as i32;
    let cy = ((py - y0) / u) as i32;
    let on =
        (cx % 4 == 2 && cy > 2 && cy < 8) || (cy == 3 && cx % 8 < 3) || (cy == 7 && cx % 6 < 4);
    Some(if on { 0.95 } else { 0.05 })
}

/// Peak signal-to-noise ratio of two RGBA8 pictures over R, G and B, in dB.
pub fn psnr(a: &[u8], b: &[u8]) -> f64 {
    let mut se = 0.0f64;
    let mut n = 0usize;
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for k in 0..3 {
            let d = f64::from(pa[k]) - f64::from(pb[k]);
            se += d * d;
            n += 1;
        }
    }
    let mse = se / n.max(1) as f64;
    if mse == 0.0 {
        99.0
    } else {
        10.0 * (255.0 * 255.0 / mse).log10()
    }
}

/// Structural similarity of two RGBA8 pictures, on luma (BT.601), with the
/// usual 11x11 Gaussian window (sigma 1.5), K1 = 0.01, K2 = 0.03.
pub fn ssim(a: &[u8], b: &[u8], width: u32, height: u32) -> f64 {
    let (w, h) = (width as usize, height as usize);
    let luma = |p: &[u8]| -> Vec<f64> {
        p.chunks_exact(4)
            .map(|c| 0.299 * f64::from(c[0]) + 0.587 * f64::from(c[1]) + 0.114 * f64::from(c[2]))
            .collect()
    };
    let (x, y) = (luma(a), luma(b));
    let g: Vec<f64> = (-5i32..=5)
        .map(|i| (-(f64::from(i * i)) / (2.0 * 1.5 * 1.5)).exp())
        .collect();
    let gs: f64 = g.iter().sum();
    let g: Vec<f64> = g.iter().map(|v| v / gs).collect();
    // Separable blur of a field, valid region only.
    let blur = |f: &dyn Fn(usize) -> f64| -> Vec<f64> {
        let mut tmp = vec![0.0; w * h];
        for yy in 0..h {
            for xx in 5..w.saturating_sub(5) {
                let mut s = 0.0;
                for (k, gk) in g.iter().enumerate() {
                    s += gk * f(yy * w + xx + k - 5);
                }
                tmp[yy * w + xx] = s;
            }
        }
        let mut out = vec![0.0; w * h];
        for yy in 5..h.saturating_sub(5) {
            for xx in 5..w.saturating_sub(5) {
                let mut s = 0.0;
                for (k, gk) in g.iter().enumerate() {
                    s += gk * tmp[(yy + k - 5) * w + xx];
                }
                out[yy * w + xx] = s;
            }
        }
        out
    };
    let mx = blur(&|i| x[i]);
    let my = blur(&|i| y[i]);
    let sxx = blur(&|i| x[i] * x[i]);
    let syy = blur(&|i| y[i] * y[i]);
    let sxy = blur(&|i| x[i] * y[i]);
    let (c1, c2) = ((0.01f64 * 255.0).powi(2), (0.03f64 * 255.0).powi(2));
    let mut sum = 0.0;
    let mut n = 0usize;
    for yy in 5..h.saturating_sub(5) {
        for xx in 5..w.saturating_sub(5) {
            let i = yy * w + xx;
            let (ux, uy) = (mx[i], my[i]);
            let vx = sxx[i] - ux * ux;
            let vy = syy[i] - uy * uy;
            let cxy = sxy[i] - ux * uy;
            sum += ((2.0 * ux * uy + c1) * (2.0 * cxy + c2))
                / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
            n += 1;
        }
    }
    sum / n.max(1) as f64
}

/// The average of two RGBA8 pictures, rounded.
pub fn blend(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (u16::from(x) + u16::from(y)).div_ceil(2) as u8)
        .collect()
}
