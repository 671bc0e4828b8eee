//! A plain RGBA8 picture to draw on: rectangles, text in the bitmap font,
//! scaled copies of other pictures. The timeline plot, the contact sheet and
//! the overlays are drawn with it.

use crate::font;

/// An RGBA colour.
pub type Rgba = [u8; 4];

/// An RGBA8 picture, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canvas {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

impl Canvas {
    /// A canvas filled with `colour`.
    pub fn new(width: u32, height: u32, colour: Rgba) -> Canvas {
        let mut rgba = Vec::with_capacity(width as usize * height as usize * 4);
        for _ in 0..width as usize * height as usize {
            rgba.extend_from_slice(&colour);
        }
        Canvas {
            width,
            height,
            rgba,
        }
    }

    /// Sets one pixel; outside the canvas nothing happens.
    pub fn set(&mut self, x: i64, y: i64, colour: Rgba) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.rgba[i..i + 4].copy_from_slice(&colour);
    }

    /// The pixel at (`x`, `y`).
    pub fn get(&self, x: u32, y: u32) -> Rgba {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    /// Fills a rectangle (clipped to the canvas).
    pub fn fill(&mut self, x: i64, y: i64, w: i64, h: i64, colour: Rgba) {
        let x0 = x.clamp(0, i64::from(self.width));
        let y0 = y.clamp(0, i64::from(self.height));
        let x1 = (x + w).clamp(0, i64::from(self.width));
        let y1 = (y + h).clamp(0, i64::from(self.height));
        for yy in y0..y1 {
            let row = yy as usize * self.width as usize;
            for xx in x0..x1 {
                let i = (row + xx as usize) * 4;
                self.rgba[i..i + 4].copy_from_slice(&colour);
            }
        }
    }

    /// Draws a rectangle's outline, `t` pixels thick.
    pub fn outline(&mut self, x: i64, y: i64, w: i64, h: i64, t: i64, colour: Rgba) {
        self.fill(x, y, w, t, colour);
        self.fill(x, y + h - t, w, t, colour);
        self.fill(x, y, t, h, colour);
        self.fill(x + w - t, y, t, h, colour);
    }

    /// Draws `text` (lines break at `\n`) with its top-left corner at
    /// (`x`, `y`), each font pixel `scale` x `scale`.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: u32, colour: Rgba) {
        font::rasterize(text, x, y, scale, |px, py| self.set(px, py, colour));
    }

    /// Draws `text` on a filled box with a `pad`-pixel margin; returns the
    /// box's width and height.
    pub fn label(
        &mut self,
        x: i64,
        y: i64,
        text: &str,
        scale: u32,
        fg: Rgba,
        bg: Rgba,
        pad: u32,
    ) -> (u32, u32) {
        let w = font::text_width(text, scale) + 2 * pad;
        let h = font::text_height(text, scale) + 2 * pad;
        self.fill(x, y, i64::from(w), i64::from(h), bg);
        self.text(x + i64::from(pad), y + i64::from(pad), text, scale, fg);
        (w, h)
    }

    /// Copies an RGBA8 picture of `sw` x `sh` into the rectangle at
    /// (`x`, `y`) of `w` x `h`, scaled by averaging the source pixels each
    /// target pixel covers (or repeating them when enlarging).
    pub fn draw_image(&mut self, src: &[u8], sw: u32, sh: u32, x: i64, y: i64, w: u32, h: u32) {
        if sw == 0 || sh == 0 || w == 0 || h == 0 {
            return;
        }
        for ty in 0..h {
            let sy0 = u64::from(ty) * u64::from(sh) / u64::from(h);
            let sy1 = (u64::from(ty + 1) * u64::from(sh) / u64::from(h)).max(sy0 + 1);
            for tx in 0..w {
                let sx0 = u64::from(tx) * u64::from(sw) / u64::from(w);
                let sx1 = (u64::from(tx + 1) * u64::from(sw) / u64::from(w)).max(sx0 + 1);
                let mut acc = [0u64; 4];
                for sy in sy0..sy1 {
                    for sx in sx0..sx1 {
                        let i = ((sy * u64::from(sw) + sx) * 4) as usize;
                        for c in 0..4 {
                            acc[c] += u64::from(src[i + c]);
                        }
                    }
                }
                let n = (sy1 - sy0) * (sx1 - sx0);
                let px = acc.map(|a| ((a + n / 2) / n) as u8);
                self.set(x + i64::from(tx), y + i64::from(ty), px);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_clips_and_draw_image_averages() {
        let mut c = Canvas::new(4, 4, [0, 0, 0, 255]);
        c.fill(-2, -2, 4, 4, [255, 0, 0, 255]);
        assert_eq!(c.get(1, 1), [255, 0, 0, 255]);
        assert_eq!(c.get(2, 2), [0, 0, 0, 255]);
        // A 2x2 checker averaged to one pixel.
        let src = [
            0, 0, 0, 255, 200, 200, 200, 255, 200, 200, 200, 255, 0, 0, 0, 255,
        ];
        c.draw_image(&src, 2, 2, 3, 3, 1, 1);
        assert_eq!(c.get(3, 3), [100, 100, 100, 255]);
        c.label(0, 0, "A", 1, [255; 4], [0, 0, 255, 255], 1);
        assert_eq!(c.get(0, 0), [0, 0, 255, 255]);
    }
}
