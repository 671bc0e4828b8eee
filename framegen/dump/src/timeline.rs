//! The refresh timeline plot: which picture was on screen at each refresh.
//!
//! One column per refresh in a window of the dump; the game's frames in one
//! lane, the generated frames in another (one shade per position), each bar
//! as long as the picture stayed on screen, game frame numbers under the
//! bars, the pacer's state in a strip, refreshes with no recorded picture
//! (dropped records, or before the first) marked red; below, the whole dump
//! in one strip with the window marked. Laid out once as a list of shapes,
//! drawn to a PNG-ready [`Canvas`] or written as SVG.

use std::fmt::Write;

use crate::canvas::{Canvas, Rgba};
use crate::font;
use crate::format::{FrameKind, PacerState};
use crate::stats::{Info, Span};

/// What to plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The first refresh.
    pub start: u64,
    /// Refreshes to show.
    pub count: u64,
}

/// Refreshes shown by default.
pub const DEFAULT_REFRESHES: u64 = 96;

impl Window {
    /// The default window: [`DEFAULT_REFRESHES`] refreshes starting a little
    /// before the first generated frame was shown (so the warm-up's end and
    /// the pattern after it are both visible), or at the first refresh.
    pub fn default_for(info: &Info) -> Window {
        let first_shown = info
            .spans
            .iter()
            .filter(|s| s.refreshes > 0)
            .map(|s| s.first_refresh)
            .min();
        let first_gen = info
            .spans
            .iter()
            .filter(|s| s.kind.is_generated() && s.refreshes > 0)
            .map(|s| s.first_refresh)
            .min();
        let start = match (first_gen, first_shown) {
            (Some(g), Some(f)) => g.saturating_sub(12).max(f),
            (None, Some(f)) => f,
            _ => 0,
        };
        Window {
            start,
            count: DEFAULT_REFRESHES,
        }
    }
}

impl Window {
    /// The window, shortened to end at the dump's last refresh.
    pub fn clamped(self, info: &Info) -> Window {
        let mut w = self;
        if w.start < info.refreshes {
            w.count = w.count.min(info.refreshes - w.start);
        }
        w.count = w.count.max(1);
        w
    }
}

/// One thing drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A filled rectangle.
    Rect {
        /// Left.
        x: i64,
        /// Top.
        y: i64,
        /// Width.
        w: i64,
        /// Height.
        h: i64,
        /// Colour.
        colour: Rgba,
    },
    /// Text in the bitmap font, top-left at (x, y).
    Text {
        /// Left.
        x: i64,
        /// Top.
        y: i64,
        /// The text.
        text: String,
        /// Font scale.
        scale: u32,
        /// Colour.
        colour: Rgba,
    },
}

/// A laid-out plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// What to draw, in order.
    pub shapes: Vec<Shape>,
}

const BG: Rgba = [250, 250, 250, 255];
const INK: Rgba = [30, 30, 30, 255];
const GRID: Rgba = [215, 215, 215, 255];
const GAME: Rgba = [52, 101, 200, 255];
const GEN: [Rgba; 3] = [[240, 140, 40, 255], [230, 190, 40, 255], [200, 90, 40, 255]];
const GAP: Rgba = [210, 40, 40, 255];
const NONE: Rgba = [225, 225, 225, 255];

fn state_colour(s: PacerState) -> Rgba {
    match s {
        PacerState::Generating => [90, 170, 90, 255],
        PacerState::Priming => [150, 200, 120, 255],
        PacerState::WarmingUp => [170, 170, 170, 255],
        PacerState::Draining => [200, 120, 200, 255],
        PacerState::NoRoom => [120, 120, 200, 255],
        PacerState::Uneven => [220, 120, 80, 255],
        PacerState::Paused => [200, 60, 60, 255],
        _ => [120, 120, 120, 255],
    }
}

fn kind_colour(k: FrameKind) -> Rgba {
    match k {
        FrameKind::Game => GAME,
        FrameKind::Generated { index, .. } => GEN[usize::from(index).min(2)],
    }
}

const CELL: i64 = 10;
const LEFT: i64 = 96;
const RIGHT: i64 = 16;
const MIN_WIDTH: i64 = 720;

/// Lays out the plot of `window` of `info`; `title` goes at the top.
pub fn layout(info: &Info, window: Window, title: &str) -> Plot {
    let window = window.clamped(info);
    let count = window.count.clamp(1, 4000) as i64;
    // Wide enough for the legend and the totals line.
    let width = (LEFT + count * CELL + RIGHT).max(MIN_WIDTH);
    let mut s = Vec::new();
    let text = |s: &mut Vec<Shape>, x, y, t: &str, colour| {
        s.push(Shape::Text {
            x,
            y,
            text: t.to_string(),
            scale: 1,
            colour,
        })
    };
    let rect = |s: &mut Vec<Shape>, x, y, w, h, colour| s.push(Shape::Rect { x, y, w, h, colour });

    // Title and legend.
    let mut y = 8;
    s.push(Shape::Text {
        x: 8,
        y,
        text: title.to_string(),
        scale: 2,
        colour: INK,
    });
    y += 22;
    let mut lx = 8;
    for (label, colour) in [
        ("game frame", GAME),
        ("generated 1st", GEN[0]),
        ("2nd", GEN[1]),
        ("3rd", GEN[2]),
        ("no recorded picture", GAP),
    ] {
        rect(&mut s, lx, y, 10, 8, colour);
        text(&mut s, lx + 14, y, label, INK);
        lx += 14 + font::text_width(label, 1) as i64 + 16;
    }
    y += 16;

    // Refresh axis.
    let axis_y = y;
    for i in 0..count {
        let r = window.start + i as u64;
        let x = LEFT + i * CELL;
        if r.is_multiple_of(10) {
            rect(&mut s, x, axis_y + 10, 1, 4, INK);
            text(&mut s, x + 2, axis_y, &r.to_string(), INK);
        }
    }
    text(&mut s, 8, axis_y, "refresh", INK);
    y += 18;

    // Lanes.
    let lane_h = 22;
    let lanes_top = y;
    let game_y = y;
    let gen_y = y + lane_h + 4;
    let state_y = gen_y + lane_h + 4;
    let gap_y = state_y + 14;
    let labels_y = gap_y + 12;
    text(&mut s, 8, game_y + 7, "game", INK);
    text(&mut s, 8, gen_y + 7, "generated", INK);
    text(&mut s, 8, state_y + 2, "pacer", INK);
    text(&mut s, 8, gap_y, "missing", INK);
    text(&mut s, 8, labels_y, "frame #", INK);
    // Grid lines every 10 refreshes.
    for i in 0..=count {
        if (window.start + i as u64).is_multiple_of(10) {
            rect(
                &mut s,
                LEFT + i * CELL,
                lanes_top,
                1,
                labels_y + 24 - lanes_top,
                GRID,
            );
        }
    }
    let end = window.start + count as u64;
    let mut covered = vec![false; count as usize];
    let mut label_row = 0;
    let mut last_label_x = [i64::MIN; 2];
    for sp in info.spans.iter().filter(|sp| sp.refreshes > 0) {
        let a = sp.first_refresh.max(window.start);
        let b = (sp.first_refresh + u64::from(sp.refreshes)).min(end);
        if a >= b {
            continue;
        }
        for r in a..b {
            covered[(r - window.start) as usize] = true;
        }
        let x = LEFT + (a - window.start) as i64 * CELL;
        let w = (b - a) as i64 * CELL;
        let ly = if sp.kind.is_generated() {
            gen_y
        } else {
            game_y
        };
        rect(&mut s, x + 1, ly, w - 1, lane_h, kind_colour(sp.kind));
        // Each refresh of a bar as a tick, so repeats can be counted.
        for k in 1..(b - a) as i64 {
            rect(&mut s, x + k * CELL, ly + lane_h - 4, 1, 4, BG);
        }
        if !sp.kind.is_generated() {
            rect(&mut s, x + 1, state_y, w - 1, 10, state_colour(sp.state));
            // Frame numbers in two staggered rows, where they fit.
            let label = sp.frame.to_string();
            let lw = font::text_width(&label, 1) as i64;
            let row = if x > last_label_x[label_row] {
                label_row
            } else {
                1 - label_row
            };
            if x > last_label_x[row] {
                text(&mut s, x + 1, labels_y + row as i64 * 10, &label, INK);
                last_label_x[row] = x + lw + 2;
                label_row = 1 - row;
            }
        }
    }
    let first_shown = info
        .spans
        .iter()
        .filter(|s| s.refreshes > 0)
        .map(|s| s.first_refresh)
        .min();
    for (i, c) in covered.iter().enumerate() {
        let r = window.start + i as u64;
        if !c && first_shown.is_some_and(|f| r >= f) && r < info.refreshes {
            rect(&mut s, LEFT + i as i64 * CELL + 1, gap_y, CELL - 1, 8, GAP);
        }
    }
    y = labels_y + 28;

    // The pacer's states present in the window.
    let mut states: Vec<PacerState> = Vec::new();
    for sp in &info.spans {
        if !sp.kind.is_generated()
            && sp.first_refresh + u64::from(sp.refreshes) > window.start
            && sp.first_refresh < end
            && !states.contains(&sp.state)
        {
            states.push(sp.state);
        }
    }
    let mut lx = LEFT;
    text(&mut s, 8, y, "pacer:", INK);
    for st in states {
        rect(&mut s, lx, y, 10, 8, state_colour(st));
        text(&mut s, lx + 14, y, st.name(), INK);
        lx += 14 + font::text_width(st.name(), 1) as i64 + 16;
    }
    y += 18;

    // The whole dump, one pixel column per bucket of refreshes.
    let strip_w = count * CELL;
    let total = info.refreshes.max(1);
    text(&mut s, 8, y + 2, "whole dump", INK);
    let buckets = overview(&info.spans, total, strip_w as usize);
    for (i, c) in buckets.iter().enumerate() {
        rect(&mut s, LEFT + i as i64, y, 1, 12, *c);
    }
    let wx = LEFT + (window.start as f64 / total as f64 * strip_w as f64) as i64;
    let ww = ((count as f64 / total as f64 * strip_w as f64) as i64).max(2);
    rect(&mut s, wx, y - 3, ww, 2, INK);
    rect(&mut s, wx, y + 13, ww, 2, INK);
    y += 20;
    text(
        &mut s,
        LEFT,
        y,
        &format!(
            "refreshes 0..{}: {} game frames, {} generated, {} dropped records",
            info.refreshes, info.game_frames, info.generated_frames, info.dropped
        ),
        INK,
    );
    y += 16;
    Plot {
        width: width as u32,
        height: y as u32,
        shapes: s,
    }
}

/// The colour of each column of the whole-dump strip: the kind shown most
/// in its refreshes, red where a refresh after the first picture has no
/// recorded picture.
fn overview(spans: &[Span], total: u64, columns: usize) -> Vec<Rgba> {
    let columns = columns.max(1);
    // What each refresh showed: 0 nothing recorded, 1 game, 2 generated.
    let mut at = vec![0u8; total as usize];
    for sp in spans {
        let end = (sp.first_refresh + u64::from(sp.refreshes)).min(total);
        for r in sp.first_refresh.min(end)..end {
            at[r as usize] = 1 + u8::from(sp.kind.is_generated());
        }
    }
    let first = at.iter().position(|k| *k != 0);
    (0..columns)
        .map(|i| {
            let a = (i as u128 * u128::from(total) / columns as u128) as usize;
            let b = (((i + 1) as u128 * u128::from(total) / columns as u128) as usize)
                .max(a + 1)
                .min(at.len());
            if a >= at.len() {
                return NONE;
            }
            let mut n = [0usize; 3];
            for k in &at[a..b] {
                n[usize::from(*k)] += 1;
            }
            if n[0] > 0 && first.is_some_and(|f| b > f + 1 && a >= f) {
                GAP
            } else if n[0] == b - a {
                NONE
            } else if n[2] > 0 && n[1] > 0 {
                // Both kinds: the mix, in between.
                [146, 120, 120, 255]
            } else if n[2] > 0 {
                GEN[0]
            } else {
                GAME
            }
        })
        .collect()
}

impl Plot {
    /// Draws the plot.
    pub fn to_canvas(&self) -> Canvas {
        let mut c = Canvas::new(self.width, self.height, BG);
        for sh in &self.shapes {
            match sh {
                Shape::Rect { x, y, w, h, colour } => c.fill(*x, *y, *w, *h, *colour),
                Shape::Text {
                    x,
                    y,
                    text,
                    scale,
                    colour,
                } => c.text(*x, *y, text, *scale, *colour),
            }
        }
        c
    }

    /// The plot as SVG (text as SVG text, in a monospace font).
    pub fn to_svg(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#,
            w = self.width,
            h = self.height
        );
        let _ = writeln!(
            out,
            r#"<rect x="0" y="0" width="{}" height="{}" fill="{}"/>"#,
            self.width,
            self.height,
            hex(BG)
        );
        for sh in &self.shapes {
            match sh {
                Shape::Rect { x, y, w, h, colour } => {
                    let _ = writeln!(
                        out,
                        r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{}"/>"#,
                        hex(*colour)
                    );
                }
                Shape::Text {
                    x,
                    y,
                    text,
                    scale,
                    colour,
                } => {
                    let size = 8 * scale;
                    let _ = writeln!(
                        out,
                        r#"<text x="{x}" y="{}" font-family="monospace" font-size="{size}" fill="{}">{}</text>"#,
                        y + i64::from(7 * scale),
                        hex(*colour),
                        escape(text)
                    );
                }
            }
        }
        out.push_str("</svg>\n");
        out
    }
}

fn hex(c: Rgba) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
