//! `--check`: each kind of bad folder is rejected with a message naming the
//! file and the field; all problems are reported at once.

mod common;

use packaging::Problem;
use packaging::assemble::check_options;
use packaging::check::{CheckOptions, check_folder};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A good app folder for the test `name`.
fn good_folder(name: &str) -> PathBuf {
    let dir = common::scratch(name);
    common::package_dummy(&dir, 4096).folder
}

fn opts() -> CheckOptions {
    check_options(&common::project_config())
}

fn edit_param(folder: &Path, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) {
    let p = folder.join("sce_sys/param.json");
    let mut v: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
    edit(v.as_object_mut().unwrap());
    fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// The one problem of `folder`, which must be in `file` at `field`.
fn only_problem(folder: &Path, file: &str, field: Option<&str>) -> Problem {
    let report = check_folder(folder, &opts());
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    let p = report.problems.into_iter().next().unwrap();
    assert_eq!(p.file, folder.join(file), "{p}");
    assert_eq!(p.field.as_deref(), field, "{p}");
    p
}

#[test]
fn a_good_folder_passes() {
    let folder = good_folder("good");
    let report = check_folder(&folder, &opts());
    assert!(report.is_ok(), "{:#?}", report.problems);
    assert_eq!(report.param.title_id.as_deref(), Some("PPSA99033"));
    assert_eq!(report.param.title_name.as_deref(), Some("cellport"));
}

#[test]
fn malformed_json() {
    let folder = good_folder("malformed");
    fs::write(
        folder.join("sce_sys/param.json"),
        "{\n  \"titleId\": \"PPSA99033\",\n  oops\n}",
    )
    .unwrap();
    let p = only_problem(&folder, "sce_sys/param.json", Some("$"));
    assert!(p.message.contains("not valid JSON at line 3"), "{p}");
}

#[test]
fn missing_title_id() {
    let folder = good_folder("no-title-id");
    edit_param(&folder, |m| {
        m.remove("titleId");
    });
    let p = only_problem(&folder, "sce_sys/param.json", Some("$.titleId"));
    assert!(p.message.contains("is missing"), "{p}");
}

#[test]
fn wrong_content_id_length() {
    let folder = good_folder("content-id-length");
    edit_param(&folder, |m| {
        m.insert(
            "contentId".into(),
            json!("IV0000-PPSA99033_00-CELLPORT0000000"),
        );
    });
    let p = only_problem(&folder, "sce_sys/param.json", Some("$.contentId"));
    assert!(p.message.contains("35 characters; needs 36"), "{p}");
}

#[test]
fn content_id_of_another_title() {
    let folder = good_folder("content-id-title");
    edit_param(&folder, |m| {
        m.insert(
            "contentId".into(),
            json!("IV0000-PPSA12345_00-CELLPORT00000000"),
        );
    });
    let p = only_problem(&folder, "sce_sys/param.json", Some("$.contentId"));
    assert!(p.message.contains("titleId is PPSA99033"), "{p}");
}

#[test]
fn wrong_type() {
    let folder = good_folder("wrong-type");
    edit_param(&folder, |m| {
        m.insert("applicationCategoryType".into(), json!("0"));
    });
    let p = only_problem(
        &folder,
        "sce_sys/param.json",
        Some("$.applicationCategoryType"),
    );
    assert!(
        p.message
            .contains("is a string (\"0\"), needs a non-negative integer"),
        "{p}"
    );
}

#[test]
fn wrong_version_format() {
    let folder = good_folder("version");
    edit_param(&folder, |m| {
        m.insert("contentVersion".into(), json!("1.0.0"));
    });
    let p = only_problem(&folder, "sce_sys/param.json", Some("$.contentVersion"));
    assert!(p.message.contains("NN.NNN.NNN"), "{p}");
}

#[test]
fn missing_default_language_title() {
    let folder = good_folder("title-name");
    edit_param(&folder, |m| {
        m.insert(
            "localizedParameters".into(),
            json!({"defaultLanguage": "en-US", "en-US": {}}),
        );
    });
    let p = only_problem(
        &folder,
        "sce_sys/param.json",
        Some("$.localizedParameters[\"en-US\"].titleName"),
    );
    assert!(p.message.contains("is missing"), "{p}");
}

#[test]
fn missing_120hz_bit() {
    let folder = good_folder("no-120hz");
    edit_param(&folder, |m| {
        m.insert("attribute3".into(), json!(0x40));
    });
    let p = only_problem(&folder, "sce_sys/param.json", Some("$.attribute3"));
    assert!(p.message.contains("missing bit 0x80000"), "{p}");
    assert!(p.message.contains("0x80290016"), "{p}");
    assert!(p.message.contains("\"attribute3\": 524352"), "{p}");

    // Both bits missing, and the field absent altogether.
    edit_param(&folder, |m| {
        m.insert("attribute3".into(), json!(0));
    });
    let p = only_problem(&folder, "sce_sys/param.json", Some("$.attribute3"));
    assert!(p.message.contains("missing bits 0x80000 and 0x40"), "{p}");
    edit_param(&folder, |m| {
        m.remove("attribute3");
    });
    let p = only_problem(&folder, "sce_sys/param.json", Some("$.attribute3"));
    assert!(p.message.contains("is missing"), "{p}");

    // A 59.94 Hz title needs neither.
    let sixty = CheckOptions {
        wants_119_88_hz: false,
        ..opts()
    };
    assert!(check_folder(&folder, &sixty).is_ok());
}

#[test]
fn icon_of_256() {
    let folder = good_folder("icon-256");
    let mut png = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png, 256, 256);
        enc.set_color(png::ColorType::Rgb);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&vec![40u8; 256 * 256 * 3]).unwrap();
    }
    fs::write(folder.join("sce_sys/icon0.png"), png).unwrap();
    let p = only_problem(&folder, "sce_sys/icon0.png", Some("IHDR width×height"));
    assert!(
        p.message.contains("is 256×256 pixels, needs 512×512"),
        "{p}"
    );

    fs::write(folder.join("sce_sys/icon0.png"), b"GIF89a").unwrap();
    let p = only_problem(&folder, "sce_sys/icon0.png", None);
    assert!(p.message.contains("not a readable PNG"), "{p}");
}

#[test]
fn file_name_with_dot_dot() {
    let folder = good_folder("dot-dot");
    fs::write(folder.join("..hidden"), b"x").unwrap();
    let p = only_problem(&folder, "..hidden", None);
    assert!(p.message.contains("contains \"..\""), "{p}");
}

#[test]
fn links_out_of_the_folder() {
    let folder = good_folder("links");
    std::os::unix::fs::symlink("../../payload.elf", folder.join("up.elf")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", folder.join("abs")).unwrap();
    std::os::unix::fs::symlink("sce_sys/icon0.png", folder.join("inside.png")).unwrap();
    let report = check_folder(&folder, &opts());
    let mut files: Vec<_> = report.problems.iter().map(|p| p.file.clone()).collect();
    files.sort();
    assert_eq!(
        files,
        [folder.join("abs"), folder.join("up.elf")],
        "{:#?}",
        report.problems
    );
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.message.contains("outside the folder"))
    );
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.message.contains("absolute path"))
    );
    // The link that stays inside is kept, as the file it leads to.
    assert!(report.entries.iter().any(|e| e.rel == "inside.png"));
}

#[test]
fn payload_not_an_elf() {
    let folder = good_folder("not-elf");
    fs::write(folder.join("eboot.elf"), b"#!/bin/sh\necho hi\n").unwrap();
    let p = only_problem(&folder, "eboot.elf", Some("ELF header e_ident"));
    assert!(p.message.contains("not an ELF payload"), "{p}");
    common::dummy_elf(&folder.join("eboot.elf"), 128, 3);
    let mut b = fs::read(folder.join("eboot.elf")).unwrap();
    b[18..20].copy_from_slice(&183u16.to_le_bytes()); // AArch64
    fs::write(folder.join("eboot.elf"), b).unwrap();
    let p = only_problem(&folder, "eboot.elf", Some("ELF header e_machine"));
    assert!(p.message.contains("needs 62"), "{p}");
}

/// Many problems at once, through the command line: all are printed, each
/// with file and field, and the exit code is 1.
#[test]
fn every_problem_at_once_from_the_command_line() {
    let folder = good_folder("all-at-once");
    edit_param(&folder, |m| {
        m.remove("titleId");
        m.insert("contentId".into(), json!("SHORT"));
        m.insert("masterVersion".into(), json!(1));
        m.insert("attribute3".into(), json!(64));
    });
    fs::write(folder.join("sce_sys/a..b"), b"x").unwrap();
    fs::remove_file(folder.join("sce_sys/icon0.png")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_package"))
        .arg("--check")
        .arg(&folder)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let param = folder.join("sce_sys/param.json").display().to_string();
    for needle in [
        format!("{param}: $.titleId: is missing"),
        format!("{param}: $.contentId: is \"SHORT\", 5 characters"),
        format!("{param}: $.masterVersion: is an integer (1), needs a string"),
        format!("{param}: $.attribute3: is 64 (0x40), missing bit 0x80000"),
        format!("{}: is missing", folder.join("sce_sys/icon0.png").display()),
        format!(
            "{}: the name \"a..b\"",
            folder.join("sce_sys/a..b").display()
        ),
        format!("{}: 6 problem(s)", folder.display()),
    ] {
        assert!(stderr.contains(&needle), "no {needle:?} in:\n{stderr}");
    }

    // A good folder: exit 0.
    let good = good_folder("all-at-once-good");
    let out = Command::new(env!("CARGO_BIN_EXE_package"))
        .arg("--check")
        .arg(&good)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok (3 files; title PPSA99033"));
}

/// `--refresh-rate 59.94` on the command line lifts the 120 Hz requirement.
#[test]
fn refresh_rate_flag() {
    let folder = good_folder("refresh-flag");
    edit_param(&folder, |m| {
        m.remove("attribute3");
    });
    let run = |rate: &str| {
        Command::new(env!("CARGO_BIN_EXE_package"))
            .args(["--refresh-rate", rate, "--check"])
            .arg(&folder)
            .output()
            .unwrap()
    };
    assert_eq!(run("119.88").status.code(), Some(1));
    assert!(run("59.94").status.success());
}

#[test]
fn folder_name_and_title_id_disagree() {
    let folder = good_folder("renamed");
    let renamed = folder.with_file_name("PPSA00001");
    fs::rename(&folder, &renamed).unwrap();
    let p = only_problem(&renamed, "sce_sys/param.json", Some("$.titleId"));
    assert!(p.message.contains("the folder is named PPSA00001"), "{p}");
    let missing = check_folder(&renamed.with_file_name("nothing-here"), &opts());
    assert_eq!(missing.problems.len(), 1, "{:?}", missing.problems);
}
