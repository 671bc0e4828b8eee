//! Walking an app folder: its directories and files in a fixed order, and
//! every name or link that could escape the folder or break on the console.
//!
//! The order is the byte order of the `/`-separated relative paths, so a
//! directory comes before its contents; archives, manifests and uploads all
//! use it, which keeps them reproducible.
//!
//! Rules (each broken one is a [`Problem`] naming the path):
//! - names are UTF-8 without control characters, `\`, or `..` anywhere in
//!   them (some console FTP servers resolve or refuse such names, and in a
//!   path `..` climbs out of the folder);
//! - a symbolic link must be relative, lead to a regular file, and stay
//!   inside the folder; its target's contents are what gets archived and
//!   uploaded (the console side has no links);
//! - nothing but directories, regular files and such links.

use crate::check::Problem;
use std::fs;
use std::path::{Path, PathBuf};

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A directory.
    Dir,
    /// A regular file (or a link to one inside the folder).
    File,
}

/// One directory or file of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The path relative to the folder, `/`-separated, no leading `/`.
    pub rel: String,
    /// Where to read it on this machine (a link's target for a link).
    pub path: PathBuf,
    /// Directory or file.
    pub kind: Kind,
    /// The size in bytes (0 for a directory).
    pub size: u64,
}

/// The entries of `root` in order, and the problems found on the way. An
/// entry with a problem is left out of the list.
pub fn walk(root: &Path) -> (Vec<Entry>, Vec<Problem>) {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    let canonical_root = match fs::canonicalize(root) {
        Ok(p) => p,
        Err(e) => {
            problems.push(Problem::file(root, format!("cannot open the folder: {e}")));
            return (entries, problems);
        }
    };
    walk_dir(root, &canonical_root, "", &mut entries, &mut problems);
    entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    (entries, problems)
}

/// Whether `name` is acceptable as one path component in an app folder;
/// the reason when it is not.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        Some("an empty name".into())
    } else if name.contains("..") {
        Some(format!(
            "the name {name:?} contains \"..\": in a path it climbs out of the folder, and \
             console FTP servers may refuse or mis-resolve it; rename it"
        ))
    } else if name.contains('\\') {
        Some(format!("the name {name:?} contains a backslash; rename it"))
    } else if name.chars().any(char::is_control) {
        Some(format!(
            "the name {name:?} contains a control character; rename it"
        ))
    } else {
        None
    }
}

/// Whether `rel` is a relative `/`-separated path of acceptable names; the
/// reason when it is not.
pub fn rel_path_problem(rel: &str) -> Option<String> {
    if rel.starts_with('/') || Path::new(rel).is_absolute() {
        return Some(format!(
            "{rel:?} is absolute; paths in an app folder are relative to it"
        ));
    }
    rel.split('/').find_map(name_problem)
}

fn walk_dir(
    dir: &Path,
    canonical_root: &Path,
    prefix: &str,
    entries: &mut Vec<Entry>,
    problems: &mut Vec<Problem>,
) {
    let read = match fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            problems.push(Problem::file(dir, format!("cannot list the folder: {e}")));
            return;
        }
    };
    let mut children = Vec::new();
    for item in read {
        match item {
            Ok(item) => children.push(item),
            Err(e) => problems.push(Problem::file(dir, format!("cannot list the folder: {e}"))),
        }
    }
    children.sort_by_key(|c| c.file_name());
    for child in children {
        let path = child.path();
        let Some(name) = child.file_name().to_str().map(str::to_owned) else {
            problems.push(Problem::file(
                &path,
                "the name is not UTF-8; FTP servers and the console expect UTF-8 names",
            ));
            continue;
        };
        if let Some(why) = name_problem(&name) {
            problems.push(Problem::file(&path, why));
            continue;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = match fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) => {
                problems.push(Problem::file(&path, format!("cannot read: {e}")));
                continue;
            }
        };
        let ft = meta.file_type();
        if ft.is_dir() {
            entries.push(Entry {
                rel: rel.clone(),
                path: path.clone(),
                kind: Kind::Dir,
                size: 0,
            });
            walk_dir(&path, canonical_root, &rel, entries, problems);
        } else if ft.is_file() {
            entries.push(Entry {
                rel,
                path,
                kind: Kind::File,
                size: meta.len(),
            });
        } else if ft.is_symlink() {
            match check_link(&path, canonical_root) {
                Ok((target, size)) => {
                    entries.push(Entry {
                        rel,
                        path: target,
                        kind: Kind::File,
                        size,
                    });
                }
                Err(why) => problems.push(Problem::file(&path, why)),
            }
        } else {
            problems.push(Problem::file(
                &path,
                "not a regular file, folder or link (a device, socket or pipe); remove it",
            ));
        }
    }
}

/// Where a link leads, if it is acceptable: relative, to a regular file,
/// inside the folder.
fn check_link(link: &Path, canonical_root: &Path) -> Result<(PathBuf, u64), String> {
    let target = fs::read_link(link).map_err(|e| format!("cannot read the link: {e}"))?;
    if target.is_absolute() {
        return Err(format!(
            "a link to the absolute path {}: it escapes the folder (and means something else \
             on the console); copy the file in instead",
            target.display()
        ));
    }
    let resolved = fs::canonicalize(link)
        .map_err(|e| format!("a link to {} which does not open: {e}", target.display()))?;
    if !resolved.starts_with(canonical_root) {
        return Err(format!(
            "a link to {} which resolves to {}, outside the folder; copy the file in instead",
            target.display(),
            resolved.display()
        ));
    }
    let meta =
        fs::metadata(&resolved).map_err(|e| format!("cannot read the link's target: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "a link to {}, which is not a regular file; copy the folder in instead",
            target.display()
        ));
    }
    Ok((resolved, meta.len()))
}
