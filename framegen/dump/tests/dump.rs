//! The dump format end to end: write, read back, drops, truncation and
//! corruption, and the fgdump command line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;

use framegen_dump::{
    DumpReader, DumpWriter, FrameKind, FrameMeta, GpuTimes, Image, Info, PacerDecision, PacerState,
    Record, WriterConfig, verify,
};
use serde_json::json;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fgdump-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn meta(frame: u64, kind: FrameKind, first_refresh: u64, refreshes: u32) -> FrameMeta {
    FrameMeta {
        seq: 0,
        frame,
        kind,
        decision: PacerDecision {
            engaged: true,
            reset: false,
            presents: 1,
            generated: 1,
            state: PacerState::Generating,
        },
        presents: 1,
        first_refresh,
        refreshes,
        present_s: first_refresh as f64 * 0.008,
        shown_s: first_refresh as f64 * 0.0083416,
        acquire_wait_s: 0.0,
        gpu: Some(GpuTimes {
            total_ms: 2.5,
            flow_ms: 1.0,
        }),
    }
}

fn image(w: u32, h: u32, seed: u8) -> Image {
    let rgba = (0..w * h)
        .flat_map(|i| [(i % w) as u8 ^ seed, (i / w) as u8, seed, 255])
        .collect();
    Image {
        width: w,
        height: h,
        scale: 2,
        rgba,
    }
}

/// A dump of `frames` game frames at 60 fps on 120 Hz after a 9-frame
/// warm-up: game frames shown 2 refreshes, then generated + game, one each.
fn write_sample(path: &Path, frames: u64) -> Vec<(FrameMeta, Image)> {
    let mut w = DumpWriter::create(
        path,
        &json!({"display": {"width": 64, "height": 32}}),
        WriterConfig::default(),
    )
    .unwrap();
    let mut refresh = 0;
    let mut all = Vec::new();
    for f in 0..frames {
        let warm = f < 9;
        if !warm {
            let m = meta(f, FrameKind::Generated { index: 0, of: 1 }, refresh, 1);
            let img = image(16, 8, f as u8);
            all.push((m, img.clone()));
            assert!(w.submit(m, Some(img)));
            refresh += 1;
        }
        let mut m = meta(f, FrameKind::Game, refresh, if warm { 2 } else { 1 });
        if warm {
            m.decision = PacerDecision {
                engaged: false,
                reset: false,
                presents: 0,
                generated: 0,
                state: PacerState::WarmingUp,
            };
        }
        let img = image(16, 8, 100 + f as u8);
        all.push((m, img.clone()));
        assert!(w.submit(m, Some(img)));
        refresh += u64::from(m.refreshes);
    }
    let stats = w.finish(refresh, refresh as f64 * 0.0083416).unwrap();
    assert_eq!(stats.records, all.len() as u64);
    assert_eq!(stats.dropped, 0);
    all
}

#[test]
fn records_come_back_as_written() {
    let path = tmp("roundtrip.fgdump");
    let written = write_sample(&path, 20);
    let mut r = DumpReader::open(&path).unwrap();
    assert_eq!(r.header().meta["display"]["width"], 64);
    let mut i = 0;
    let mut end = None;
    while let Some((rec, pos)) = r.next_record().unwrap() {
        match rec {
            Record::Frame(fr) => {
                let (m, img) = &written[i];
                let mut m = *m;
                m.seq = i as u64;
                assert_eq!(fr.meta, m, "record {i}");
                assert_eq!(fr.decode_image().unwrap().as_ref(), Some(img));
                assert_eq!(pos.index, i as u64);
                i += 1;
            }
            Record::End(e) => end = Some(e),
            Record::Dropped(d) => panic!("unexpected drop {d:?}"),
        }
    }
    assert_eq!(i, written.len());
    let end = end.expect("end record");
    assert_eq!(end.records, written.len() as u64);
    assert_eq!(end.submitted, written.len() as u64);
    let rep = verify(&path);
    assert!(rep.ok(), "{:?}", rep.error);
    assert_eq!(rep.frames, written.len() as u64);

    let info = Info::read(&path).unwrap();
    assert_eq!(info.game_frames, 20);
    assert_eq!(info.generated_frames, 11);
    assert_eq!(info.first_generated_frame, Some(9));
    let p = info.pattern();
    assert_eq!(p.get(&(1, 1)), Some(&11), "{p:?}");
    let j = info.to_json();
    for key in ["game_frames", "generated_frames", "dropped", "refreshes"] {
        assert!(j.get(key).is_some(), "{key} missing from {j}");
    }
    assert_eq!(j["refreshes"], 9 * 2 + 22);
    assert_eq!(j["refreshes_uncovered"], 0);
}

/// A sink that blocks every write until the test lets it go.
struct Gate {
    open: mpsc::Receiver<()>,
    /// Writes let through before the gate closes (the header's).
    free_writes: u32,
    opened: bool,
    out: Vec<u8>,
    done: Option<mpsc::Sender<Vec<u8>>>,
}

impl Write for Gate {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.free_writes > 0 {
            self.free_writes -= 1;
        } else if !self.opened {
            let _ = self.open.recv();
            self.opened = true;
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        if let Some(d) = self.done.take() {
            let _ = d.send(std::mem::take(&mut self.out));
        }
    }
}

#[test]
fn a_stuck_file_never_blocks_submit_and_drops_are_recorded() {
    let (open_tx, open_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel();
    // The header is written before the gate closes.
    let gate = Gate {
        open: open_rx,
        free_writes: 1,
        opened: false,
        out: Vec::new(),
        done: Some(done_tx),
    };
    let mut w = DumpWriter::new(
        Box::new(gate),
        "gate".into(),
        &json!({}),
        WriterConfig {
            queue_records: 4,
            zstd_level: 1,
        },
    )
    .unwrap();
    // The writer thread blocks in its first write after the header.
    // 200 records while the sink is stuck: submit must come back every time.
    let mut accepted = 0;
    for f in 0..200 {
        if w.submit(meta(f, FrameKind::Game, f, 1), Some(image(8, 8, f as u8))) {
            accepted += 1;
        }
        if f == 0 {
            // Let the writer take the first record and block on the gate.
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    assert!(accepted < 200, "nothing dropped with a stuck sink");
    assert_eq!(w.dropped(), 200 - accepted);
    open_tx.send(()).unwrap();
    let stats = w.finish(200, 1.0).unwrap();
    assert_eq!(stats.records, accepted);
    assert_eq!(stats.dropped, 200 - accepted);
    let bytes = done_rx.recv().unwrap();
    let path = tmp("dropped.fgdump");
    std::fs::write(&path, &bytes).unwrap();
    let rep = verify(&path);
    assert!(rep.ok(), "{:?}", rep.error);
    assert_eq!(rep.end.unwrap().dropped, 200 - accepted);
    let info = Info::read(&path).unwrap();
    assert_eq!(info.dropped, 200 - accepted);
    assert_eq!(info.game_frames, accepted);
}

#[test]
fn image_buffers_are_reused() {
    let path = tmp("reuse.fgdump");
    let mut w = DumpWriter::create(&path, &json!({}), WriterConfig::default()).unwrap();
    let mut buf = w.take_buffer(8 * 8 * 4);
    buf.fill(7);
    let ptr = buf.as_ptr();
    let img = Image {
        width: 8,
        height: 8,
        scale: 1,
        rgba: buf,
    };
    assert!(w.submit(meta(0, FrameKind::Game, 0, 1), Some(img)));
    while w.queued() > 0 {
        std::thread::yield_now();
    }
    // The writer sends the buffer back after compressing it.
    let mut back = None;
    for _ in 0..1000 {
        let b = w.take_buffer(8 * 8 * 4);
        if b.as_ptr() == ptr {
            back = Some(b);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert!(
        back.is_some(),
        "the image buffer did not come back for reuse"
    );
    w.finish(1, 0.01).unwrap();
}

fn record_offsets(path: &Path) -> Vec<(u64, u64)> {
    let mut r = DumpReader::open(path).unwrap();
    let mut v = Vec::new();
    while let Some((_, pos)) = r.next_record().unwrap() {
        v.push((pos.offset, pos.len));
    }
    v
}

#[test]
fn truncation_names_the_last_good_record() {
    let path = tmp("full.fgdump");
    write_sample(&path, 12);
    let bytes = std::fs::read(&path).unwrap();
    let offsets = record_offsets(&path);
    // Cut in the middle of record 7.
    let (off7, len7) = offsets[7];
    let cut = tmp("cut.fgdump");
    std::fs::write(&cut, &bytes[..(off7 + len7 / 2) as usize]).unwrap();
    let rep = verify(&cut);
    assert!(!rep.ok());
    let err = rep.error.unwrap();
    assert!(
        err.contains("truncated") && err.contains("record #7"),
        "{err}"
    );
    assert_eq!(rep.error_offset, Some(off7));
    assert_eq!(rep.last_good.unwrap().position.index, 6);
    // Cut on a record boundary: no end record.
    std::fs::write(&cut, &bytes[..off7 as usize]).unwrap();
    let rep = verify(&cut);
    assert!(rep.error.unwrap().contains("without an end record"));
    assert_eq!(rep.last_good.unwrap().position.index, 6);
    // Cut inside a record header.
    std::fs::write(&cut, &bytes[..(off7 + 6) as usize]).unwrap();
    let rep = verify(&cut);
    assert!(rep.error.unwrap().contains("record #7"));
    // Cut inside the file header.
    std::fs::write(&cut, &bytes[..12]).unwrap();
    let rep = verify(&cut);
    assert!(rep.error.unwrap().contains("header"));
    assert!(rep.last_good.is_none());
}

#[test]
fn corruption_is_found_by_the_checksum() {
    let path = tmp("full2.fgdump");
    write_sample(&path, 12);
    let offsets = record_offsets(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    // One bit in record 4's image.
    let (off4, len4) = offsets[4];
    bytes[(off4 + len4 - 3) as usize] ^= 0x10;
    let bad = tmp("bad.fgdump");
    std::fs::write(&bad, &bytes).unwrap();
    let rep = verify(&bad);
    let err = rep.error.unwrap();
    assert!(
        err.contains("record #4") && err.contains("checksum"),
        "{err}"
    );
    assert_eq!(rep.error_offset, Some(off4));
    assert_eq!(rep.last_good.unwrap().position.index, 3);
    // A damaged record magic.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[off4 as usize] = b'X';
    std::fs::write(&bad, &bytes).unwrap();
    let err = verify(&bad).error.unwrap();
    assert!(err.contains("no record magic"), "{err}");
    // Not a dump at all; a newer version.
    std::fs::write(&bad, b"PNG and more bytes here").unwrap();
    assert!(verify(&bad).error.unwrap().contains("not a frame dump"));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8] = 9;
    std::fs::write(&bad, &bytes).unwrap();
    assert!(verify(&bad).error.unwrap().contains("version 9"));
}

fn fgdump(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fgdump"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn fgdump_commands() {
    let path = tmp("cli.fgdump");
    write_sample(&path, 14);
    let p = path.to_str().unwrap();

    let out = fgdump(&["info", p, "--json"]);
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["game_frames"], 14);
    assert_eq!(j["generated_frames"], 5);
    assert_eq!(j["dropped"], 0);
    assert_eq!(j["refreshes"], 28);
    assert_eq!(j["generated_refreshes"]["1"], 5);
    let out = fgdump(&["info", p]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("14 game frames"));

    let out = fgdump(&["verify", p]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let bytes = std::fs::read(&path).unwrap();
    let cut = tmp("cli-cut.fgdump");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let out = fgdump(&["verify", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("last good record: record #"), "{text}");
    assert!(text.contains("frame 13"), "{text}");

    let dir = tmp("extract");
    let out = fgdump(&[
        "extract",
        p,
        "--to",
        dir.to_str().unwrap(),
        "--only",
        "generated",
    ]);
    assert!(out.status.success());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 5);
    assert_eq!(names[0], "000009-gen1of1.png");
    let (w, h, _) = framegen_dump::png_io::read_png(&dir.join(&names[0])).unwrap();
    assert_eq!((w, h), (16, 8));
    let dir2 = tmp("extract2");
    let out = fgdump(&["extract", p, "--to", dir2.to_str().unwrap(), "--every", "4"]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_dir(&dir2).unwrap().count(),
        5,
        "19 pictures, every 4th"
    );

    let png = tmp("timeline.png");
    let out = fgdump(&["timeline", p, "-o", png.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, _, rgba) = framegen_dump::png_io::read_png(&png).unwrap();
    assert_eq!(
        w, 720,
        "refreshes 6..=27 of the sample, 10 pixels each, and the least width"
    );
    // The plot has bars of both colours.
    let has = |c: [u8; 3]| rgba.chunks_exact(4).any(|p| p[..3] == c);
    assert!(has([52, 101, 200]) && has([240, 140, 40]));
    let svg = tmp("timeline.svg");
    assert!(
        fgdump(&["timeline", p, "-o", svg.to_str().unwrap()])
            .status
            .success()
    );
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.contains("#f08c28") && s.contains("generated"));
    let out = fgdump(&["timeline", p, "-o", tmp("t.gif").to_str().unwrap()]);
    assert!(!out.status.success());
}
