//! The display modes the simulated VideoOut offers, as the console's drivers
//! decide them: 119.88 Hz only when the title's `sce_sys/param.json`
//! declares `attribute3` with the bits 0x80040 (FACTS.md), 59.94 Hz always.

use std::path::{Path, PathBuf};

use framegen_present::Mode;

/// The `attribute3` bits that declare high frame rates.
pub const ATTRIBUTE3_HIGH_FRAME_RATE: u64 = 0x80040;

/// The param.json host-sim reads when none is named: the title's, in the
/// repository's `sce_sys/`.
pub fn default_param_json() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .parent()
        .unwrap_or(crate_dir)
        .join("sce_sys/param.json")
}

/// What the title's param.json says about high frame rates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Declaration {
    /// The file was read; `attribute3` is its value (`None`: absent).
    Read {
        /// The file.
        path: PathBuf,
        /// `attribute3`.
        attribute3: Option<u64>,
    },
    /// There is no such file.
    Missing {
        /// The file looked for.
        path: PathBuf,
    },
}

/// A param.json that is there but unusable: the file, the field, what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {what}")]
pub struct ParamJsonError {
    /// The file.
    pub path: String,
    /// What is wrong (naming the field, or the JSON error's line and column).
    pub what: String,
}

/// Reads `path`. A missing file is not an error (the console then offers
/// 59.94 Hz only); a file that is not JSON, not an object, or has an
/// `attribute3` that is not a whole number is.
pub fn read_declaration(path: &Path) -> Result<Declaration, ParamJsonError> {
    let err = |what: String| ParamJsonError {
        path: path.display().to_string(),
        what,
    };
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Declaration::Missing {
                path: path.to_path_buf(),
            });
        }
        Err(e) => return Err(err(format!("cannot read it: {e}"))),
    };
    let v: serde_json::Value = serde_json::from_slice(&text).map_err(|e| {
        err(format!(
            "not valid JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    let obj = v
        .as_object()
        .ok_or_else(|| err("the top level is not a JSON object".into()))?;
    let attribute3 = match obj.get("attribute3") {
        None => None,
        Some(a) => Some(a.as_u64().ok_or_else(|| {
            err(format!(
                "field \"attribute3\" is {a}, not a whole number (the console reads it as a number: 524352 is 0x80040)"
            ))
        })?),
    };
    Ok(Declaration::Read {
        path: path.to_path_buf(),
        attribute3,
    })
}

impl Declaration {
    /// Whether 119.88 Hz is declared.
    pub fn declares_120hz(&self) -> bool {
        matches!(self, Declaration::Read { attribute3: Some(a), .. } if a & ATTRIBUTE3_HIGH_FRAME_RATE == ATTRIBUTE3_HIGH_FRAME_RATE)
    }

    /// Why 119.88 Hz is or is not offered, in a sentence.
    pub fn why(&self) -> String {
        match self {
            Declaration::Read {
                path,
                attribute3: Some(a),
            } if self.declares_120hz() => format!(
                "119.88 Hz offered: {} declares attribute3 = {a:#x} (bits 0x80040 set)",
                path.display()
            ),
            Declaration::Read {
                path,
                attribute3: Some(a),
            } => format!(
                "only 59.94 Hz offered: {} has attribute3 = {a:#x}, without the bits 0x80040 \
                 that declare high frame rates (\"attribute3\": 524352)",
                path.display()
            ),
            Declaration::Read {
                path,
                attribute3: None,
            } => format!(
                "only 59.94 Hz offered: {} has no attribute3; add \"attribute3\": 524352 (0x80040) \
                 to declare high frame rates",
                path.display()
            ),
            Declaration::Missing { path } => format!(
                "only 59.94 Hz offered: no param.json at {} (name one with --param-json); the console \
                 offers 119.88 Hz only to titles that declare attribute3 0x80040",
                path.display()
            ),
        }
    }
}

/// The modes offered for a `width` x `height` display: 119.88 Hz first
/// when declared (as ps5vk lists it), then 59.94 Hz.
pub fn offered(width: u32, height: u32, decl: &Declaration) -> Vec<Mode> {
    let mut v = Vec::new();
    if decl.declares_120hz() {
        v.push(Mode {
            width,
            height,
            refresh_mhz: 119_880,
        });
    }
    v.push(Mode {
        width,
        height,
        refresh_mhz: 59_940,
    });
    v
}

/// The mode to use: the requested rate when offered (119.88 or 59.94,
/// within 0.5 Hz), else the first offered. The second value says why the
/// request was not met, when it was not.
pub fn choose(
    offered: &[Mode],
    requested_hz: Option<f64>,
    decl: &Declaration,
) -> (Mode, Option<String>) {
    let first = offered[0];
    let Some(hz) = requested_hz else {
        return (first, None);
    };
    match offered.iter().find(|m| (m.hz() - hz).abs() < 0.5) {
        Some(m) => (*m, None),
        None => (
            *offered.last().unwrap_or(&first),
            Some(format!(
                "{hz} Hz is not offered, using {:.2} Hz: {}",
                offered.last().unwrap_or(&first).hz(),
                decl.why()
            )),
        ),
    }
}

/// A display argument: its size and its rate, each when given.
pub type DisplayArg = (Option<(u32, u32)>, Option<f64>);

/// A display given as `WxH`, `WxH@HZ` or `@HZ`.
pub fn parse_display(s: &str) -> Result<DisplayArg, String> {
    let bad = || format!("--display {s}: expected WxH, WxH@HZ or @HZ (e.g. 960x540@119.88)");
    let (size, hz) = match s.split_once('@') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let size = if size.is_empty() {
        None
    } else {
        let (w, h) = size.split_once(['x', 'X']).ok_or_else(bad)?;
        let w: u32 = w.trim().parse().map_err(|_| bad())?;
        let h: u32 = h.trim().parse().map_err(|_| bad())?;
        if !(framegen::MIN_SIDE..=16384).contains(&w) || !(framegen::MIN_SIDE..=16384).contains(&h)
        {
            return Err(format!(
                "--display {s}: sizes from {0}x{0} to 16384x16384",
                framegen::MIN_SIDE
            ));
        }
        Some((w, h))
    };
    let hz = match hz {
        None => None,
        Some(h) => {
            let v: f64 = h.trim().parse().map_err(|_| bad())?;
            if !(v.is_finite() && v > 0.0) {
                return Err(bad());
            }
            Some(v)
        }
    };
    Ok((size, hz))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("host-sim-modes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn attribute3_decides_120hz() {
        let p = write(
            "yes.json",
            r#"{"titleId": "PPSA01234", "attribute3": 524352}"#,
        );
        let d = read_declaration(&p).unwrap();
        assert!(d.declares_120hz());
        let m = offered(3840, 2160, &d);
        assert_eq!(
            m.iter().map(|m| m.refresh_mhz).collect::<Vec<_>>(),
            [119_880, 59_940]
        );
        assert!(d.why().contains("119.88 Hz offered"));
        // Other bits too: still declared.
        let p = write("more.json", r#"{"attribute3": 1573952}"#);
        assert!(read_declaration(&p).unwrap().declares_120hz());
        // Only one of the two bits: not declared.
        let p = write("half.json", r#"{"attribute3": 64}"#);
        let d = read_declaration(&p).unwrap();
        assert!(!d.declares_120hz());
        assert!(
            d.why().contains("0x40, without the bits 0x80040"),
            "{}",
            d.why()
        );
        let p = write("none.json", r#"{"titleId": "PPSA01234"}"#);
        let d = read_declaration(&p).unwrap();
        assert_eq!(offered(960, 540, &d).len(), 1);
        assert!(d.why().contains("has no attribute3"));
        let d = read_declaration(Path::new("/nonexistent/param.json")).unwrap();
        assert_eq!(offered(960, 540, &d)[0].refresh_mhz, 59_940);
        assert!(d.why().contains("no param.json at /nonexistent/param.json"));
    }

    #[test]
    fn bad_param_json_names_file_and_field() {
        let p = write("bad.json", r#"{"attribute3": "0x80040"}"#);
        let e = read_declaration(&p).unwrap_err();
        assert!(
            e.to_string().contains("bad.json") && e.what.contains("\"attribute3\""),
            "{e}"
        );
        let p = write("broken.json", "{\"attribute3\": 5,\n");
        let e = read_declaration(&p).unwrap_err();
        assert!(e.what.contains("line 2"), "{e}");
        let p = write("array.json", "[1, 2]");
        assert!(
            read_declaration(&p)
                .unwrap_err()
                .what
                .contains("not a JSON object")
        );
    }

    #[test]
    fn choosing_a_mode() {
        let none = Declaration::Missing { path: "p".into() };
        let only60 = offered(960, 540, &none);
        let (m, why) = choose(&only60, Some(119.88), &none);
        assert_eq!(m.refresh_mhz, 59_940);
        assert!(why.unwrap().contains("119.88 Hz is not offered"));
        let yes = Declaration::Read {
            path: "p".into(),
            attribute3: Some(0x80040),
        };
        let both = offered(960, 540, &yes);
        assert_eq!(choose(&both, None, &yes).0.refresh_mhz, 119_880);
        assert_eq!(choose(&both, Some(59.94), &yes), (both[1], None));
    }

    #[test]
    fn display_argument() {
        assert_eq!(
            parse_display("960x540@119.88").unwrap(),
            (Some((960, 540)), Some(119.88))
        );
        assert_eq!(
            parse_display("3840x2160").unwrap(),
            (Some((3840, 2160)), None)
        );
        assert_eq!(parse_display("@59.94").unwrap(), (None, Some(59.94)));
        assert!(parse_display("960x").is_err());
        assert!(parse_display("8x8").is_err());
        assert!(parse_display("960x540@fast").is_err());
    }
}
