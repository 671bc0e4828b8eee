//! cellPad (exported by sys_io): the pads a window or controller fills in
//! through the platform layer, or, for headless runs, a script.
//!
//! A pad script (`CELLPORT_PAD_SCRIPT`, or [`crate::HostHooks::pad_script`])
//! is `FRAME:BUTTONS[:LX,LY];...`: from the game's flip `FRAME` on, port 0
//! holds `BUTTONS` (names joined by `+`: left right up down cross circle
//! square triangle start select l1 r1 l2 r2 l3 r3; empty for none) and
//! the left stick at `LX,LY` (0..255, default 128,128). For example
//! `0:;30:right;90:right+cross;150:left:0,128`. Keying it on flips makes a
//! headless run's input the same every time.

use std::sync::Mutex;

use lv2::CellError;
use lv2::sync::lock;
use platform::{PadButtons, PadState};

use crate::args::Ptr;
use crate::{Cx, Registry};

const MODULE: &str = "sys_io";
/// `CELL_PAD_ERROR_ALREADY_INITIALIZED`.
pub const ALREADY_INITIALIZED: CellError = CellError(0x8012_1101);
/// `CELL_PAD_ERROR_UNINITIALIZED`.
pub const UNINITIALIZED: CellError = CellError(0x8012_1103);
/// `CELL_PAD_ERROR_INVALID_PARAMETER`.
pub const INVALID_PARAMETER: CellError = CellError(0x8012_1104);
/// `CELL_PAD_ERROR_NO_DEVICE`.
pub const NO_DEVICE: CellError = CellError(0x8012_1107);
/// Ports the PS3 has.
pub const MAX_PORTS: u32 = 7;

/// One step of a pad script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptStep {
    /// From this flip on...
    pub frame: u64,
    /// ... the pad is in this state.
    pub state: PadState,
}

/// A parse error in a pad script, naming the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pad script entry {index} ({entry:?}): {why}")]
pub struct ScriptError {
    /// Which entry (0-based).
    pub index: usize,
    /// Its text.
    pub entry: String,
    /// What is wrong.
    pub why: String,
}

/// Parses a pad script (see the module documentation).
pub fn parse_script(s: &str) -> Result<Vec<ScriptStep>, ScriptError> {
    let mut steps = Vec::new();
    for (index, entry) in s
        .split(';')
        .map(str::trim)
        .enumerate()
        .filter(|(_, e)| !e.is_empty())
    {
        let err = |why: String| ScriptError {
            index,
            entry: entry.to_owned(),
            why,
        };
        let mut parts = entry.split(':');
        let frame = parts
            .next()
            .unwrap_or("")
            .trim()
            .parse::<u64>()
            .map_err(|e| err(format!("frame: {e}")))?;
        let mut state = PadState::default();
        for name in parts
            .next()
            .unwrap_or("")
            .split('+')
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            state.buttons.0 |= match name.to_ascii_lowercase().as_str() {
                "left" => PadButtons::LEFT,
                "right" => PadButtons::RIGHT,
                "up" => PadButtons::UP,
                "down" => PadButtons::DOWN,
                "cross" => PadButtons::CROSS,
                "circle" => PadButtons::CIRCLE,
                "square" => PadButtons::SQUARE,
                "triangle" => PadButtons::TRIANGLE,
                "start" => PadButtons::START,
                "select" => PadButtons::SELECT,
                "l1" => PadButtons::L1,
                "r1" => PadButtons::R1,
                "l2" => PadButtons::L2,
                "r2" => PadButtons::R2,
                "l3" => PadButtons::L3,
                "r3" => PadButtons::R3,
                other => return Err(err(format!("unknown button {other:?}"))),
            };
        }
        if let Some(stick) = parts.next() {
            let (x, y) = stick
                .split_once(',')
                .ok_or_else(|| err("stick is not X,Y".into()))?;
            state.left_x = x.trim().parse().map_err(|e| err(format!("stick X: {e}")))?;
            state.left_y = y.trim().parse().map_err(|e| err(format!("stick Y: {e}")))?;
        }
        if parts.next().is_some() {
            return Err(err("too many fields".into()));
        }
        if steps.last().is_some_and(|l: &ScriptStep| l.frame > frame) {
            return Err(err("frames must not go down".into()));
        }
        steps.push(ScriptStep { frame, state });
    }
    Ok(steps)
}

/// The scripted state at flip `frame`.
pub fn script_state(steps: &[ScriptStep], frame: u64) -> PadState {
    steps
        .iter()
        .take_while(|s| s.frame <= frame)
        .last()
        .map(|s| s.state)
        .unwrap_or_default()
}

#[derive(Default)]
struct Inner {
    max: Option<u32>,
    script: Option<Vec<ScriptStep>>,
    last: [Option<PadState>; MAX_PORTS as usize],
}

/// cellPad's state.
#[derive(Default)]
pub struct State {
    inner: Mutex<Inner>,
}

/// Registers the module's functions.
pub fn register(r: &mut Registry) {
    r.add(MODULE, "cellPadInit", pad_init);
    r.add(
        MODULE,
        "cellPadEnd",
        |cx: &mut Cx<'_>| -> Result<(), CellError> {
            lock(&cx.rt.modules.pad.inner)
                .max
                .take()
                .map(drop)
                .ok_or(UNINITIALIZED)
        },
    );
    r.add(MODULE, "cellPadGetData", pad_get_data);
    r.add(MODULE, "cellPadGetInfo2", pad_get_info2);
    r.add(
        MODULE,
        "cellPadClearBuf",
        |cx: &mut Cx<'_>, port: u32| -> Result<(), CellError> {
            let mut g = lock(&cx.rt.modules.pad.inner);
            let max = g.max.ok_or(UNINITIALIZED)?;
            if port >= max {
                return Err(INVALID_PARAMETER);
            }
            g.last[port as usize] = None;
            Ok(())
        },
    );
}

fn pad_init(cx: &mut Cx<'_>, max: u32) -> Result<(), CellError> {
    let mut g = lock(&cx.rt.modules.pad.inner);
    if g.max.is_some() {
        return Err(ALREADY_INITIALIZED);
    }
    if max == 0 || max > MAX_PORTS {
        return Err(INVALID_PARAMETER);
    }
    let text = cx
        .rt
        .hooks
        .pad_script
        .clone()
        .or_else(|| std::env::var("CELLPORT_PAD_SCRIPT").ok());
    g.script = match text {
        Some(t) => match parse_script(&t) {
            Ok(s) => Some(s),
            Err(e) => {
                log::error!("{e}: the pad stays neutral");
                Some(Vec::new())
            }
        },
        None => None,
    };
    g.max = Some(max);
    Ok(())
}

/// What port `port` holds now: the script, else the platform's pads,
/// else (port 0 only) a neutral pad, so games that need one can run.
fn current(cx: &Cx<'_>, inner: &Inner, port: u32) -> Option<PadState> {
    if let Some(script) = &inner.script {
        return (port == 0).then(|| script_state(script, cx.rt.modules.gcm.flips()));
    }
    let pads = cx.t.process.platform.pads();
    if pads.any_connected() {
        return pads.get(port as usize);
    }
    (port == 0).then(PadState::default)
}

/// `cellPadGetData(port, CellPadData* data)`: `len` is 24 when the state
/// changed since the last call, 0 when not.
fn pad_get_data(cx: &mut Cx<'_>, port: u32, data: Ptr) -> Result<(), CellError> {
    let mut g = lock(&cx.rt.modules.pad.inner);
    let max = g.max.ok_or(UNINITIALIZED)?;
    if port >= max || data.is_null() {
        return Err(INVALID_PARAMETER);
    }
    let state = current(cx, &g, port).ok_or(NO_DEVICE)?;
    let changed = g.last[port as usize] != Some(state);
    g.last[port as usize] = Some(state);
    drop(g);
    let mut b = vec![0u8; 4 + 2 * 64];
    if changed {
        b[..4].copy_from_slice(&24i32.to_be_bytes());
        let mut words = [0u16; 24];
        words[1] = (0x7 << 4) | 12;
        words[2] = state.buttons.digital1();
        words[3] = state.buttons.digital2();
        words[4] = u16::from(state.right_x);
        words[5] = u16::from(state.right_y);
        words[6] = u16::from(state.left_x);
        words[7] = u16::from(state.left_y);
        // Pressure: right left up down triangle circle cross square L1 R1 L2 R2.
        let order = [
            PadButtons::RIGHT,
            PadButtons::LEFT,
            PadButtons::UP,
            PadButtons::DOWN,
            PadButtons::TRIANGLE,
            PadButtons::CIRCLE,
            PadButtons::CROSS,
            PadButtons::SQUARE,
            PadButtons::L1,
            PadButtons::R1,
            PadButtons::L2,
            PadButtons::R2,
        ];
        for (i, bit) in order.iter().enumerate() {
            words[8 + i] = if state.buttons.0 & bit != 0 { 0xFF } else { 0 };
        }
        for (i, w) in words.iter().enumerate() {
            b[4 + 2 * i..6 + 2 * i].copy_from_slice(&w.to_be_bytes());
        }
    }
    cx.t.vm().write_bytes(data.0, &b)
}

/// `cellPadGetInfo2(CellPadInfo2* info)`.
fn pad_get_info2(cx: &mut Cx<'_>, info: Ptr) -> Result<(), CellError> {
    let g = lock(&cx.rt.modules.pad.inner);
    let max = g.max.ok_or(UNINITIALIZED)?;
    let mut words = [0u32; 3 + 4 * 7];
    words[0] = max;
    let mut now = 0;
    for port in 0..max.min(MAX_PORTS) {
        if current(cx, &g, port).is_some() {
            now += 1;
            words[3 + port as usize] = 1; // CELL_PAD_STATUS_CONNECTED
            words[3 + 14 + port as usize] = 0x3; // PS3 conformity, press mode
            words[3 + 21 + port as usize] = 0; // standard controller
        }
    }
    words[1] = now;
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    drop(g);
    cx.t.vm().write_bytes(info.0, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts() {
        let s = parse_script("0:;30:right;90:right+cross:10,200").expect("parse");
        assert_eq!(s.len(), 3);
        assert_eq!(script_state(&s, 10).buttons.0, 0);
        assert_eq!(script_state(&s, 30).buttons.0, PadButtons::RIGHT);
        let st = script_state(&s, 1000);
        assert_eq!(st.buttons.0, PadButtons::RIGHT | PadButtons::CROSS);
        assert_eq!((st.left_x, st.left_y), (10, 200));
        let e = parse_script("0:;5:jump").unwrap_err();
        assert_eq!(e.index, 1);
        assert!(e.to_string().contains("jump"));
        assert!(parse_script("10:;5:up").is_err());
    }
}
