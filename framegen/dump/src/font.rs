//! A tiny bitmap font of our own: 5x7 pixel glyphs in 6x8 cells, printable
//! ASCII (lower case drawn as upper case). The dump tools label their
//! images with it, and the present loop draws its overlays (frame counter,
//! notifications) with it.

/// Glyph width in pixels.
pub const GLYPH_W: u32 = 5;
/// Glyph height in pixels.
pub const GLYPH_H: u32 = 7;
/// Horizontal advance per character (glyph and a column of space).
pub const CELL_W: u32 = 6;
/// Line height (glyph and a row of space).
pub const CELL_H: u32 = 8;

/// The rows of a glyph, top first; bit 4 is the leftmost pixel.
type Glyph = [u8; 7];

const BOX: Glyph = [
    0b11111, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b11111,
];

/// The glyph of `c` (lower case maps to upper case; anything else not in
/// the font is an empty box).
pub fn glyph(c: char) -> Glyph {
    let c = c.to_ascii_uppercase();
    match c {
        ' ' => [0; 7],
        '0' => [
            0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110,
        ],
        '1' => [
            0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,
        ],
        '2' => [
            0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111,
        ],
        '3' => [
            0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110,
        ],
        '4' => [
            0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010,
        ],
        '5' => [
            0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110,
        ],
        '6' => [
            0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110,
        ],
        '7' => [
            0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000,
        ],
        '8' => [
            0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110,
        ],
        '9' => [
            0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100,
        ],
        'A' => [
            0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001,
        ],
        'B' => [
            0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110,
        ],
        'C' => [
            0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110,
        ],
        'D' => [
            0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100,
        ],
        'E' => [
            0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111,
        ],
        'F' => [
            0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000,
        ],
        'G' => [
            0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111,
        ],
        'H' => [
            0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001,
        ],
        'I' => [
            0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,
        ],
        'J' => [
            0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100,
        ],
        'K' => [
            0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001,
        ],
        'L' => [
            0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111,
        ],
        'M' => [
            0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001,
        ],
        'N' => [
            0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001,
        ],
        'O' => [
            0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110,
        ],
        'P' => [
            0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000,
        ],
        'Q' => [
            0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101,
        ],
        'R' => [
            0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001,
        ],
        'S' => [
            0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110,
        ],
        'T' => [
            0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100,
        ],
        'U' => [
            0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110,
        ],
        'V' => [
            0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100,
        ],
        'W' => [
            0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010,
        ],
        'X' => [
            0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001,
        ],
        'Y' => [
            0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100, 0b00100,
        ],
        'Z' => [
            0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111,
        ],
        '!' => [
            0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000, 0b00100,
        ],
        '"' => [0b01010, 0b01010, 0, 0, 0, 0, 0],
        '#' => [
            0b01010, 0b01010, 0b11111, 0b01010, 0b11111, 0b01010, 0b01010,
        ],
        '$' => [
            0b00100, 0b01111, 0b10100, 0b01110, 0b00101, 0b11110, 0b00100,
        ],
        '%' => [
            0b11000, 0b11001, 0b00010, 0b00100, 0b01000, 0b10011, 0b00011,
        ],
        '&' => [
            0b01100, 0b10010, 0b10100, 0b01000, 0b10101, 0b10010, 0b01101,
        ],
        '\'' => [0b00100, 0b00100, 0, 0, 0, 0, 0],
        '(' => [
            0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010,
        ],
        ')' => [
            0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000,
        ],
        '*' => [0, 0b00100, 0b10101, 0b01110, 0b10101, 0b00100, 0],
        '+' => [0, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0],
        ',' => [0, 0, 0, 0, 0b00110, 0b00100, 0b01000],
        '-' => [0, 0, 0, 0b11111, 0, 0, 0],
        '.' => [0, 0, 0, 0, 0, 0b01100, 0b01100],
        '/' => [0, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0],
        ':' => [0, 0b01100, 0b01100, 0, 0b01100, 0b01100, 0],
        ';' => [0, 0b01100, 0b01100, 0, 0b01100, 0b00100, 0b01000],
        '<' => [
            0b00010, 0b00100, 0b01000, 0b10000, 0b01000, 0b00100, 0b00010,
        ],
        '=' => [0, 0, 0b11111, 0, 0b11111, 0, 0],
        '>' => [
            0b01000, 0b00100, 0b00010, 0b00001, 0b00010, 0b00100, 0b01000,
        ],
        '?' => [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0, 0b00100],
        '@' => [
            0b01110, 0b10001, 0b00001, 0b01101, 0b10101, 0b10101, 0b01110,
        ],
        '[' => [
            0b01110, 0b01000, 0b01000, 0b01000, 0b01000, 0b01000, 0b01110,
        ],
        '\\' => [0, 0b10000, 0b01000, 0b00100, 0b00010, 0b00001, 0],
        ']' => [
            0b01110, 0b00010, 0b00010, 0b00010, 0b00010, 0b00010, 0b01110,
        ],
        '^' => [0b00100, 0b01010, 0b10001, 0, 0, 0, 0],
        '_' => [0, 0, 0, 0, 0, 0, 0b11111],
        '`' => [0b01000, 0b00100, 0, 0, 0, 0, 0],
        '{' => [
            0b00010, 0b00100, 0b00100, 0b01000, 0b00100, 0b00100, 0b00010,
        ],
        '|' => [0b00100; 7],
        '}' => [
            0b01000, 0b00100, 0b00100, 0b00010, 0b00100, 0b00100, 0b01000,
        ],
        '~' => [0, 0, 0b01000, 0b10101, 0b00010, 0, 0],
        _ => BOX,
    }
}

/// Width in pixels of `text` at `scale` (longest line).
pub fn text_width(text: &str, scale: u32) -> u32 {
    text.lines()
        .map(|l| l.chars().count() as u32)
        .max()
        .unwrap_or(0)
        .saturating_mul(CELL_W * scale)
}

/// Height in pixels of `text` at `scale`.
pub fn text_height(text: &str, scale: u32) -> u32 {
    (text.lines().count().max(1) as u32) * CELL_H * scale
}

/// Calls `set(x, y)` for every lit pixel of `text` drawn with its top-left
/// corner at (`x`, `y`), each font pixel `scale` x `scale` pixels. Lines
/// break at `\n`. Coordinates may fall outside the caller's picture: the
/// caller clips.
pub fn rasterize(text: &str, x: i64, y: i64, scale: u32, mut set: impl FnMut(i64, i64)) {
    let s = i64::from(scale.max(1));
    for (line, l) in text.lines().enumerate() {
        let top = y + line as i64 * i64::from(CELL_H) * s;
        for (col, c) in l.chars().enumerate() {
            let left = x + col as i64 * i64::from(CELL_W) * s;
            let g = glyph(c);
            for (row, bits) in g.iter().enumerate() {
                for bit in 0..GLYPH_W {
                    if bits & (1 << (GLYPH_W - 1 - bit)) != 0 {
                        let px = left + i64::from(bit) * s;
                        let py = top + row as i64 * s;
                        for dy in 0..s {
                            for dx in 0..s {
                                set(px + dx, py + dy);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_fit_their_cell_and_differ() {
        let chars: Vec<char> = (' '..='~').filter(|c| !c.is_ascii_lowercase()).collect();
        for &c in &chars {
            for row in glyph(c) {
                assert!(row < 32, "{c:?} is wider than 5 pixels");
            }
        }
        // Every character of the font has a glyph of its own.
        for (i, &a) in chars.iter().enumerate() {
            assert_ne!(glyph(a), BOX, "{a:?} has no glyph");
            for &b in &chars[i + 1..] {
                assert_ne!(glyph(a), glyph(b), "{a:?} and {b:?} look the same");
            }
        }
        assert_eq!(glyph('a'), glyph('A'));
    }

    #[test]
    fn rasterize_places_pixels() {
        let mut lit = Vec::new();
        rasterize("1", 10, 20, 1, |x, y| lit.push((x, y)));
        // '1': the top row has one pixel, at column 2.
        assert!(lit.contains(&(12, 20)));
        assert_eq!(lit.iter().filter(|p| p.1 == 20).count(), 1);
        assert_eq!(lit.iter().filter(|p| p.1 == 26).count(), 3);
        let mut n2 = 0;
        rasterize("1", 0, 0, 2, |_, _| n2 += 1);
        assert_eq!(n2, lit.len() * 4);
        assert_eq!(text_width("ab\nabc", 2), 36);
        assert_eq!(text_height("ab\nabc", 2), 32);
    }
}
