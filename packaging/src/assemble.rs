//! Assembling the app folder, its archive and its manifest.
//!
//! Output, in the output folder (`out/package/` by default):
//!
//! - `<TITLE_ID>/`: the app folder (payload, `sce_sys/param.json`,
//!   `sce_sys/icon0.png`, the declared run-time files);
//! - `<TITLE_ID>.tar.zst`: the folder as a ustar archive ([`crate::tar`],
//!   fixed metadata, sorted entries) compressed by zstd at level
//!   [`ZSTD_LEVEL`] with a checksum, single-threaded;
//! - `<TITLE_ID>.manifest.json`: the size and SHA-256 of every file and of
//!   the archive.
//!
//! The same inputs give the same bytes: nothing from the machine (times,
//! owners, source permissions, absolute paths) reaches the archive or the
//! manifest. The folder is first assembled in a staging folder and checked
//! ([`crate::check`]); problems are reported against the source files and
//! nothing is replaced.

use crate::check::{CheckOptions, Problem, check_folder};
use crate::config::{Config, RefreshRate};
use crate::folder::{self, Kind};
use crate::tar::{MODE_EXEC, MODE_FILE, TarWriter};
use crate::{ICON0, PARAM_JSON};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The zstd level of the archive (fixed: part of what makes it
/// reproducible).
pub const ZSTD_LEVEL: i32 = 12;
/// The manifest's `format` value.
pub const MANIFEST_FORMAT: &str = "cellport-app-folder-manifest/1";
const STAGING: &str = ".cellport-staging";

/// One file in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManifestFile {
    /// The path as in the archive: `<TITLE_ID>/...`.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, lower-case hex.
    pub sha256: String,
}

/// The manifest written next to the archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    /// The title id (the folder's name).
    pub title_id: String,
    /// The archive's name, size and SHA-256.
    pub archive: ManifestFile,
    /// Every file of the folder, in archive order.
    pub files: Vec<ManifestFile>,
}

/// What [`package`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageOutput {
    /// The title id.
    pub title_id: String,
    /// The app folder.
    pub folder: PathBuf,
    /// The archive.
    pub archive: PathBuf,
    /// The manifest file.
    pub manifest_path: PathBuf,
    /// The manifest's contents.
    pub manifest: Manifest,
}

/// Why packaging failed.
#[derive(Debug)]
pub enum PackageError {
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The assembled folder does not pass the check.
    Invalid(Vec<Problem>),
    /// The output folder holds something packaging will not replace.
    Refused(String),
}

impl fmt::Display for PackageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackageError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            PackageError::Invalid(p) => {
                write!(f, "the app folder has {} problem(s):", p.len())?;
                for p in p {
                    write!(f, "\n  {p}")?;
                }
                Ok(())
            }
            PackageError::Refused(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for PackageError {}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> PackageError + '_ {
    move |source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The check options the config implies.
pub fn check_options(config: &Config) -> CheckOptions {
    CheckOptions {
        wants_119_88_hz: config.refresh_rate == RefreshRate::Hz119_88,
        payload_name: config.payload_name.clone(),
    }
}

/// Assembles the app folder from `payload` and the config's files in
/// `out_dir`, checks it, and writes its archive and manifest.
pub fn package(
    config: &Config,
    payload: &Path,
    out_dir: &Path,
) -> Result<PackageOutput, PackageError> {
    fs::create_dir_all(out_dir).map_err(io_err(out_dir))?;
    let staging = out_dir.join(STAGING);
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
    }
    // Where each file of the folder comes from, for messages.
    let mut sources: BTreeMap<String, PathBuf> = BTreeMap::new();
    sources.insert(config.payload_name.clone(), payload.to_path_buf());
    sources.insert(PARAM_JSON.into(), config.sce_sys.join("param.json"));
    sources.insert(ICON0.into(), config.sce_sys.join("icon0.png"));
    for f in &config.run_time_files {
        sources.insert(f.dest.clone(), f.source.clone());
    }
    let mut missing = Vec::new();
    for (rel, src) in &sources {
        if !src.is_file() {
            missing.push(Problem::file(
                src,
                format!("does not exist (it becomes <TITLE_ID>/{rel})"),
            ));
        }
    }
    if !missing.is_empty() {
        return Err(PackageError::Invalid(missing));
    }
    for (rel, src) in &sources {
        let dest = staging.join(rel);
        if let Some(parent) = dest.parent() {
            fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        fs::copy(src, &dest).map_err(io_err(src))?;
        let mode = if *rel == config.payload_name {
            MODE_EXEC
        } else {
            MODE_FILE
        };
        fs::set_permissions(&dest, fs::Permissions::from_mode(mode)).map_err(io_err(&dest))?;
    }

    let report = check_folder(&staging, &check_options(config));
    if !report.is_ok() {
        let problems = report
            .problems
            .into_iter()
            .map(|mut p| {
                if let Ok(rel) = p.file.strip_prefix(&staging)
                    && let Some(src) = rel.to_str().and_then(|r| sources.get(r))
                {
                    p.file = src.clone();
                }
                p
            })
            .collect();
        let _ = fs::remove_dir_all(&staging);
        return Err(PackageError::Invalid(problems));
    }
    let title_id = report
        .param
        .title_id
        .expect("a folder that passes the check has a title id");

    let folder = out_dir.join(&title_id);
    if folder.exists() {
        let ours = folder.join(PARAM_JSON).is_file()
            || fs::read_dir(&folder)
                .map(|mut d| d.next().is_none())
                .unwrap_or(false);
        if !ours {
            let _ = fs::remove_dir_all(&staging);
            return Err(PackageError::Refused(format!(
                "{} exists and is not an app folder (no {PARAM_JSON}); move it away or choose \
                 another --out",
                folder.display()
            )));
        }
        fs::remove_dir_all(&folder).map_err(io_err(&folder))?;
    }
    fs::rename(&staging, &folder).map_err(io_err(&folder))?;

    let archive = out_dir.join(format!("{title_id}.tar.zst"));
    let files = write_archive(&folder, &title_id, &config.payload_name, &archive)?;
    let (archive_size, archive_sha256) = hash_file(&archive)?;
    let manifest = Manifest {
        format: MANIFEST_FORMAT.into(),
        title_id: title_id.clone(),
        archive: ManifestFile {
            path: format!("{title_id}.tar.zst"),
            size: archive_size,
            sha256: archive_sha256,
        },
        files,
    };
    let manifest_path = out_dir.join(format!("{title_id}.manifest.json"));
    let mut text = serde_json::to_string_pretty(&manifest).expect("the manifest serialises");
    text.push('\n');
    write_atomically(&manifest_path, text.as_bytes())?;
    Ok(PackageOutput {
        title_id,
        folder,
        archive,
        manifest_path,
        manifest,
    })
}

/// Writes the archive of `folder` (entries under `<title_id>/`) and returns
/// the manifest entries of its files.
fn write_archive(
    folder: &Path,
    title_id: &str,
    payload_name: &str,
    archive: &Path,
) -> Result<Vec<ManifestFile>, PackageError> {
    let (entries, problems) = folder::walk(folder);
    if !problems.is_empty() {
        return Err(PackageError::Invalid(problems));
    }
    let tmp = archive.with_extension("zst.tmp");
    let file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
    let mut files = Vec::new();
    let result = (|| -> io::Result<()> {
        let mut enc = zstd::stream::Encoder::new(io::BufWriter::new(file), ZSTD_LEVEL)?;
        enc.include_checksum(true)?;
        let mut tar = TarWriter::new(enc);
        tar.add_dir(title_id)?;
        for e in &entries {
            let path = format!("{title_id}/{}", e.rel);
            match e.kind {
                Kind::Dir => tar.add_dir(&path)?,
                Kind::File => {
                    let mode = if e.rel == payload_name {
                        MODE_EXEC
                    } else {
                        MODE_FILE
                    };
                    let mut reader = HashingReader::new(fs::File::open(&e.path)?);
                    tar.add_file(&path, mode, e.size, &mut reader)?;
                    files.push(ManifestFile {
                        path,
                        size: e.size,
                        sha256: reader.hex(),
                    });
                }
            }
        }
        let enc = tar.finish()?;
        let mut out = enc.finish()?;
        out.flush()?;
        out.into_inner()
            .map_err(io::IntoInnerError::into_error)?
            .sync_all()
    })();
    result.map_err(io_err(&tmp))?;
    fs::rename(&tmp, archive).map_err(io_err(archive))?;
    Ok(files)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), PackageError> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes).map_err(io_err(&tmp))?;
    fs::rename(&tmp, path).map_err(io_err(path))
}

/// The size and SHA-256 (hex) of a file.
pub fn hash_file(path: &Path) -> Result<(u64, String), PackageError> {
    let mut r = HashingReader::new(fs::File::open(path).map_err(io_err(path))?);
    io::copy(&mut r, &mut io::sink()).map_err(io_err(path))?;
    Ok((r.len, r.hex()))
}

/// A reader that hashes what passes through it.
struct HashingReader<R> {
    inner: R,
    hasher: Sha256,
    len: u64,
}

impl<R: Read> HashingReader<R> {
    fn new(inner: R) -> Self {
        HashingReader {
            inner,
            hasher: Sha256::new(),
            len: 0,
        }
    }

    fn hex(&self) -> String {
        hex(&self.hasher.clone().finalize())
    }
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
