//! `--check`: validating an app folder, every problem at once.
//!
//! What is checked (each problem names the file and the field):
//! - names and links ([`crate::folder`]): nothing escapes the folder;
//! - `sce_sys/param.json` ([`crate::param_json`]): parses, required fields
//!   with the right types and formats, `attribute3` declaring 120 Hz when
//!   the title asks for 119.88 Hz;
//! - `sce_sys/icon0.png`: a PNG, 512×512 (read from its header);
//! - the payload (`eboot.elf` unless the packaging config says otherwise):
//!   present, and an x86-64 ELF executable or shared object;
//! - the folder's name, when it is a title id, equals `titleId`.

use crate::folder::{self, Entry, Kind};
use crate::param_json::{self, ParamSummary};
use crate::{ICON_SIZE, ICON0, PARAM_JSON, is_title_id};
use std::fmt;
use std::fs;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// One problem: the file, the field (a JSON path, a header field) when
/// there is one, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file (or folder) the problem is in.
    pub file: PathBuf,
    /// The field: a JSON path such as `$.contentId`, or a header field.
    pub field: Option<String>,
    /// What is wrong and, where it helps, what to do.
    pub message: String,
}

impl Problem {
    /// A problem with a whole file.
    pub fn file(file: &Path, message: impl Into<String>) -> Problem {
        Problem {
            file: file.to_path_buf(),
            field: None,
            message: message.into(),
        }
    }

    /// A problem with one field of a file.
    pub fn field(file: &Path, field: &str, message: impl Into<String>) -> Problem {
        Problem {
            file: file.to_path_buf(),
            field: Some(field.to_owned()),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: {field}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// What the check needs to know beyond the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// Whether the title asks for the 119.88 Hz display mode (the packaging
    /// config's `refresh_rate`, or `--refresh-rate`).
    pub wants_119_88_hz: bool,
    /// The payload's file name in the folder (`eboot.elf`).
    pub payload_name: String,
}

/// The outcome of a check.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// Every problem found; empty when the folder is good.
    pub problems: Vec<Problem>,
    /// What param.json declares (as far as it could be read).
    pub param: ParamSummary,
    /// The folder's entries, in order (those without problems).
    pub entries: Vec<Entry>,
}

impl CheckReport {
    /// Whether no problem was found.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks the app folder `dir`.
pub fn check_folder(dir: &Path, opts: &CheckOptions) -> CheckReport {
    if !dir.is_dir() {
        let problems = vec![Problem::file(
            dir,
            "is not a folder (an app folder is <TITLE_ID>/)",
        )];
        return CheckReport {
            problems,
            ..CheckReport::default()
        };
    }
    let (entries, mut problems) = folder::walk(dir);
    let find = |rel: &str| {
        entries
            .iter()
            .find(|e| e.rel == rel && e.kind == Kind::File)
    };

    let mut param = ParamSummary::default();
    let param_path = dir.join(PARAM_JSON);
    match find(PARAM_JSON) {
        None if !problems.iter().any(|p| p.file == param_path) => problems.push(Problem::file(
            &param_path,
            "is missing: the console reads the title id, name and 120 Hz attribute from it",
        )),
        None => {}
        Some(e) => match fs::read(&e.path) {
            Err(err) => problems.push(Problem::file(&param_path, format!("cannot read: {err}"))),
            Ok(bytes) => match String::from_utf8(bytes) {
                Err(err) => problems.push(Problem::field(
                    &param_path,
                    "$",
                    format!(
                        "not UTF-8 (invalid byte at offset {}); param.json is UTF-8 JSON",
                        err.utf8_error().valid_up_to()
                    ),
                )),
                Ok(text) => {
                    param =
                        param_json::check(&param_path, &text, opts.wants_119_88_hz, &mut problems)
                }
            },
        },
    }

    let icon_path = dir.join(ICON0);
    match find(ICON0) {
        None if !problems.iter().any(|p| p.file == icon_path) => problems.push(Problem::file(
            &icon_path,
            format!("is missing: the launcher shows it; needs a {ICON_SIZE}×{ICON_SIZE} PNG"),
        )),
        None => {}
        Some(e) => check_icon(&icon_path, &e.path, &mut problems),
    }

    let payload_path = dir.join(&opts.payload_name);
    match find(&opts.payload_name) {
        None if !problems.iter().any(|p| p.file == payload_path) => problems.push(Problem::file(
            &payload_path,
            "is missing: the homebrew launcher runs this payload",
        )),
        None => {}
        Some(e) if opts.payload_name.ends_with(".elf") => {
            check_elf(&payload_path, &e.path, &mut problems)
        }
        Some(_) => {}
    }

    if let (Some(name), Some(id)) = (
        dir.file_name().and_then(|n| n.to_str()),
        param.title_id.as_deref(),
    ) && is_title_id(name)
        && name != id
    {
        problems.push(Problem::field(
            &param_path,
            "$.titleId",
            format!(
                "is {id}, but the folder is named {name}: the console finds the app by \
                 <TITLE_ID>/, so rename one of them"
            ),
        ));
    }

    CheckReport {
        problems,
        param,
        entries,
    }
}

/// Checks that `path` (shown as `shown`) is a PNG of the icon's size.
fn check_icon(shown: &Path, path: &Path, problems: &mut Vec<Problem>) {
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            problems.push(Problem::file(shown, format!("cannot read: {e}")));
            return;
        }
    };
    match png::Decoder::new(BufReader::new(file)).read_info() {
        Err(e) => problems.push(Problem::file(shown, format!("not a readable PNG: {e}"))),
        Ok(reader) => {
            let info = reader.info();
            if (info.width, info.height) != (ICON_SIZE, ICON_SIZE) {
                problems.push(Problem::field(
                    shown,
                    "IHDR width×height",
                    format!(
                        "is {}×{} pixels, needs {ICON_SIZE}×{ICON_SIZE}",
                        info.width, info.height
                    ),
                ));
            }
        }
    }
}

/// Checks that `path` is an x86-64 ELF executable or shared object.
fn check_elf(shown: &Path, path: &Path, problems: &mut Vec<Problem>) {
    let mut header = [0u8; 64];
    let n = match fs::File::open(path).and_then(|mut f| read_up_to(&mut f, &mut header)) {
        Ok(n) => n,
        Err(e) => {
            problems.push(Problem::file(shown, format!("cannot read: {e}")));
            return;
        }
    };
    if n < 4 || header[..4] != *b"\x7fELF" {
        problems.push(Problem::field(
            shown,
            "ELF header e_ident",
            format!(
                "does not start with \\x7fELF ({:02x?}): not an ELF payload",
                &header[..n.min(4)]
            ),
        ));
        return;
    }
    if n < 64 {
        problems.push(Problem::field(
            shown,
            "ELF header",
            format!("is {n} bytes, a 64-bit ELF header is 64"),
        ));
        return;
    }
    let mut bad = |field: &str, message: String| {
        problems.push(Problem::field(
            shown,
            &format!("ELF header {field}"),
            message,
        ));
    };
    if header[4] != 2 {
        bad("EI_CLASS", format!("is {}, needs 2 (64-bit)", header[4]));
    }
    if header[5] != 1 {
        bad(
            "EI_DATA",
            format!("is {}, needs 1 (little-endian)", header[5]),
        );
    }
    let e_type = u16::from_le_bytes([header[16], header[17]]);
    if e_type != 2 && e_type != 3 {
        bad(
            "e_type",
            format!("is {e_type}, needs 2 (ET_EXEC) or 3 (ET_DYN, a PIE payload)"),
        );
    }
    let e_machine = u16::from_le_bytes([header[18], header[19]]);
    if e_machine != 62 {
        bad(
            "e_machine",
            format!("is {e_machine}, needs 62 (x86-64, the PS5's CPU)"),
        );
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
