//! The schema of `sce_sys/param.json`, as far as the console and the
//! homebrew tools are known to read it (FACTS.md, "PS5: app folder,
//! param.json, install").
//!
//! Required: `titleId` (`PPSA` + 5 digits), `contentId` (36 characters,
//! `XXYYYY-PPSA12345_00-<16 capitals or digits>`, its title id equal to
//! `titleId`), `contentVersion` (`NN.NNN.NNN`), `masterVersion` (`NN.NN`),
//! `applicationCategoryType` (an integer, 0 = native game),
//! `localizedParameters` (`defaultLanguage` and that language's
//! `titleName`), and `attribute3` with the bits 0x80040 when the title asks
//! for 119.88 Hz. Optional fields seen in working homebrew are type-checked
//! when present. Every problem is reported, each with its JSON path.

use crate::check::Problem;
use crate::{ATTRIBUTE3_HIGH_FRAME_RATE, REFUSED_120HZ_ERROR, is_title_id};
use serde_json::{Map, Value};
use std::path::Path;

/// A content id as an example in messages.
pub const CONTENT_ID_EXAMPLE: &str = "IV0000-PPSA01234_00-ABCDEFGHIJ012345";

/// What a param.json declares that packaging and deploying act on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamSummary {
    /// `titleId`, when it is a valid title id.
    pub title_id: Option<String>,
    /// The default language's `titleName`, when present.
    pub title_name: Option<String>,
    /// `attribute3`, when it is a non-negative integer.
    pub attribute3: Option<u64>,
}

/// A JSON path such as `$.localizedParameters["en-US"].titleName`.
pub fn json_path(parts: &[&str]) -> String {
    let mut s = String::from("$");
    for p in parts {
        let plain = !p.is_empty()
            && p.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain {
            s.push('.');
            s.push_str(p);
        } else {
            s.push_str(&format!("[{}]", Value::String((*p).to_owned())));
        }
    }
    s
}

/// How a JSON value is described in messages: its type and, for scalars,
/// its value.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("an integer ({n})"),
        Value::Number(n) => format!("a number with a fraction ({n})"),
        Value::String(s) => format!("a string ({s:?})"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Checks the text of a param.json; problems go to `problems`, each naming
/// `file` and a JSON path. `wants_119_88_hz`: whether the title asks for
/// the 119.88 Hz display mode (then `attribute3` must declare it).
pub fn check(
    file: &Path,
    text: &str,
    wants_119_88_hz: bool,
    problems: &mut Vec<Problem>,
) -> ParamSummary {
    let mut summary = ParamSummary::default();
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            problems.push(Problem::field(
                file,
                "$",
                format!(
                    "not valid JSON at line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ),
            ));
            return summary;
        }
    };
    let Some(obj) = root.as_object() else {
        problems.push(Problem::field(
            file,
            "$",
            format!("the top level is {}, needs an object", describe(&root)),
        ));
        return summary;
    };
    let mut c = Checker {
        file,
        obj,
        problems,
    };

    // titleId
    if let Some(s) = c.string("titleId", true) {
        if is_title_id(s) {
            summary.title_id = Some(s.to_owned());
        } else {
            c.bad(
                "titleId",
                format!("is {s:?}, needs PPSA and five digits (like PPSA01234)"),
            );
        }
    }

    // contentId
    if let Some(s) = c.string("contentId", true) {
        let title = summary.title_id.clone();
        for why in content_id_problems(s, title.as_deref()) {
            c.bad("contentId", why);
        }
    }

    // Versions.
    if let Some(s) = c.string("contentVersion", true)
        && !digits_pattern(s, &[2, 3, 3])
    {
        c.bad(
            "contentVersion",
            format!("is {s:?}, needs NN.NNN.NNN (like \"01.000.000\")"),
        );
    }
    if let Some(s) = c.string("masterVersion", true)
        && !digits_pattern(s, &[2, 2])
    {
        c.bad(
            "masterVersion",
            format!("is {s:?}, needs NN.NN (like \"01.00\")"),
        );
    }

    // applicationCategoryType: 0 is a native game.
    c.integer("applicationCategoryType", true);

    // localizedParameters
    summary.title_name = c.localized_parameters();

    // attribute3 and 120 Hz.
    summary.attribute3 = c.integer("attribute3", wants_119_88_hz);
    if wants_119_88_hz && let Some(a3) = summary.attribute3 {
        let missing = ATTRIBUTE3_HIGH_FRAME_RATE & !a3;
        if missing != 0 {
            c.bad(
                "attribute3",
                format!(
                    "is {a3} ({a3:#x}), missing bit{} {}: the title asks for 119.88 Hz, and the \
                     PS5 Vulkan drivers offer the 119.88 Hz display mode only when attribute3 \
                     has all of {ATTRIBUTE3_HIGH_FRAME_RATE:#x}; without them the console refuses \
                     120 Hz ({REFUSED_120HZ_ERROR:#x}) and the title runs at 59.94 Hz. Set \
                     \"attribute3\": {} ({:#x}), then register the app again",
                    if missing.count_ones() > 1 { "s" } else { "" },
                    bit_list(missing),
                    a3 | ATTRIBUTE3_HIGH_FRAME_RATE,
                    a3 | ATTRIBUTE3_HIGH_FRAME_RATE,
                ),
            );
        }
    }

    // Optional fields seen in working homebrew, type-checked when present.
    for key in [
        "attribute",
        "attribute2",
        "contentBadgeType",
        "downloadDataSize",
    ] {
        c.integer(key, false);
    }
    for key in ["applicationDrmType", "conceptId", "versionFileUri"] {
        c.string(key, false);
    }
    for key in ["requiredSystemSoftwareVersion", "sdkVersion"] {
        if let Some(s) = c.string(key, false)
            && !is_hex_u64(s)
        {
            c.bad(
                key,
                format!("is {s:?}, needs 0x and 16 hex digits (like \"0x0000000000000000\")"),
            );
        }
    }
    for key in ["gameIntent", "pubtools"] {
        c.object(key, false);
    }
    if let Some(age) = c.object("ageLevel", false) {
        if !age.contains_key("default") {
            c.bad(
                "ageLevel",
                "has no \"default\" (the age level for every region not listed)",
            );
        }
        for (k, v) in age {
            if !v.is_u64() {
                let path = json_path(&["ageLevel", k]);
                c.problems.push(Problem::field(
                    file,
                    &path,
                    format!("is {}, needs a non-negative integer", describe(v)),
                ));
            }
        }
    }
    summary
}

/// The problems of a content id, given the (valid) title id it must carry.
pub fn content_id_problems(s: &str, title_id: Option<&str>) -> Vec<String> {
    let shape = format!("XXYYYY-PPSA12345_00-<16 capitals or digits>, like {CONTENT_ID_EXAMPLE}");
    let n = s.chars().count();
    if n != 36 {
        return vec![format!("is {s:?}, {n} characters; needs 36 ({shape})")];
    }
    if !s.is_ascii() {
        return vec![format!("is {s:?}, has non-ASCII characters; needs {shape}")];
    }
    let b = s.as_bytes();
    let mut out = Vec::new();
    let part = |range: std::ops::Range<usize>| &s[range];
    if !(b[..2].iter().all(u8::is_ascii_uppercase) && b[2..6].iter().all(u8::is_ascii_digit)) {
        out.push(format!(
            "characters 1-6 are {:?}, need two capitals and four digits (the publisher code, \
             like IV0000); shape {shape}",
            part(0..6)
        ));
    }
    if b[6] != b'-' || b[16] != b'_' || b[19] != b'-' {
        out.push(format!(
            "is {s:?}: needs '-' at character 7, '_' at 17 and '-' at 20; shape {shape}"
        ));
    }
    let embedded = part(7..16);
    if !is_title_id(embedded) {
        out.push(format!(
            "characters 8-16 are {embedded:?}, need the title id (PPSA and five digits); \
             shape {shape}"
        ));
    } else if let Some(t) = title_id
        && t != embedded
    {
        out.push(format!(
            "carries the title id {embedded}, but titleId is {t}: they must be the same"
        ));
    }
    if !b[17..19].iter().all(u8::is_ascii_digit) {
        out.push(format!(
            "characters 18-19 are {:?}, need two digits (like 00)",
            part(17..19)
        ));
    }
    if !b[20..]
        .iter()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    {
        out.push(format!(
            "the label (characters 21-36) is {:?}, needs 16 capitals or digits",
            part(20..36)
        ));
    }
    out
}

/// Whether `s` is groups of digits of the given lengths joined by dots.
fn digits_pattern(s: &str, groups: &[usize]) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == groups.len()
        && parts
            .iter()
            .zip(groups)
            .all(|(p, &n)| p.len() == n && p.bytes().all(|c| c.is_ascii_digit()))
}

fn is_hex_u64(s: &str) -> bool {
    s.len() == 18 && s.starts_with("0x") && s[2..].bytes().all(|c| c.is_ascii_hexdigit())
}

/// `0x80000 and 0x40` for a mask.
fn bit_list(mask: u64) -> String {
    let bits: Vec<String> = (0..64)
        .filter(|i| mask >> i & 1 == 1)
        .rev()
        .map(|i| format!("{:#x}", 1u64 << i))
        .collect();
    bits.join(" and ")
}

struct Checker<'a> {
    file: &'a Path,
    obj: &'a Map<String, Value>,
    problems: &'a mut Vec<Problem>,
}

impl<'a> Checker<'a> {
    fn bad(&mut self, key: &str, message: impl Into<String>) {
        self.problems
            .push(Problem::field(self.file, &json_path(&[key]), message));
    }

    fn get(&mut self, key: &str, required: bool, needs: &str) -> Option<&'a Value> {
        let v = self.obj.get(key);
        if v.is_none() && required {
            self.bad(key, format!("is missing; needs {needs}"));
        }
        v
    }

    fn string(&mut self, key: &str, required: bool) -> Option<&'a str> {
        let v = self.get(key, required, "a string")?;
        match v {
            Value::String(s) => Some(s),
            other => {
                self.bad(key, format!("is {}, needs a string", describe(other)));
                None
            }
        }
    }

    fn integer(&mut self, key: &str, required: bool) -> Option<u64> {
        let v = self.get(key, required, "a non-negative integer")?;
        match v.as_u64() {
            Some(n) => Some(n),
            None => {
                self.bad(
                    key,
                    format!("is {}, needs a non-negative integer", describe(v)),
                );
                None
            }
        }
    }

    fn object(&mut self, key: &str, required: bool) -> Option<&'a Map<String, Value>> {
        let v = self.get(key, required, "an object")?;
        match v {
            Value::Object(o) => Some(o),
            other => {
                self.bad(key, format!("is {}, needs an object", describe(other)));
                None
            }
        }
    }

    /// Checks `localizedParameters`; the default language's title name.
    fn localized_parameters(&mut self) -> Option<String> {
        const KEY: &str = "localizedParameters";
        let lp = self.object(KEY, true)?;
        let file = self.file;
        let default = match lp.get("defaultLanguage") {
            None => {
                self.problems.push(Problem::field(
                    file,
                    &json_path(&[KEY, "defaultLanguage"]),
                    "is missing; needs the default language's code (like \"en-US\")",
                ));
                None
            }
            Some(Value::String(s)) if !s.is_empty() => Some(s.as_str()),
            Some(other) => {
                self.problems.push(Problem::field(
                    file,
                    &json_path(&[KEY, "defaultLanguage"]),
                    format!(
                        "is {}, needs a language code (like \"en-US\")",
                        describe(other)
                    ),
                ));
                None
            }
        };
        if let Some(lang) = default
            && !lp.contains_key(lang)
        {
            self.problems.push(Problem::field(
                file,
                &json_path(&[KEY, lang]),
                format!(
                    "is missing: defaultLanguage is {lang:?}, so {KEY} needs {lang:?} with its \
                     titleName"
                ),
            ));
        }
        let mut title_name = None;
        for (lang, entry) in lp.iter().filter(|(k, _)| k.as_str() != "defaultLanguage") {
            let Some(entry) = entry.as_object() else {
                self.problems.push(Problem::field(
                    file,
                    &json_path(&[KEY, lang]),
                    format!("is {}, needs an object with titleName", describe(entry)),
                ));
                continue;
            };
            let path = json_path(&[KEY, lang, "titleName"]);
            match entry.get("titleName") {
                Some(Value::String(s)) if !s.trim().is_empty() => {
                    if Some(lang.as_str()) == default {
                        title_name = Some(s.clone());
                    }
                }
                Some(other) => self.problems.push(Problem::field(
                    file,
                    &path,
                    format!(
                        "is {}, needs the title's name (a non-empty string)",
                        describe(other)
                    ),
                )),
                None => self.problems.push(Problem::field(
                    file,
                    &path,
                    "is missing; needs the title's name (a non-empty string)",
                )),
            }
        }
        title_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths() {
        assert_eq!(json_path(&["titleId"]), "$.titleId");
        assert_eq!(
            json_path(&["localizedParameters", "en-US", "titleName"]),
            "$.localizedParameters[\"en-US\"].titleName"
        );
    }

    #[test]
    fn content_id_shape() {
        assert!(
            content_id_problems("IV0000-PPSA99033_00-CELLPORT00000000", Some("PPSA99033"))
                .is_empty()
        );
        let p = content_id_problems("IV0000-PPSA99033_00-CELLPORT0000000", None);
        assert!(p[0].contains("35 characters"), "{p:?}");
        let p = content_id_problems("IV0000-PPSA99034_00-CELLPORT00000000", Some("PPSA99033"));
        assert!(p[0].contains("titleId is PPSA99033"), "{p:?}");
        let p = content_id_problems("iv0000-PPSA99033_00-cellport00000000", None);
        assert_eq!(p.len(), 2, "{p:?}");
    }

    #[test]
    fn versions() {
        assert!(digits_pattern("01.000.000", &[2, 3, 3]));
        assert!(!digits_pattern("1.000.000", &[2, 3, 3]));
        assert!(!digits_pattern("01.00.000", &[2, 3, 3]));
        assert!(digits_pattern("01.00", &[2, 2]));
        assert!(!digits_pattern("01.00.", &[2, 2]));
    }

    #[test]
    fn bits() {
        assert_eq!(bit_list(0x80040), "0x80000 and 0x40");
        assert_eq!(bit_list(0x40), "0x40");
    }
}
