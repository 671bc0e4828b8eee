//! Finding the running title's `param.json` and reading what it declares.
//!
//! The PS5 Vulkan driver reads `/app0/sce_sys/param.json` to decide whether
//! to offer 119.88 Hz, but after the jailbreak `/app0` may not lead to the
//! app's folder. The payload sets `PS5VK_PARAM_JSON`, before the driver
//! starts, to the first of these that opens (FACTS.md):
//!
//! 1. the running app's folder as the sandbox mounts it:
//!    `/mnt/sandbox/<TITLE_ID>_000/app0/sce_sys/param.json`;
//! 2. `/app0/sce_sys/param.json`;
//! 3. the install folder: `/user/app/<TITLE_ID>/sce_sys/param.json` (an app
//!    registered with `sceAppInstUtilAppInstallTitleDir`), then
//!    `/data/homebrew/<TITLE_ID>/sce_sys/param.json` (a folder deployed by FTP).

use std::path::{Path, PathBuf};

/// The environment variable the PS5 Vulkan driver reads.
pub const PARAM_JSON_ENV: &str = "PS5VK_PARAM_JSON";

/// The `attribute3` bits that declare high frame rates (119.88 Hz modes).
pub const ATTRIBUTE3_HIGH_FRAME_RATE: u64 = 0x80040;

/// The places to look for `param.json`, in order.
pub fn candidates(title_id: Option<&str>) -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Some(id) = title_id {
        v.push(PathBuf::from(format!(
            "/mnt/sandbox/{id}_000/app0/sce_sys/param.json"
        )));
    }
    v.push(PathBuf::from("/app0/sce_sys/param.json"));
    if let Some(id) = title_id {
        v.push(PathBuf::from(format!("/user/app/{id}/sce_sys/param.json")));
        v.push(PathBuf::from(format!(
            "/data/homebrew/{id}/sce_sys/param.json"
        )));
    }
    v
}

/// The first of `candidates` for which `opens` is true.
pub fn choose(candidates: &[PathBuf], mut opens: impl FnMut(&Path) -> bool) -> Option<&Path> {
    candidates.iter().map(PathBuf::as_path).find(|p| opens(p))
}

/// Whether `id` looks like a PS5 title id (`PPSA` and 5 digits, or any four
/// capitals and 5 digits for homebrew ids).
pub fn is_title_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 9
        && b[..4].iter().all(u8::is_ascii_uppercase)
        && b[4..].iter().all(u8::is_ascii_digit)
}

/// What a title's param.json declares that the payload acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleDeclaration {
    /// `titleId`.
    pub title_id: String,
    /// `attribute3`, 0 when absent.
    pub attribute3: u64,
}

impl TitleDeclaration {
    /// Whether the title declares high frame rates (the driver then offers
    /// 119.88 Hz).
    pub fn declares_120hz(&self) -> bool {
        self.attribute3 & ATTRIBUTE3_HIGH_FRAME_RATE == ATTRIBUTE3_HIGH_FRAME_RATE
    }
}

/// A param.json the payload cannot use, naming the file and field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamJsonError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ParamJsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ParamJsonError {}

/// Reads the declaration from the text of `path`.
pub fn parse(path: &Path, text: &str) -> Result<TitleDeclaration, ParamJsonError> {
    let err = |message: String| ParamJsonError {
        path: path.to_path_buf(),
        message,
    };
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| err(format!("not valid JSON: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| err("the top level is not an object".into()))?;
    let title_id = match obj.get("titleId") {
        Some(serde_json::Value::String(s)) if is_title_id(s) => s.clone(),
        Some(other) => {
            return Err(err(format!(
                "field titleId: {other} is not a title id like PPSA01234"
            )));
        }
        None => return Err(err("field titleId is missing".into())),
    };
    let attribute3 = match obj.get("attribute3") {
        None => 0,
        Some(serde_json::Value::Number(n)) => n.as_u64().ok_or_else(|| {
            err(format!(
                "field attribute3: {n} is not a non-negative integer"
            ))
        })?,
        Some(other) => return Err(err(format!("field attribute3: {other} is not a number"))),
    };
    Ok(TitleDeclaration {
        title_id,
        attribute3,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_order() {
        let c = candidates(Some("PPSA01234"));
        let s: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            s,
            [
                "/mnt/sandbox/PPSA01234_000/app0/sce_sys/param.json",
                "/app0/sce_sys/param.json",
                "/user/app/PPSA01234/sce_sys/param.json",
                "/data/homebrew/PPSA01234/sce_sys/param.json",
            ]
        );
        assert_eq!(
            candidates(None),
            [PathBuf::from("/app0/sce_sys/param.json")]
        );
    }

    #[test]
    fn first_that_opens() {
        let c = candidates(Some("PPSA01234"));
        let got = choose(&c, |p| p.starts_with("/user") || p.starts_with("/app0"));
        assert_eq!(got, Some(Path::new("/app0/sce_sys/param.json")));
        let got = choose(&c, |p| p.starts_with("/data"));
        assert_eq!(
            got,
            Some(Path::new("/data/homebrew/PPSA01234/sce_sys/param.json"))
        );
        assert_eq!(choose(&c, |_| false), None);
        let mut asked = Vec::new();
        let _ = choose(&c, |p| {
            asked.push(p.to_path_buf());
            true
        });
        assert_eq!(asked.len(), 1, "stops at the first that opens");
    }

    #[test]
    fn declaration() {
        let p = Path::new("/app0/sce_sys/param.json");
        let d = parse(p, r#"{"titleId":"PPSA01234","attribute3":524352}"#).unwrap();
        assert!(d.declares_120hz());
        let d = parse(p, r#"{"titleId":"PPSA01234","attribute3":64}"#).unwrap();
        assert!(!d.declares_120hz(), "both bits are needed");
        let d = parse(p, r#"{"titleId":"PPSA01234"}"#).unwrap();
        assert!(!d.declares_120hz());
    }

    #[test]
    fn bad_param_json_names_file_and_field() {
        let p = Path::new("/app0/sce_sys/param.json");
        let e = parse(p, "{").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/app0/sce_sys/param.json: not valid JSON"),
            "{e}"
        );
        let e = parse(p, r#"{"titleId":"PPSA01234","attribute3":"524352"}"#).unwrap_err();
        assert!(e.to_string().contains("field attribute3"), "{e}");
        let e = parse(p, r#"{"titleId":"ppsa1"}"#).unwrap_err();
        assert!(e.to_string().contains("field titleId"), "{e}");
        let e = parse(p, r#"{"attribute3":0}"#).unwrap_err();
        assert!(e.to_string().contains("titleId is missing"), "{e}");
        let e = parse(p, "[]").unwrap_err();
        assert!(e.to_string().contains("not an object"), "{e}");
    }
}
