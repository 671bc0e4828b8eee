//! What a dump says, summed up: frame counts, drops, and the refresh
//! timeline (which picture was on screen at each refresh, for how long).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::format::{FrameKind, PacerState};
use crate::reader::{DumpReader, Header, ReadError, Record};

/// One picture's stay on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The first refresh it was shown on.
    pub first_refresh: u64,
    /// Refreshes it was shown.
    pub refreshes: u32,
    /// The game frame's index.
    pub frame: u64,
    /// Game or generated.
    pub kind: FrameKind,
    /// The pacer's state for its game frame.
    pub state: PacerState,
}

/// The summary of a dump.
#[derive(Debug, Clone, Default)]
pub struct Info {
    /// The header's metadata.
    pub meta: Value,
    /// Records read (all types).
    pub records: u64,
    /// Frame records of the game's frames.
    pub game_frames: u64,
    /// Frame records of generated frames.
    pub generated_frames: u64,
    /// Records dropped by the writer (from the dropped records).
    pub dropped: u64,
    /// Refreshes the display ran (the end record's, else the last shown).
    pub refreshes: u64,
    /// Presents made (all frame records' presents).
    pub presents: u64,
    /// The display clock at the end (end record), seconds.
    pub seconds: Option<f64>,
    /// Whether the file ends with its end record.
    pub complete: bool,
    /// Every picture's stay on screen, in file order.
    pub spans: Vec<Span>,
    /// Refreshes each game frame was shown: count of each.
    pub game_refreshes: BTreeMap<u32, u64>,
    /// Refreshes each generated frame was shown: count of each.
    pub generated_refreshes: BTreeMap<u32, u64>,
    /// Generated frames per game frame (the decision's): count of each.
    pub generated_per_frame: BTreeMap<u8, u64>,
    /// The pacer's state over the game frames: count of each.
    pub pacer_states: BTreeMap<PacerState, u64>,
    /// GPU times (total, flow) in ms of the frame records that carry them.
    pub gpu_ms: Vec<(f32, f32)>,
    /// The first game frame with generated frames before it.
    pub first_generated_frame: Option<u64>,
    /// Image size of the frame records (the first one's).
    pub image: Option<(u32, u32, u8)>,
    /// The error that stopped the reading, if any.
    pub error: Option<String>,
}

/// Per game frame, from the first generated frame on: (refreshes of its
/// generated frames, refreshes of the game frame) and how often each pair
/// came.
pub type Pattern = BTreeMap<(u32, u32), u64>;

impl Info {
    /// Reads `path` (every record's checksum; images are not decompressed).
    /// A file that cannot be opened is an error; one that breaks off gives
    /// what was read, with [`Info::error`] set.
    pub fn read(path: &Path) -> Result<Info, ReadError> {
        let mut reader = DumpReader::open(path)?;
        let Header { meta, .. } = reader.header().clone();
        let mut info = Info {
            meta,
            ..Info::default()
        };
        loop {
            match reader.next_record() {
                Ok(Some((record, _))) => info.add(&record),
                Ok(None) => break,
                Err(e) => {
                    info.error = Some(e.to_string());
                    break;
                }
            }
        }
        if info.refreshes == 0 {
            info.refreshes = info
                .spans
                .iter()
                .map(|s| s.first_refresh + u64::from(s.refreshes))
                .max()
                .unwrap_or(0);
        }
        Ok(info)
    }

    fn add(&mut self, record: &Record) {
        self.records += 1;
        match record {
            Record::Frame(fr) => {
                let m = &fr.meta;
                self.presents += u64::from(m.presents);
                if self.image.is_none() && fr.image.width > 0 {
                    self.image = Some((fr.image.width, fr.image.height, fr.image.scale));
                }
                if let Some(g) = m.gpu {
                    self.gpu_ms.push((g.total_ms, g.flow_ms));
                }
                match m.kind {
                    FrameKind::Game => {
                        self.game_frames += 1;
                        *self.game_refreshes.entry(m.refreshes).or_default() += 1;
                        *self
                            .generated_per_frame
                            .entry(m.decision.generated)
                            .or_default() += 1;
                        *self.pacer_states.entry(m.decision.state).or_default() += 1;
                    }
                    FrameKind::Generated { .. } => {
                        self.generated_frames += 1;
                        *self.generated_refreshes.entry(m.refreshes).or_default() += 1;
                        self.first_generated_frame.get_or_insert(m.frame);
                    }
                }
                self.spans.push(Span {
                    first_refresh: m.first_refresh,
                    refreshes: m.refreshes,
                    frame: m.frame,
                    kind: m.kind,
                    state: m.decision.state,
                });
            }
            Record::Dropped(d) => self.dropped += d.count,
            Record::End(e) => {
                self.complete = true;
                self.refreshes = e.refreshes;
                self.seconds = Some(e.seconds);
            }
        }
    }

    /// Refreshes on which some recorded picture was on screen, and the
    /// first and last of them.
    pub fn covered(&self) -> (u64, Option<u64>, Option<u64>) {
        let mut covered = 0u64;
        let mut first = None;
        let mut last = None;
        let mut reach = 0u64;
        let mut spans: Vec<&Span> = self.spans.iter().filter(|s| s.refreshes > 0).collect();
        spans.sort_by_key(|s| s.first_refresh);
        for s in spans {
            let end = s.first_refresh + u64::from(s.refreshes);
            first.get_or_insert(s.first_refresh);
            last = Some(end - 1);
            let from = s.first_refresh.max(reach);
            covered += end.saturating_sub(from);
            reach = reach.max(end);
        }
        (covered, first, last)
    }

    /// The (generated refreshes, game refreshes) of each game frame from
    /// the first one with generated frames on, counted.
    pub fn pattern(&self) -> Pattern {
        let mut p = Pattern::new();
        let Some(start) = self.first_generated_frame else {
            return p;
        };
        let mut gen_refreshes = 0u32;
        for s in &self.spans {
            if s.frame < start {
                continue;
            }
            match s.kind {
                FrameKind::Generated { .. } => gen_refreshes += s.refreshes,
                FrameKind::Game => {
                    *p.entry((gen_refreshes, s.refreshes)).or_default() += 1;
                    gen_refreshes = 0;
                }
            }
        }
        p
    }

    /// The summary as JSON (the keys `fgdump info --json` prints).
    pub fn to_json(&self) -> Value {
        let hist = |m: &BTreeMap<u32, u64>| -> Value {
            Value::Object(m.iter().map(|(k, v)| (k.to_string(), json!(v))).collect())
        };
        let (covered, first, last) = self.covered();
        let pattern = self.pattern();
        let pattern_total: u64 = pattern.values().sum();
        let top = pattern.iter().max_by_key(|(_, n)| **n);
        let gpu = if self.gpu_ms.is_empty() {
            Value::Null
        } else {
            let n = self.gpu_ms.len() as f64;
            json!({
                "samples": self.gpu_ms.len(),
                "mean_total_ms": self.gpu_ms.iter().map(|g| f64::from(g.0)).sum::<f64>() / n,
                "max_total_ms": self.gpu_ms.iter().map(|g| f64::from(g.0)).fold(0.0, f64::max),
                "mean_flow_ms": self.gpu_ms.iter().map(|g| f64::from(g.1)).sum::<f64>() / n,
            })
        };
        json!({
            "meta": self.meta,
            "complete": self.complete,
            "error": self.error,
            "records": self.records,
            "game_frames": self.game_frames,
            "generated_frames": self.generated_frames,
            "dropped": self.dropped,
            "refreshes": self.refreshes,
            "presents": self.presents,
            "seconds": self.seconds,
            "refreshes_covered": covered,
            "refreshes_uncovered": self.refreshes.saturating_sub(covered),
            "first_shown_refresh": first,
            "last_shown_refresh": last,
            "first_generated_frame": self.first_generated_frame,
            "game_refreshes": hist(&self.game_refreshes),
            "generated_refreshes": hist(&self.generated_refreshes),
            "generated_per_game_frame": Value::Object(
                self.generated_per_frame.iter().map(|(k, v)| (k.to_string(), json!(v))).collect()
            ),
            "pacer_states": Value::Object(
                self.pacer_states.iter().map(|(k, v)| (k.name().to_string(), json!(v))).collect()
            ),
            "pattern": top.map(|((g, f), n)| json!({
                "generated_refreshes": g,
                "game_refreshes": f,
                "frames": n,
                "share": *n as f64 / pattern_total.max(1) as f64,
            })),
            "gpu": gpu,
            "image": self.image.map(|(w, h, s)| json!({"width": w, "height": h, "scale": s})),
        })
    }

    /// The summary for people.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let (covered, first, last) = self.covered();
        let _ = writeln!(
            s,
            "records      {} ({} game frames, {} generated, {} dropped){}",
            self.records,
            self.game_frames,
            self.generated_frames,
            self.dropped,
            if self.complete {
                ""
            } else {
                "  [no end record]"
            }
        );
        if let Some(d) = self.meta.get("display") {
            let _ = writeln!(s, "display      {}", compact(d));
        }
        if let Some(t) = self.meta.get("title") {
            let _ = writeln!(s, "title        {}", compact(t));
        }
        let _ = writeln!(
            s,
            "refreshes    {} ({} with a recorded picture, refreshes {}..={}), {} presents{}",
            self.refreshes,
            covered,
            first.map_or("-".into(), |v| v.to_string()),
            last.map_or("-".into(), |v| v.to_string()),
            self.presents,
            self.seconds
                .map_or(String::new(), |t| format!(", {t:.3} s"))
        );
        let fmt_hist = |m: &BTreeMap<u32, u64>| {
            m.iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "game frames  shown (refreshes: frames) {}",
            fmt_hist(&self.game_refreshes)
        );
        let _ = writeln!(
            s,
            "generated    shown (refreshes: frames) {}",
            fmt_hist(&self.generated_refreshes)
        );
        let states: Vec<String> = self
            .pacer_states
            .iter()
            .map(|(k, v)| format!("{}: {v}", k.name()))
            .collect();
        let _ = writeln!(
            s,
            "pacer        states of the game frames: {}",
            states.join(", ")
        );
        match self.first_generated_frame {
            Some(f) => {
                let p = self.pattern();
                let total: u64 = p.values().sum();
                let mut v: Vec<_> = p.iter().collect();
                v.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
                let parts: Vec<String> = v
                    .iter()
                    .take(4)
                    .map(|((g, gf), n)| {
                        format!(
                            "generated {g} + game {gf} refreshes: {:.1} %",
                            100.0 * **n as f64 / total.max(1) as f64
                        )
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "pattern      per game frame from frame {f} (the first generated) on: {}",
                    parts.join("; ")
                );
            }
            None => {
                let _ = writeln!(s, "pattern      no generated frames");
            }
        }
        if !self.gpu_ms.is_empty() {
            let n = self.gpu_ms.len() as f64;
            let _ = writeln!(
                s,
                "GPU ms       {:.2} mean ({:.2} flow), {:.2} max, {} samples",
                self.gpu_ms.iter().map(|g| f64::from(g.0)).sum::<f64>() / n,
                self.gpu_ms.iter().map(|g| f64::from(g.1)).sum::<f64>() / n,
                self.gpu_ms
                    .iter()
                    .map(|g| f64::from(g.0))
                    .fold(0.0, f64::max),
                self.gpu_ms.len()
            );
        }
        if let Some(e) = &self.error {
            let _ = writeln!(s, "error        {e}");
        }
        s
    }
}

fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", compact(v)))
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}
