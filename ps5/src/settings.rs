//! The payload's settings: a JSON file on the console's storage, read at
//! start. Every field is optional; a missing file means the defaults.
//!
//! ```json
//! {
//!   "dumps": true,                      // write flagged frame dumps (default false)
//!   "dump_dir": "/data/cellport/dumps", // where; must be under /data/
//!   "title_id": "PPSA01234",            // the app's title id (finds param.json)
//!   "vulkan_module": "/data/cellport/libvulkan.sprx", // the driver by NID, when not linked in
//!   "run_seconds": 10,                  // how long to present (0: set up and stop; default:
//!                                       //   the demo until it quits, the scene 10 s)
//!   "title": "demo",                    // demo (the recompiled PS3 demo) or scene
//!   "fs_root": "/data/cellport/ps3-fs", // the game's files (sandbox folder under /data/)
//!   "pad_script": "0:;15:right",        // a scripted pad instead of the controller
//!   "interpreter": false,               // the demo on the PPU interpreter (the reference)
//!   "multiplier": 4                     // frame generation's (2..4; default: fill every refresh)
//! }
//! ```

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Where the payload reads its settings.
pub const SETTINGS_PATH: &str = "/data/cellport/settings.json";
/// The default dump folder.
pub const DEFAULT_DUMP_DIR: &str = "/data/cellport/dumps";

/// The payload's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Whether frame dumps are written.
    pub dumps: bool,
    /// The folder dumps go to (under `/data/`).
    pub dump_dir: PathBuf,
    /// The running app's title id, when the settings name it.
    pub title_id: Option<String>,
    /// A module to take the Vulkan driver's entry point from by NID, when
    /// the driver is not linked into the payload.
    pub vulkan_module: Option<PathBuf>,
    /// How long the present loop runs, seconds (0: set up, then stop;
    /// `None`: the demo until it quits, the scene
    /// [`DEFAULT_RUN_SECONDS`]).
    pub run_seconds: Option<f64>,
    /// The title.
    pub title: TitleChoice,
    /// The folder the game's files live in (the runtime's sandbox).
    pub fs_root: PathBuf,
    /// A scripted pad (`FRAME:BUTTONS[:LX,LY];...`) instead of the
    /// controller.
    pub pad_script: Option<String>,
    /// The demo on the PPU interpreter instead of its lifted code.
    pub interpreter: bool,
    /// Frame generation's multiplier (`None`: enough to fill every refresh).
    pub multiplier: Option<u8>,
}

/// Which title the payload runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TitleChoice {
    /// The recompiled PS3 demo.
    Demo,
    /// The built-in scene (60 fps, 1280x720).
    Scene,
}

/// How long the scene runs when the settings do not say.
pub const DEFAULT_RUN_SECONDS: f64 = 10.0;
/// The longest [`Settings::run_seconds`].
pub const MAX_RUN_SECONDS: f64 = 24.0 * 3600.0;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            dumps: false,
            dump_dir: PathBuf::from(DEFAULT_DUMP_DIR),
            title_id: None,
            vulkan_module: None,
            run_seconds: None,
            title: TitleChoice::Demo,
            fs_root: PathBuf::from(crate::runtime_platform::DEFAULT_SANDBOX),
            pad_script: None,
            interpreter: false,
            multiplier: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    dumps: Option<bool>,
    dump_dir: Option<PathBuf>,
    title_id: Option<String>,
    vulkan_module: Option<PathBuf>,
    run_seconds: Option<f64>,
    title: Option<TitleChoice>,
    fs_root: Option<PathBuf>,
    pad_script: Option<String>,
    interpreter: Option<bool>,
    multiplier: Option<u8>,
}

/// Settings the payload cannot use, naming the file and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for SettingsError {}

/// Whether `dir` is an absolute folder under `/data/` without `..`.
pub fn is_under_data(dir: &Path) -> bool {
    dir.starts_with("/data")
        && dir.components().count() > 2
        && !dir
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
}

impl Settings {
    /// Parses the settings file's text (`path` only names it in errors).
    pub fn parse(path: &Path, text: &str) -> Result<Settings, SettingsError> {
        let err = |message: String| SettingsError {
            path: path.to_path_buf(),
            message,
        };
        let raw: RawSettings = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        let mut s = Settings::default();
        if let Some(d) = raw.dumps {
            s.dumps = d;
        }
        if let Some(dir) = raw.dump_dir {
            if !is_under_data(&dir) {
                return Err(err(format!(
                    "field dump_dir: {} is not a folder under /data/",
                    dir.display()
                )));
            }
            s.dump_dir = dir;
        }
        if let Some(id) = raw.title_id {
            if !crate::param_json::is_title_id(&id) {
                return Err(err(format!(
                    "field title_id: {id:?} is not a title id like PPSA01234"
                )));
            }
            s.title_id = Some(id);
        }
        if let Some(m) = raw.vulkan_module {
            if !m.is_absolute() {
                return Err(err(format!(
                    "field vulkan_module: {} is not an absolute path",
                    m.display()
                )));
            }
            s.vulkan_module = Some(m);
        }
        if let Some(t) = raw.run_seconds {
            if !(0.0..=MAX_RUN_SECONDS).contains(&t) {
                return Err(err(format!(
                    "field run_seconds: {t} is not from 0 to {MAX_RUN_SECONDS}"
                )));
            }
            s.run_seconds = Some(t);
        }
        if let Some(t) = raw.title {
            s.title = t;
        }
        if let Some(dir) = raw.fs_root {
            if !is_under_data(&dir) {
                return Err(err(format!(
                    "field fs_root: {} is not a folder under /data/",
                    dir.display()
                )));
            }
            s.fs_root = dir;
        }
        s.pad_script = raw.pad_script;
        if let Some(i) = raw.interpreter {
            s.interpreter = i;
        }
        if let Some(m) = raw.multiplier {
            if !(2..=4).contains(&m) {
                return Err(err(format!("field multiplier: {m} is not 2, 3 or 4")));
            }
            s.multiplier = Some(m);
        }
        Ok(s)
    }

    /// Reads the settings from `path`; a missing file gives the defaults.
    pub fn load(path: &Path) -> Result<Settings, SettingsError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Settings::parse(path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(SettingsError {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
        }
    }
}

/// The dump file for a run started at `unix_seconds`, in `dir`.
pub fn dump_file(dir: &Path, unix_seconds: u64) -> PathBuf {
    dir.join(format!(
        "cellport-{unix_seconds}.{}",
        framegen_dump::EXTENSION
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new(SETTINGS_PATH)
    }

    #[test]
    fn defaults_and_fields() {
        assert_eq!(Settings::parse(p(), "{}").unwrap(), Settings::default());
        let s = Settings::parse(
            p(),
            r#"{"dumps":true,"dump_dir":"/data/x/dumps","title_id":"PPSA01234","vulkan_module":"/data/v.sprx","run_seconds":2.5,
                "title":"scene","fs_root":"/data/x/fs","pad_script":"0:;5:right","interpreter":true,"multiplier":3}"#,
        )
        .unwrap();
        assert_eq!(s.title, TitleChoice::Scene);
        assert_eq!(s.fs_root, Path::new("/data/x/fs"));
        assert_eq!(s.pad_script.as_deref(), Some("0:;5:right"));
        assert!(s.interpreter);
        assert_eq!(s.multiplier, Some(3));
        let d = Settings::default();
        assert_eq!((d.title, d.run_seconds), (TitleChoice::Demo, None));
        assert!(is_under_data(&d.fs_root));
        assert!(s.dumps);
        assert_eq!(s.dump_dir, Path::new("/data/x/dumps"));
        assert_eq!(s.title_id.as_deref(), Some("PPSA01234"));
        assert_eq!(s.vulkan_module.as_deref(), Some(Path::new("/data/v.sprx")));
        assert_eq!(s.run_seconds, Some(2.5));
    }

    #[test]
    fn rejects_bad_settings_with_file_and_field() {
        for (text, needle) in [
            (r#"{"dump_dir":"/app0/dumps"}"#, "field dump_dir"),
            (r#"{"dump_dir":"/data"}"#, "field dump_dir"),
            (r#"{"dump_dir":"/data/../etc"}"#, "field dump_dir"),
            (r#"{"title_id":"x"}"#, "field title_id"),
            (r#"{"vulkan_module":"v.sprx"}"#, "field vulkan_module"),
            (r#"{"dumps":"yes"}"#, "invalid type"),
            (r#"{"run_seconds":-1}"#, "field run_seconds"),
            (r#"{"run_seconds":1e9}"#, "field run_seconds"),
            (r#"{"dump":true}"#, "unknown field"),
            (r#"{"title":"gta4"}"#, "unknown variant"),
            (r#"{"fs_root":"/app0/fs"}"#, "field fs_root"),
            (r#"{"multiplier":5}"#, "field multiplier"),
            ("{", "EOF"),
        ] {
            let e = Settings::parse(p(), text).unwrap_err().to_string();
            assert!(e.starts_with(SETTINGS_PATH), "{e}");
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn dump_files_are_in_the_dump_dir() {
        let s = Settings::default();
        assert_eq!(
            dump_file(&s.dump_dir, 1_700_000_000),
            Path::new("/data/cellport/dumps/cellport-1700000000.fgdump")
        );
        assert!(is_under_data(dump_file(&s.dump_dir, 0).parent().unwrap()));
    }

    #[test]
    fn missing_file_is_defaults() {
        let s = Settings::load(Path::new("/nonexistent/cellport/settings.json")).unwrap();
        assert_eq!(s, Settings::default());
    }
}
