//! Overlays: the frame counter and notifications, drawn in the bitmap font
//! on an opaque box in the display's top-left corner, on every present (the
//! generated frames too, so they never blink). The box is drawn on the CPU
//! and copied into the swapchain image, which needs no extra device feature
//! on any driver.

use framegen_dump::font;

/// A notification and when it disappears (display clock).
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The text.
    pub text: String,
    /// When it goes away, seconds.
    pub until_s: f64,
}

/// The overlay's text for one present, and its box drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverlayBox {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Pixels in the display's byte order (RGBA or BGRA), rows packed.
    pub pixels: Vec<u8>,
}

/// Margin between the box and its text, in font pixels.
const PAD: u32 = 2;

/// Lines drawn at most (the counter and two notifications); more are left out.
pub const MAX_LINES: usize = 3;
/// Characters a line at most; longer lines are cut.
pub const MAX_CHARS: usize = 64;

/// The largest box at `scale`, in pixels.
pub fn max_box(scale: u32) -> (u32, u32) {
    (
        MAX_CHARS as u32 * font::CELL_W * scale + 2 * PAD * scale,
        MAX_LINES as u32 * font::CELL_H * scale + 2 * PAD * scale,
    )
}

/// Font scale for a display `height` pixels high (2 at 540, 8 at 2160).
pub fn scale_for(height: u32) -> u32 {
    (height / 270).max(1)
}

/// The frame counter's line: `frame 000123 game` or `frame 000123 gen 1/1`.
pub fn counter_line(frame: u64, generated: Option<(u32, u32)>) -> String {
    match generated {
        None => format!("frame {frame:06} game"),
        Some((i, n)) => format!("frame {frame:06} gen {}/{n}", i + 1),
    }
}

/// Draws `lines` on an opaque dark box at `scale`, at most `max_w` x
/// `max_h` pixels (clipped); `bgra` swaps red and blue for BGRA images.
/// `None` when there is nothing to draw.
pub fn draw(
    lines: &[String],
    scale: u32,
    max_w: u32,
    max_h: u32,
    bgra: bool,
) -> Option<OverlayBox> {
    if lines.is_empty() {
        return None;
    }
    let text = lines
        .iter()
        .take(MAX_LINES)
        .map(|l| l.chars().take(MAX_CHARS).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n");
    let pad = PAD * scale;
    let width = (font::text_width(&text, scale) + 2 * pad).min(max_w);
    let height = (font::text_height(&text, scale) + 2 * pad).min(max_h);
    if width == 0 || height == 0 {
        return None;
    }
    let (bg, fg): ([u8; 4], [u8; 4]) = ([16, 16, 16, 255], [255, 255, 160, 255]);
    let swap = |c: [u8; 4]| if bgra { [c[2], c[1], c[0], c[3]] } else { c };
    let (bg, fg) = (swap(bg), swap(fg));
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
    for _ in 0..width * height {
        pixels.extend_from_slice(&bg);
    }
    font::rasterize(&text, i64::from(pad), i64::from(pad), scale, |x, y| {
        if x >= 0 && y >= 0 && x < i64::from(width) && y < i64::from(height) {
            let i = (y as usize * width as usize + x as usize) * 4;
            pixels[i..i + 4].copy_from_slice(&fg);
        }
    });
    Some(OverlayBox {
        width,
        height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_and_colours() {
        let b = draw(&[counter_line(12, Some((0, 1)))], 1, 1000, 1000, false).unwrap();
        assert_eq!(b.width, font::text_width("frame 000012 gen 1/1", 1) + 4);
        assert_eq!(b.height, font::CELL_H + 4);
        assert_eq!(&b.pixels[0..4], &[16, 16, 16, 255]);
        assert!(b.pixels.chunks_exact(4).any(|p| p == [255, 255, 160, 255]));
        let bgra = draw(&["x".to_string()], 1, 1000, 1000, true).unwrap();
        assert!(
            bgra.pixels
                .chunks_exact(4)
                .any(|p| p == [160, 255, 255, 255])
        );
        let clipped = draw(&["a long line of text".to_string()], 4, 50, 10, false).unwrap();
        assert_eq!((clipped.width, clipped.height), (50, 10));
        assert!(draw(&[], 1, 10, 10, false).is_none());
        // Lines and characters beyond the box's limits are left out.
        let many: Vec<String> = (0..5).map(|_| "x".repeat(100)).collect();
        let b = draw(&many, 1, 10_000, 10_000, false).unwrap();
        assert_eq!((b.width, b.height), max_box(1));
        assert_eq!(counter_line(5, None), "frame 000005 game");
        assert_eq!(scale_for(540), 2);
        assert_eq!(scale_for(2160), 8);
    }
}
