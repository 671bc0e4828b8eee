//! cellSysutil: system callbacks, system parameters (the language from
//! `CELLPORT_SYS_LANG`), and cellVideoOut (state, resolution,
//! configuration), which the PS3 exports from the same module.

use std::collections::VecDeque;
use std::sync::Mutex;

use lv2::sync::lock;
use lv2::{CellError, Ret};

use crate::args::Ptr;
use crate::{Cx, Registry};

const MODULE: &str = "cellSysutil";

/// `CELL_SYSUTIL_ERROR_TYPE`.
pub const ERROR_TYPE: CellError = CellError(0x8002_b101);
/// `CELL_SYSUTIL_ERROR_VALUE`.
pub const ERROR_VALUE: CellError = CellError(0x8002_b102);
/// `CELL_SYSUTIL_ERROR_SIZE`.
pub const ERROR_SIZE: CellError = CellError(0x8002_b103);
/// `CELL_SYSUTIL_REQUEST_EXITGAME`: the system asks the game to quit.
pub const REQUEST_EXITGAME: u64 = 0x0101;
/// `CELL_VIDEO_OUT_ERROR_ILLEGAL_PARAMETER`.
pub const VIDEO_OUT_ILLEGAL_PARAMETER: CellError = CellError(0x8002_b222);
/// `CELL_VIDEO_OUT_ERROR_UNSUPPORTED_VIDEO_OUT`.
pub const VIDEO_OUT_UNSUPPORTED: CellError = CellError(0x8002_b225);

/// The PS3's system languages (`CELL_SYSUTIL_LANG_*`) and the names
/// `CELLPORT_SYS_LANG` accepts for them.
pub const LANGUAGES: [(u32, &[&str]); 20] = [
    (0, &["japanese", "ja", "ja-JP"]),
    (1, &["english", "en", "en-US", "english-us"]),
    (2, &["french", "fr", "fr-FR"]),
    (3, &["spanish", "es", "es-ES"]),
    (4, &["german", "de", "de-DE"]),
    (5, &["italian", "it", "it-IT"]),
    (6, &["dutch", "nl", "nl-NL"]),
    (7, &["portuguese", "pt", "pt-PT"]),
    (8, &["russian", "ru", "ru-RU"]),
    (9, &["korean", "ko", "ko-KR"]),
    (10, &["chinese-t", "zh-TW", "zh-Hant"]),
    (11, &["chinese-s", "zh-CN", "zh-Hans"]),
    (12, &["finnish", "fi", "fi-FI"]),
    (13, &["swedish", "sv", "sv-SE"]),
    (14, &["danish", "da", "da-DK"]),
    (15, &["norwegian", "no", "nb", "nb-NO"]),
    (16, &["polish", "pl", "pl-PL"]),
    (17, &["portuguese-br", "pt-BR"]),
    (18, &["english-gb", "en-GB"]),
    (19, &["turkish", "tr", "tr-TR"]),
];

/// The language a `CELLPORT_SYS_LANG` value names: a number 0..19 or a
/// name (case does not matter). `None` when it names none.
pub fn parse_language(v: &str) -> Option<u32> {
    let v = v.trim();
    if let Ok(n) = v.parse::<u32>() {
        return (n < 20).then_some(n);
    }
    LANGUAGES
        .iter()
        .find(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(v)))
        .map(|(id, _)| *id)
}

/// The system language: `CELLPORT_SYS_LANG`, English (US) when unset or
/// not understood (which is logged).
pub fn system_language() -> u32 {
    match std::env::var("CELLPORT_SYS_LANG") {
        Ok(v) => parse_language(&v).unwrap_or_else(|| {
            log::warn!("CELLPORT_SYS_LANG={v:?} names no PS3 language (0-19 or a name such as en-US, pt-BR): using English (US)");
            1
        }),
        Err(_) => 1,
    }
}

#[derive(Debug, Clone, Copy)]
struct VideoConfig {
    resolution: u8,
    format: u8,
    aspect: u8,
    pitch: u32,
}

/// cellSysutil's state.
pub struct State {
    callbacks: Mutex<[(u32, u32); 4]>,
    pending: Mutex<VecDeque<(u64, u64)>>,
    video: Mutex<VideoConfig>,
}

impl Default for State {
    fn default() -> Self {
        let resolution = match std::env::var("CELLPORT_VIDEO_RES").as_deref() {
            Ok("1080") => 1,
            Ok("480") => 4,
            Ok("576") => 5,
            _ => 2,
        };
        let (w, _) = resolution_size(resolution).unwrap_or((1280, 720));
        State {
            callbacks: Mutex::new([(0, 0); 4]),
            pending: Mutex::new(VecDeque::new()),
            video: Mutex::new(VideoConfig {
                resolution,
                format: 0,
                aspect: 2,
                pitch: u32::from(w) * 4,
            }),
        }
    }
}

impl State {
    /// Queues a system event for the game's callbacks (delivered by its
    /// next `cellSysutilCheckCallback`), e.g. [`REQUEST_EXITGAME`].
    pub fn post(&self, status: u64, param: u64) {
        lock(&self.pending).push_back((status, param));
    }

    /// The resolution the game configured: (width, height).
    pub fn resolution(&self) -> (u16, u16) {
        resolution_size(lock(&self.video).resolution).unwrap_or((1280, 720))
    }
}

/// Width and height of a `CELL_VIDEO_OUT_RESOLUTION_*` id.
pub fn resolution_size(id: u8) -> Option<(u16, u16)> {
    Some(match id {
        1 => (1920, 1080),
        2 => (1280, 720),
        4 => (720, 480),
        5 => (720, 576),
        0xA => (1600, 1080),
        0xB => (1440, 1080),
        0xC => (1280, 1080),
        0xD => (960, 1080),
        _ => return None,
    })
}

/// Registers the module's functions.
pub fn register(r: &mut Registry) {
    r.add(MODULE, "cellSysutilRegisterCallback", register_callback);
    r.add(MODULE, "cellSysutilUnregisterCallback", unregister_callback);
    r.add(MODULE, "cellSysutilCheckCallback", check_callback);
    r.add(MODULE, "cellSysutilGetSystemParamInt", get_system_param_int);
    r.add(
        MODULE,
        "cellSysutilGetSystemParamString",
        get_system_param_string,
    );
    r.add(MODULE, "cellVideoOutGetState", video_out_get_state);
    r.add(
        MODULE,
        "cellVideoOutGetResolution",
        video_out_get_resolution,
    );
    r.add(MODULE, "cellVideoOutConfigure", video_out_configure);
    r.add(
        MODULE,
        "cellVideoOutGetConfiguration",
        video_out_get_configuration,
    );
    r.add(
        MODULE,
        "cellVideoOutGetNumberOfDevice",
        |_: &mut Cx<'_>, video_out: u32| -> Result<i32, CellError> {
            match video_out {
                0 => Ok(1),
                1 => Ok(0),
                _ => Err(VIDEO_OUT_UNSUPPORTED),
            }
        },
    );
}

/// `cellSysutilRegisterCallback(slot, callback descriptor, userdata)`.
fn register_callback(
    cx: &mut Cx<'_>,
    slot: u32,
    func: u32,
    userdata: u32,
) -> Result<(), CellError> {
    if slot > 3 || func == 0 {
        return Err(ERROR_VALUE);
    }
    lock(&cx.rt.modules.sysutil.callbacks)[slot as usize] = (func, userdata);
    Ok(())
}

fn unregister_callback(cx: &mut Cx<'_>, slot: u32) -> Result<(), CellError> {
    if slot > 3 {
        return Err(ERROR_VALUE);
    }
    lock(&cx.rt.modules.sysutil.callbacks)[slot as usize] = (0, 0);
    Ok(())
}

/// `cellSysutilCheckCallback()`: calls the registered callbacks for each
/// pending event, on the calling thread: `cb(status, param, userdata)`.
fn check_callback(cx: &mut Cx<'_>) -> Result<(), Ret> {
    loop {
        let Some((status, param)) = lock(&cx.rt.modules.sysutil.pending).pop_front() else {
            break;
        };
        let callbacks = *lock(&cx.rt.modules.sysutil.callbacks);
        for (func, userdata) in callbacks.into_iter().filter(|c| c.0 != 0) {
            lv2::call_guest(cx.t, func, &[status, param, u64::from(userdata)])?;
        }
    }
    Ok(())
}

/// `cellSysutilGetSystemParamInt(id, s32* value)`.
fn get_system_param_int(cx: &mut Cx<'_>, id: u32, value: Ptr) -> Result<(), CellError> {
    let (tz, dst) = cx.t.process.platform.timezone();
    let v: i32 = match id {
        0x0111 => system_language() as i32,
        0x0112 => 1, // enter button: cross
        0x0114 => 1, // date format: DD/MM/YYYY
        0x0115 => 0, // time format: 24-hour
        0x0116 => tz,
        0x0117 => i32::from(dst),
        0x0121 => 0, // game parental level: off
        0x0123 => 0, // parental level 0 restriction
        0x0141 => 0, // the user has no PSN account
        0x0151 => 0, // camera power line frequency: none
        0x0152 => 1, // pad rumble on
        0x0153 => 0, // keyboard type
        0x0154 | 0x0155 => 0,
        0x0156 => 0, // pad auto-off
        0x0157 => 0, // magnetometer
        _ => return Err(ERROR_VALUE),
    };
    cx.t.vm().write_u32(value.0, v as u32)
}

/// `cellSysutilGetSystemParamString(id, buf, bufsize)`.
fn get_system_param_string(cx: &mut Cx<'_>, id: u32, buf: Ptr, size: u32) -> Result<(), CellError> {
    let need = match id {
        0x0113 => 128,
        0x0131 => 64,
        _ => return Err(ERROR_VALUE),
    };
    if size < need {
        return Err(ERROR_SIZE);
    }
    let name = std::env::var("CELLPORT_SYS_USERNAME").unwrap_or_else(|_| "cellport".into());
    let mut bytes = name.into_bytes();
    bytes.truncate(need as usize - 1);
    bytes.push(0);
    cx.t.vm().write_bytes(buf.0, &bytes)
}

/// `cellVideoOutGetState(videoOut, deviceIndex, CellVideoOutState* state)`.
fn video_out_get_state(
    cx: &mut Cx<'_>,
    video_out: u32,
    device: u32,
    state: Ptr,
) -> Result<(), CellError> {
    if device != 0 {
        return Err(VIDEO_OUT_ILLEGAL_PARAMETER);
    }
    let vm = cx.t.vm();
    let mut b = [0u8; 16];
    match video_out {
        0 => {
            let v = *lock(&cx.rt.modules.sysutil.video);
            b[0] = 0; // enabled
            b[1] = 1; // RGB colour space
            b[8] = v.resolution;
            b[9] = 1; // progressive
            b[10] = 0;
            b[11] = v.aspect;
            b[14..16].copy_from_slice(&1u16.to_be_bytes()); // 59.94 Hz
        }
        1 => b[0] = 1, // secondary: disabled
        _ => return Err(VIDEO_OUT_UNSUPPORTED),
    }
    vm.write_bytes(state.0, &b)
}

/// `cellVideoOutGetResolution(resolutionId, CellVideoOutResolution* res)`.
fn video_out_get_resolution(cx: &mut Cx<'_>, id: u32, res: Ptr) -> Result<(), CellError> {
    let (w, h) = u8::try_from(id)
        .ok()
        .and_then(resolution_size)
        .ok_or(VIDEO_OUT_ILLEGAL_PARAMETER)?;
    let vm = cx.t.vm();
    vm.write_u16(res.0, w)?;
    vm.write_u16(res.0 + 2, h)
}

/// `cellVideoOutConfigure(videoOut, CellVideoOutConfiguration* config,
/// option, waitForEvent)`.
fn video_out_configure(
    cx: &mut Cx<'_>,
    video_out: u32,
    config: Ptr,
    _option: Ptr,
    _wait: u32,
) -> Result<(), CellError> {
    if video_out != 0 {
        return Err(VIDEO_OUT_UNSUPPORTED);
    }
    let vm = cx.t.vm();
    let c = vm.read_bytes(config.0, 16)?;
    if resolution_size(c[0]).is_none() {
        return Err(VIDEO_OUT_ILLEGAL_PARAMETER);
    }
    let pitch = u32::from_be_bytes([c[12], c[13], c[14], c[15]]);
    *lock(&cx.rt.modules.sysutil.video) = VideoConfig {
        resolution: c[0],
        format: c[1],
        aspect: c[2],
        pitch,
    };
    log::info!("video out configured: {:?}", resolution_size(c[0]));
    Ok(())
}

/// `cellVideoOutGetConfiguration(videoOut, CellVideoOutConfiguration* config, option)`.
fn video_out_get_configuration(
    cx: &mut Cx<'_>,
    video_out: u32,
    config: Ptr,
    _option: Ptr,
) -> Result<(), CellError> {
    if video_out != 0 {
        return Err(VIDEO_OUT_UNSUPPORTED);
    }
    let v = *lock(&cx.rt.modules.sysutil.video);
    let mut b = [0u8; 16];
    b[0] = v.resolution;
    b[1] = v.format;
    b[2] = v.aspect;
    b[12..16].copy_from_slice(&v.pitch.to_be_bytes());
    cx.t.vm().write_bytes(config.0, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_names() {
        assert_eq!(parse_language("pt"), Some(7));
        assert_eq!(parse_language("pt-BR"), Some(17));
        assert_eq!(parse_language("EN-gb"), Some(18));
        assert_eq!(parse_language("19"), Some(19));
        assert_eq!(parse_language("20"), None);
        assert_eq!(parse_language("klingon"), None);
    }
}
