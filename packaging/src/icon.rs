//! The title's icon, `sce_sys/icon0.png`, drawn from code: a Cell
//! Broadband Engine chip (the PPE and eight SPEs on a die, pins around it)
//! over a night-blue ground, the name CELLPORT, and "PS3 → PS5".
//!
//! `./x package icon` writes it; a test checks the committed file is what
//! this code makes. Every shape is sampled 4×4 per pixel with plain
//! `f64` arithmetic (no transcendental functions, whose last bits may vary
//! between platforms) and averaged with integer rounding; the PNG is
//! encoded with fixed settings, so the bytes are the same on every machine
//! with the same `png` crate (Cargo.lock pins it; a new version that
//! encodes differently makes the test fail, and `./x package icon`
//! regenerates the file).

use crate::ICON_SIZE;

const SIZE: usize = ICON_SIZE as usize;
/// Samples per pixel along each axis.
const SS: usize = 4;

type Rgb = [u8; 3];

const fn rgb(hex: u32) -> Rgb {
    [(hex >> 16) as u8, (hex >> 8) as u8, hex as u8]
}

/// A supersampled drawing surface, in icon pixel coordinates.
struct Canvas {
    w: usize,
    px: Vec<Rgb>,
}

impl Canvas {
    fn new() -> Canvas {
        let w = SIZE * SS;
        Canvas {
            w,
            px: vec![[0; 3]; w * w],
        }
    }

    /// Paints the samples inside `bbox` (x0, y0, x1, y1 in icon pixels)
    /// for which `inside` holds with `color` (which may vary with place).
    fn fill(
        &mut self,
        bbox: (f64, f64, f64, f64),
        inside: impl Fn(f64, f64) -> bool,
        color: impl Fn(f64, f64) -> Rgb,
    ) {
        let s = SS as f64;
        let to_sample = |v: f64| ((v * s).floor().max(0.0) as usize).min(self.w);
        let (x0, y0) = (to_sample(bbox.0), to_sample(bbox.1));
        let (x1, y1) = (to_sample(bbox.2 + 1.0 / s), to_sample(bbox.3 + 1.0 / s));
        for sy in y0..y1 {
            let y = (sy as f64 + 0.5) / s;
            for sx in x0..x1 {
                let x = (sx as f64 + 0.5) / s;
                if inside(x, y) {
                    self.px[sy * self.w + sx] = color(x, y);
                }
            }
        }
    }

    fn rounded_rect(
        &mut self,
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
        r: f64,
        color: impl Fn(f64, f64) -> Rgb,
    ) {
        let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
        let (hw, hh) = ((x1 - x0) / 2.0 - r, (y1 - y0) / 2.0 - r);
        self.fill(
            (x0, y0, x1, y1),
            |x, y| {
                let dx = ((x - cx).abs() - hw).max(0.0);
                let dy = ((y - cy).abs() - hh).max(0.0);
                dx * dx + dy * dy <= r * r
            },
            color,
        );
    }

    fn rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, color: Rgb) {
        self.fill(
            (x0, y0, x1, y1),
            |x, y| x >= x0 && x < x1 && y >= y0 && y < y1,
            |_, _| color,
        );
    }

    /// Averages each pixel's samples.
    fn downsample(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(SIZE * SIZE * 3);
        for py in 0..SIZE {
            for px in 0..SIZE {
                let mut sum = [0u32; 3];
                for sy in 0..SS {
                    for sx in 0..SS {
                        let p = self.px[(py * SS + sy) * self.w + px * SS + sx];
                        for c in 0..3 {
                            sum[c] += u32::from(p[c]);
                        }
                    }
                }
                let n = (SS * SS) as u32;
                out.extend(sum.map(|v| ((v + n / 2) / n) as u8));
            }
        }
        out
    }
}

/// Linear blend of `a` and `b` by `t` in 0..=1.
fn mix(a: Rgb, b: Rgb, t: f64) -> Rgb {
    let t = t.clamp(0.0, 1.0);
    let ch = |i: usize| (f64::from(a[i]) + (f64::from(b[i]) - f64::from(a[i])) * t).round() as u8;
    [ch(0), ch(1), ch(2)]
}

/// 5×7 glyphs, rows top to bottom, `#` set (`>` is drawn by [`arrow`]).
fn glyph(c: char) -> [&'static str; 7] {
    match c {
        'C' => [
            ".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.",
        ],
        'E' => [
            "#####", "#....", "#....", "####.", "#....", "#....", "#####",
        ],
        'L' => [
            "#....", "#....", "#....", "#....", "#....", "#....", "#####",
        ],
        'P' => [
            "####.", "#...#", "#...#", "####.", "#....", "#....", "#....",
        ],
        'O' => [
            ".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
        'R' => [
            "####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#",
        ],
        'T' => [
            "#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..",
        ],
        'S' => [
            ".####", "#....", "#....", ".###.", "....#", "....#", "####.",
        ],
        '3' => [
            "####.", "....#", "....#", ".###.", "....#", "....#", "####.",
        ],
        '5' => [
            "#####", "#....", "####.", "....#", "....#", "#...#", ".###.",
        ],
        '>' => [
            ".....", "..#..", "..##.", "#####", "..##.", "..#..", ".....",
        ],
        _ => ["....."; 7],
    }
}

/// Draws `text` in the 5×7 font, `scale` pixels per font pixel, centred
/// on `cx`, top at `y`; `color` per character index.
fn text(c: &mut Canvas, s: &str, cx: f64, y: f64, scale: f64, color: impl Fn(usize) -> Rgb) {
    let n = s.chars().count() as f64;
    let width = (n * 6.0 - 1.0) * scale;
    let x0 = cx - width / 2.0;
    for (i, ch) in s.chars().enumerate() {
        let gx = x0 + i as f64 * 6.0 * scale;
        if ch == '>' {
            arrow(c, gx, y, scale, color(i));
            continue;
        }
        for (row, bits) in glyph(ch).iter().enumerate() {
            for (col, b) in bits.bytes().enumerate() {
                if b == b'#' {
                    let (px, py) = (gx + col as f64 * scale, y + row as f64 * scale);
                    c.rect(px, py, px + scale, py + scale, color(i));
                }
            }
        }
    }
}

/// A right arrow in a 5×7 cell: a shaft and a triangular head.
fn arrow(c: &mut Canvas, gx: f64, y: f64, scale: f64, color: Rgb) {
    let cy = y + 3.5 * scale;
    c.rect(gx, cy - scale, gx + 2.6 * scale, cy + scale, color);
    let (hx0, hx1, half) = (gx + 2.0 * scale, gx + 5.0 * scale, 3.0 * scale);
    c.fill(
        (hx0, cy - half, hx1, cy + half),
        |x, yy| x >= hx0 && (yy - cy).abs() <= (hx1 - x) * half / (hx1 - hx0),
        |_, _| color,
    );
}

/// The icon's pixels: `ICON_SIZE`² RGB triples, rows top to bottom.
pub fn render() -> Vec<u8> {
    let mut c = Canvas::new();
    let s = SIZE as f64;

    // Ground: night blue, lighter towards a glow behind the chip.
    let (top, bottom, glow) = (rgb(0x12244f), rgb(0x050a1a), rgb(0x2f63d8));
    c.fill(
        (0.0, 0.0, s, s),
        |_, _| true,
        |x, y| {
            let base = mix(top, bottom, y / s);
            let (dx, dy) = (x - 256.0, y - 186.0);
            let d2 = (dx * dx + dy * dy) / (250.0 * 250.0);
            let g = (1.0 - d2).max(0.0);
            mix(base, glow, 0.45 * g * g)
        },
    );

    // Pins, nine a side, under the package's edge.
    let gold = |_: f64, y: f64| mix(rgb(0xf2c75c), rgb(0xb7862a), (y - 32.0) / 308.0);
    for i in 0..9 {
        let t = 74.0 + f64::from(i) * 24.0;
        c.rounded_rect(100.0, t, 132.0, t + 12.0, 3.0, gold); // left
        c.rounded_rect(380.0, t, 412.0, t + 12.0, 3.0, gold); // right
        c.rounded_rect(t + 70.0, 30.0, t + 82.0, 62.0, 3.0, gold); // top
        c.rounded_rect(t + 70.0, 310.0, t + 82.0, 342.0, 3.0, gold); // bottom
    }
    // Package: brushed silver.
    c.rounded_rect(124.0, 54.0, 388.0, 318.0, 20.0, |_, y| {
        mix(rgb(0xe6e9ef), rgb(0x9aa1ad), (y - 54.0) / 264.0)
    });
    // Die.
    c.rounded_rect(146.0, 76.0, 366.0, 296.0, 10.0, |_, _| rgb(0x161d2e));

    // The PPE (amber, with its L2 cache) on the left.
    c.rounded_rect(158.0, 88.0, 214.0, 284.0, 6.0, |_, y| {
        mix(rgb(0xffc548), rgb(0xd98a1c), (y - 88.0) / 196.0)
    });
    c.rounded_rect(166.0, 196.0, 206.0, 276.0, 4.0, |_, _| rgb(0xffe3a1));
    // The element interconnect bus between PPE and SPEs.
    c.rect(216.0, 88.0, 222.0, 284.0, rgb(0x56627d));
    // Eight SPEs (cyan, each with its local store), two columns of four.
    for col in 0..2 {
        for row in 0..4 {
            let x0 = 226.0 + f64::from(col) * 66.0;
            let y0 = 88.0 + f64::from(row) * 50.0;
            c.rounded_rect(x0, y0, x0 + 60.0, y0 + 46.0, 6.0, |_, y| {
                mix(rgb(0x63d8ff), rgb(0x1f93c4), (y - y0) / 46.0)
            });
            c.rounded_rect(x0 + 30.0, y0 + 8.0, x0 + 54.0, y0 + 38.0, 3.0, |_, _| {
                rgb(0xc9f1ff)
            });
        }
    }

    // CELLPORT, with a shadow.
    let name = "CELLPORT";
    text(&mut c, name, 259.0, 379.0, 7.0, |_| rgb(0x02040c));
    text(&mut c, name, 256.0, 376.0, 7.0, |_| rgb(0xffffff));
    // PS3 → PS5: the PS3 side in the SPE cyan, the arrow and PS5 white.
    let port = "PS3 > PS5";
    text(&mut c, port, 256.0, 448.0, 4.0, |i| {
        if i < 3 { rgb(0x63d8ff) } else { rgb(0xffffff) }
    });

    c.downsample()
}

/// Encodes RGB pixels of the icon's size as a PNG with fixed settings.
pub fn encode_png(pixels: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, ICON_SIZE, ICON_SIZE);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_deflate_compression(png::DeflateCompression::Level(9));
    enc.set_filter(png::Filter::Adaptive);
    let mut w = enc.write_header().expect("writing to a Vec cannot fail");
    w.write_image_data(pixels)
        .expect("the pixel buffer has the icon's size");
    w.finish().expect("writing to a Vec cannot fail");
    out
}

/// The icon's PNG file, as committed in `sce_sys/icon0.png`.
pub fn icon_png() -> Vec<u8> {
    encode_png(&render())
}
