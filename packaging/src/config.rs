//! The packaging config, `packaging/title.json`: what the packager needs
//! to know about the title beyond its `sce_sys/`.
//!
//! ```json
//! {
//!   "sce_sys": "../sce_sys",
//!   "payload_name": "eboot.elf",
//!   "refresh_rate": "119.88",
//!   "run_time_files": ["../runtime/demo/ps5-files.json"]
//! }
//! ```
//!
//! - `sce_sys`: the folder holding the title's `param.json` and `icon0.png`.
//! - `payload_name`: the payload's name in the app folder; the homebrew
//!   launcher runs `<TITLE_ID>/eboot.elf`.
//! - `refresh_rate`: `"119.88"` or `"59.94"`, the display mode the title
//!   asks for. With `"119.88"`, `--check` requires `attribute3` to declare
//!   it (0x80040). This is how the checker knows what the title wants.
//! - `run_time_files`: lists of the files the title needs at run time, each
//!   a JSON file the title's crate provides:
//!   `{"files": [{"source": "assets/a.bin", "dest": "assets/a.bin"}]}`
//!   (`source` relative to that list file, `dest` relative to the app
//!   folder).
//!
//! Relative paths in the config are relative to the config file's folder.
//! Unknown fields are errors, so a misspelt one is not silently ignored.

use crate::folder::rel_path_problem;
use crate::{ICON0, PARAM_JSON};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// The display mode the title asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshRate {
    /// 59.94 Hz: no param.json declaration needed.
    Hz59_94,
    /// 119.88 Hz: `attribute3` must have 0x80040.
    Hz119_88,
}

impl RefreshRate {
    /// Parses `"119.88"` or `"59.94"` (also `120` and `60`).
    pub fn parse(s: &str) -> Option<RefreshRate> {
        match s {
            "119.88" | "120" => Some(RefreshRate::Hz119_88),
            "59.94" | "60" => Some(RefreshRate::Hz59_94),
            _ => None,
        }
    }
}

/// One file the title needs at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunTimeFile {
    /// Where it is on this machine.
    pub source: PathBuf,
    /// Its path in the app folder (`/`-separated).
    pub dest: String,
    /// The list that declared it (for messages).
    pub declared_in: PathBuf,
}

/// The packaging config, loaded and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The config file.
    pub path: PathBuf,
    /// The folder with `param.json` and `icon0.png`.
    pub sce_sys: PathBuf,
    /// The payload's name in the app folder.
    pub payload_name: String,
    /// The display mode the title asks for.
    pub refresh_rate: RefreshRate,
    /// Every declared run-time file, in declaration order.
    pub run_time_files: Vec<RunTimeFile>,
}

/// A config or run-time file list that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub file: PathBuf,
    /// The field (a JSON path), when there is one.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: {field}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    sce_sys: String,
    #[serde(default = "default_payload_name")]
    payload_name: String,
    refresh_rate: String,
    #[serde(default)]
    run_time_files: Vec<String>,
}

fn default_payload_name() -> String {
    "eboot.elf".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFileList {
    files: Vec<RawFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    source: String,
    dest: String,
}

fn err(file: &Path, field: Option<String>, message: impl Into<String>) -> ConfigError {
    ConfigError {
        file: file.to_path_buf(),
        field,
        message: message.into(),
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ConfigError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| err(path, None, format!("cannot read: {e}")))?;
    serde_json::from_str(&text).map_err(|e| {
        err(
            path,
            None,
            format!("line {}, column {}: {e}", e.line(), e.column()),
        )
    })
}

/// Loads and checks the config at `path` and the run-time file lists it
/// names. Every list, source and destination is checked here; the first
/// problem is returned.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let raw: RawConfig = read_json(path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    let refresh_rate = RefreshRate::parse(&raw.refresh_rate).ok_or_else(|| {
        err(
            path,
            Some("$.refresh_rate".into()),
            format!("is {:?}, needs \"119.88\" or \"59.94\"", raw.refresh_rate),
        )
    })?;
    if raw.payload_name.contains('/') || rel_path_problem(&raw.payload_name).is_some() {
        return Err(err(
            path,
            Some("$.payload_name".into()),
            format!(
                "is {:?}, needs a plain file name like \"eboot.elf\"",
                raw.payload_name
            ),
        ));
    }
    let mut run_time_files: Vec<RunTimeFile> = Vec::new();
    for (i, list) in raw.run_time_files.iter().enumerate() {
        let list_path = base.join(list);
        if !list_path.is_file() {
            return Err(err(
                path,
                Some(format!("$.run_time_files[{i}]")),
                format!("{} does not exist", list_path.display()),
            ));
        }
        let files: RawFileList = read_json(&list_path)?;
        let list_base = list_path.parent().unwrap_or(Path::new("."));
        for (j, f) in files.files.iter().enumerate() {
            let field = |name: &str| Some(format!("$.files[{j}].{name}"));
            if let Some(why) = rel_path_problem(&f.dest) {
                return Err(err(&list_path, field("dest"), why));
            }
            let reserved = [raw.payload_name.as_str(), PARAM_JSON, ICON0, "sce_sys"];
            if reserved.contains(&f.dest.as_str()) {
                return Err(err(
                    &list_path,
                    field("dest"),
                    format!(
                        "{:?} is made by the packager; give the file another path",
                        f.dest
                    ),
                ));
            }
            if let Some(prev) = run_time_files.iter().find(|r| {
                r.dest == f.dest
                    || r.dest.starts_with(&format!("{}/", f.dest))
                    || f.dest.starts_with(&format!("{}/", r.dest))
            }) {
                return Err(err(
                    &list_path,
                    field("dest"),
                    format!(
                        "{:?} collides with {:?} declared in {}",
                        f.dest,
                        prev.dest,
                        prev.declared_in.display()
                    ),
                ));
            }
            let source = list_base.join(&f.source);
            if !source.is_file() {
                return Err(err(
                    &list_path,
                    field("source"),
                    format!(
                        "{} is not a file (list each file, not folders)",
                        source.display()
                    ),
                ));
            }
            run_time_files.push(RunTimeFile {
                source,
                dest: f.dest.clone(),
                declared_in: list_path.clone(),
            });
        }
    }
    Ok(Config {
        path: path.to_path_buf(),
        sce_sys: base.join(&raw.sce_sys),
        payload_name: raw.payload_name,
        refresh_rate,
        run_time_files,
    })
}
