//! `./x package`: the folder, the archive and the manifest; the same inputs
//! give the same bytes; run-time files come from declared lists.

mod common;

use packaging::assemble::{self, PackageError};
use packaging::config;
use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn building_twice_gives_identical_bytes() {
    let a = common::scratch("twice-a");
    let b = common::scratch("twice-b");
    let out_a = common::package_dummy(&a, 70_000);
    let out_b = common::package_dummy(&b, 70_000);
    let archive_a = fs::read(&out_a.archive).unwrap();
    assert_eq!(
        archive_a,
        fs::read(&out_b.archive).unwrap(),
        "archives differ"
    );
    assert_eq!(
        fs::read(&out_a.manifest_path).unwrap(),
        fs::read(&out_b.manifest_path).unwrap(),
        "manifests differ"
    );
    // Again into the same folder, over the first build.
    let again = common::package_dummy(&a, 70_000);
    assert_eq!(archive_a, fs::read(&again.archive).unwrap());

    // A different payload gives a different archive and manifest.
    let c = common::scratch("twice-c");
    let payload = c.join("payload.elf");
    common::dummy_elf(&payload, 70_000, 2);
    let out_c = assemble::package(&common::project_config(), &payload, &c.join("out")).unwrap();
    assert_ne!(archive_a, fs::read(&out_c.archive).unwrap());
    assert_ne!(
        out_a.manifest.files[0].sha256,
        out_c.manifest.files[0].sha256
    );
}

#[test]
fn manifest_lists_every_file() {
    let dir = common::scratch("manifest");
    let out = common::package_dummy(&dir, 5000);
    assert_eq!(out.title_id, "PPSA99033");
    let m: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&out.manifest_path).unwrap()).unwrap();
    let files = m["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "PPSA99033/eboot.elf",
            "PPSA99033/sce_sys/icon0.png",
            "PPSA99033/sce_sys/param.json"
        ]
    );
    for f in files {
        let rel = f["path"].as_str().unwrap();
        let (size, sha) = assemble::hash_file(&out.folder.parent().unwrap().join(rel)).unwrap();
        assert_eq!(f["size"].as_u64(), Some(size), "{rel}");
        assert_eq!(f["sha256"].as_str(), Some(sha.as_str()), "{rel}");
    }
    let (size, sha) = assemble::hash_file(&out.archive).unwrap();
    assert_eq!(m["archive"]["size"].as_u64(), Some(size));
    assert_eq!(m["archive"]["sha256"].as_str(), Some(sha.as_str()));
    assert_eq!(m["archive"]["path"], "PPSA99033.tar.zst");
}

/// GNU tar unpacks the archive into the same folder, with the fixed
/// metadata.
#[test]
fn archive_unpacks_with_gnu_tar() {
    let dir = common::scratch("untar");
    let out = common::package_dummy(&dir, 9000);
    let tar = zstd::decode_all(fs::File::open(&out.archive).unwrap()).unwrap();
    let unpacked = dir.join("unpacked");
    fs::create_dir_all(&unpacked).unwrap();
    let run_tar = |args: &[&str]| {
        let mut child = Command::new("tar")
            .args(args)
            .current_dir(&unpacked)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("GNU tar");
        child.stdin.take().unwrap().write_all(&tar).unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success());
        String::from_utf8(o.stdout).unwrap()
    };
    run_tar(&["-xf", "-"]);
    assert_eq!(
        common::tree(&unpacked.join("PPSA99033")),
        common::tree(&out.folder)
    );
    let listing = run_tar(&["--numeric-owner", "--utc", "-tvf", "-"]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), 5, "{listing}");
    assert!(lines[1].starts_with("-rwxr-xr-x 0/0"), "{listing}");
    assert!(
        lines[1].contains("1970-01-01 00:00 PPSA99033/eboot.elf"),
        "{listing}"
    );
    assert!(lines[4].starts_with("-rw-r--r-- 0/0"), "{listing}");
}

#[test]
fn run_time_files_come_from_declared_lists() {
    let dir = common::scratch("run-time");
    let title = dir.join("title");
    fs::create_dir_all(title.join("assets")).unwrap();
    fs::write(title.join("assets/level.bin"), vec![7u8; 3000]).unwrap();
    fs::write(title.join("font.bin"), b"glyphs").unwrap();
    fs::write(
        title.join("ps5-files.json"),
        r#"{"files": [{"source": "assets/level.bin", "dest": "data/levels/1.bin"},
                      {"source": "font.bin", "dest": "font.bin"}]}"#,
    )
    .unwrap();
    let cfg_path = common::own_config(&dir, "119.88", &["title/ps5-files.json"]);
    let cfg = config::load(&cfg_path).unwrap();
    assert_eq!(cfg.run_time_files.len(), 2);
    let payload = dir.join("payload.elf");
    common::dummy_elf(&payload, 1000, 1);
    let out = assemble::package(&cfg, &payload, &dir.join("out")).unwrap();
    let paths: Vec<&str> = out.manifest.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "PPSA99033/data/levels/1.bin",
            "PPSA99033/eboot.elf",
            "PPSA99033/font.bin",
            "PPSA99033/sce_sys/icon0.png",
            "PPSA99033/sce_sys/param.json",
        ]
    );
    assert_eq!(
        fs::read(out.folder.join("data/levels/1.bin")).unwrap(),
        vec![7u8; 3000]
    );
}

#[test]
fn bad_run_time_lists_name_the_field() {
    let dir = common::scratch("run-time-bad");
    fs::write(dir.join("a.bin"), b"a").unwrap();
    let cases = [
        (
            r#"{"files": [{"source": "a.bin", "dest": "../a.bin"}]}"#,
            "$.files[0].dest",
            "contains \"..\"",
        ),
        (
            r#"{"files": [{"source": "a.bin", "dest": "/a.bin"}]}"#,
            "$.files[0].dest",
            "absolute",
        ),
        (
            r#"{"files": [{"source": "a.bin", "dest": "x"}, {"source": "b.bin", "dest": "y"}]}"#,
            "$.files[1].source",
            "is not a file",
        ),
        (
            r#"{"files": [{"source": "a.bin", "dest": "sce_sys/param.json"}]}"#,
            "$.files[0].dest",
            "made by the packager",
        ),
        (
            r#"{"files": [{"source": "a.bin", "dest": "d"}, {"source": "a.bin", "dest": "d/e"}]}"#,
            "$.files[1].dest",
            "collides",
        ),
    ];
    for (text, field, needle) in cases {
        fs::write(dir.join("list.json"), text).unwrap();
        let cfg = common::own_config(&dir, "119.88", &["list.json"]);
        let e = config::load(&cfg).unwrap_err();
        assert_eq!(e.file, dir.join("list.json"), "{e}");
        assert_eq!(e.field.as_deref(), Some(field), "{e}");
        assert!(e.message.contains(needle), "{e}");
    }
    // The config itself: unknown fields and bad values are named.
    fs::write(
        dir.join("bad.json"),
        r#"{"sce_sys": "s", "refresh_rate": "120.5"}"#,
    )
    .unwrap();
    let e = config::load(&dir.join("bad.json")).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("$.refresh_rate"), "{e}");
    fs::write(
        dir.join("bad.json"),
        r#"{"sce_sys": "s", "refresh_rate": "60", "refresh": 1}"#,
    )
    .unwrap();
    let e = config::load(&dir.join("bad.json")).unwrap_err();
    assert!(e.message.contains("unknown field `refresh`"), "{e}");
}

/// A bad param.json stops packaging, names the source file, and replaces
/// nothing.
#[test]
fn bad_param_json_names_the_source() {
    let dir = common::scratch("bad-source");
    let cfg_path = common::own_config(&dir, "119.88", &[]);
    let good = assemble::package(
        &config::load(&cfg_path).unwrap(),
        &{
            let p = dir.join("payload.elf");
            common::dummy_elf(&p, 100, 1);
            p
        },
        &dir.join("out"),
    )
    .unwrap();
    let before = common::tree(&good.folder);
    let param = dir.join("sce_sys/param.json");
    let text = fs::read_to_string(&param).unwrap().replace("524352", "64");
    fs::write(&param, text).unwrap();
    let err = assemble::package(
        &config::load(&cfg_path).unwrap(),
        &dir.join("payload.elf"),
        &dir.join("out"),
    )
    .unwrap_err();
    let PackageError::Invalid(problems) = err else {
        panic!("{err}")
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].file, param);
    assert_eq!(problems[0].field.as_deref(), Some("$.attribute3"));
    assert_eq!(
        common::tree(&good.folder),
        before,
        "the last good folder was touched"
    );
    assert!(!dir.join("out/.cellport-staging").exists());
}

#[test]
fn refuses_to_replace_a_folder_that_is_not_an_app() {
    let dir = common::scratch("foreign");
    fs::create_dir_all(dir.join("out/PPSA99033")).unwrap();
    fs::write(dir.join("out/PPSA99033/notes.txt"), b"mine").unwrap();
    let payload = dir.join("payload.elf");
    common::dummy_elf(&payload, 100, 1);
    let err = assemble::package(&common::project_config(), &payload, &dir.join("out")).unwrap_err();
    assert!(matches!(err, PackageError::Refused(_)), "{err}");
    assert_eq!(
        fs::read(dir.join("out/PPSA99033/notes.txt")).unwrap(),
        b"mine"
    );
}

/// The default path runs a build command and packages the path it prints
/// last (`./x ps5` prints the payload's path; its progress goes to stderr).
#[test]
fn packages_what_the_build_prints() {
    let dir = common::scratch("build-cmd");
    let payload = dir.join("built.elf");
    common::dummy_elf(&payload, 2000, 5);
    let cmd = format!(
        "echo building >&2; echo 'some noise'; echo '{}'; echo",
        payload.display()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_package"))
        .arg("--build-cmd")
        .arg(&cmd)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("package: payload   {}", payload.display())),
        "{stdout}"
    );
    assert!(stdout.contains("PPSA99033.tar.zst"), "{stdout}");
    assert_eq!(
        fs::read(dir.join("out/PPSA99033/eboot.elf")).unwrap(),
        fs::read(&payload).unwrap()
    );

    // A failing build, and one that prints no file.
    for (cmd, needle) in [
        ("exit 3", "failed"),
        ("echo /nonexistent/payload.elf", "not a file"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_package"))
            .args(["--build-cmd", cmd, "--out"])
            .arg(dir.join("out2"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(stderr.contains(needle), "{stderr}");
    }
}
