//! Getting the payload: running the PS5 build (`./x ps5`, which runs
//! `ps5/build.sh`) and reading the path it prints.
//!
//! The build prints the payload's path as the last line of its standard
//! output; its progress and errors go to standard error, which passes
//! through to the user.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why the payload could not be had.
#[derive(Debug)]
pub enum PayloadError {
    /// The build command could not be started.
    Spawn {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The build command failed.
    Failed {
        /// The command.
        command: String,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
    /// The build printed no path, or a path that is not a file.
    NoPayload {
        /// The command.
        command: String,
        /// What it printed last, if anything.
        printed: Option<String>,
    },
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadError::Spawn { command, source } => {
                write!(f, "cannot run the payload build `{command}`: {source}")
            }
            PayloadError::Failed { command, status } => write!(
                f,
                "the payload build `{command}` failed ({status}); its messages are above \
                 (or package a payload you have with --payload FILE)"
            ),
            PayloadError::NoPayload {
                command,
                printed: None,
            } => {
                write!(f, "the payload build `{command}` printed no payload path")
            }
            PayloadError::NoPayload {
                command,
                printed: Some(p),
            } => write!(
                f,
                "the payload build `{command}` printed {p:?} last, which is not a file; it \
                 must print the payload's path as its last line"
            ),
        }
    }
}

impl std::error::Error for PayloadError {}

/// The default build command: `<root>/x ps5`.
pub fn default_build_command(root: &Path) -> String {
    format!(
        "'{}' ps5",
        root.join("x").display().to_string().replace('\'', r"'\''")
    )
}

/// Runs `command` (through `sh -c`, in `root`) and returns the payload
/// path it printed last (relative paths are taken from `root`).
pub fn build(root: &Path, command: &str) -> Result<PathBuf, PayloadError> {
    log::info!("building the payload: {command}");
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|source| PayloadError::Spawn {
            command: command.into(),
            source,
        })?;
    if !out.status.success() {
        return Err(PayloadError::Failed {
            command: command.into(),
            status: out.status,
        });
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(str::to_owned);
    let Some(last) = last else {
        return Err(PayloadError::NoPayload {
            command: command.into(),
            printed: None,
        });
    };
    let path = root.join(&last);
    if !path.is_file() {
        return Err(PayloadError::NoPayload {
            command: command.into(),
            printed: Some(last),
        });
    }
    Ok(path)
}
