//! The keyboard as the PS3 pad (port 0) in `--window`: which key is which
//! button, the held state, and the key script `--window-keys` types into
//! the window.
//!
//! | key | button |
//! |---|---|
//! | arrows | d-pad |
//! | X, space | cross |
//! | Z | circle |
//! | A | square |
//! | S | triangle |
//! | Q, E | L1, R1 |
//! | Enter | start |
//! | Backspace | select (start + select quits the demo) |

use platform::{PadButtons, PadState};

/// X keysyms of the keys used (X11's `keysymdef.h`).
pub mod keysym {
    /// Left arrow.
    pub const LEFT: u32 = 0xFF51;
    /// Up arrow.
    pub const UP: u32 = 0xFF52;
    /// Right arrow.
    pub const RIGHT: u32 = 0xFF53;
    /// Down arrow.
    pub const DOWN: u32 = 0xFF54;
    /// Enter.
    pub const RETURN: u32 = 0xFF0D;
    /// Backspace.
    pub const BACKSPACE: u32 = 0xFF08;
    /// Space.
    pub const SPACE: u32 = 0x20;
}

/// The pad button a key (X keysym) stands for.
pub fn button(sym: u32) -> Option<u16> {
    // Letters: either case.
    let sym = if (u32::from(b'A')..=u32::from(b'Z')).contains(&sym) {
        sym + 0x20
    } else {
        sym
    };
    Some(match sym {
        keysym::LEFT => PadButtons::LEFT,
        keysym::UP => PadButtons::UP,
        keysym::RIGHT => PadButtons::RIGHT,
        keysym::DOWN => PadButtons::DOWN,
        keysym::RETURN => PadButtons::START,
        keysym::BACKSPACE => PadButtons::SELECT,
        keysym::SPACE => PadButtons::CROSS,
        0x78 => PadButtons::CROSS,    // x
        0x7A => PadButtons::CIRCLE,   // z
        0x61 => PadButtons::SQUARE,   // a
        0x73 => PadButtons::TRIANGLE, // s
        0x71 => PadButtons::L1,       // q
        0x65 => PadButtons::R1,       // e
        _ => return None,
    })
}

/// The keysym of a key's name in a key script (`Right`, `x`, `Return` ...).
pub fn by_name(name: &str) -> Option<u32> {
    Some(match name.to_ascii_lowercase().as_str() {
        "left" => keysym::LEFT,
        "up" => keysym::UP,
        "right" => keysym::RIGHT,
        "down" => keysym::DOWN,
        "return" | "enter" => keysym::RETURN,
        "backspace" => keysym::BACKSPACE,
        "space" => keysym::SPACE,
        s if s.len() == 1 && s.as_bytes()[0].is_ascii_lowercase() => u32::from(s.as_bytes()[0]),
        _ => return None,
    })
}

/// The keys held, as pad 0's state.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Keyboard {
    held: Vec<u32>,
}

impl Keyboard {
    /// A key went down (`true`) or up. Returns whether the pad changed.
    pub fn key(&mut self, sym: u32, down: bool) -> bool {
        if button(sym).is_none() {
            return false;
        }
        let at = self.held.iter().position(|&s| s == sym);
        match (down, at) {
            (true, None) => self.held.push(sym),
            (false, Some(i)) => {
                self.held.swap_remove(i);
            }
            _ => return false,
        }
        true
    }

    /// The keys held (keysyms, in the order pressed).
    pub fn held(&self) -> &[u32] {
        &self.held
    }

    /// The pad's state.
    pub fn pad(&self) -> PadState {
        PadState {
            buttons: PadButtons(
                self.held
                    .iter()
                    .filter_map(|&s| button(s))
                    .fold(0, |a, b| a | b),
            ),
            ..PadState::default()
        }
    }
}

/// `--window-keys`: keys held from a game frame on, `FRAME:KEY+KEY;...`
/// (each step holds exactly its keys; `FRAME:` releases them all), e.g.
/// `10:Right+x;40:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyScript {
    steps: Vec<(u64, Vec<u32>)>,
}

impl std::str::FromStr for KeyScript {
    type Err = String;
    fn from_str(s: &str) -> Result<KeyScript, String> {
        let mut steps: Vec<(u64, Vec<u32>)> = Vec::new();
        for (i, step) in s
            .split(';')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .enumerate()
        {
            let (frame, keys) = step.split_once(':').ok_or_else(|| {
                format!(
                    "--window-keys step {} ({step:?}): expected FRAME:KEY+KEY",
                    i + 1
                )
            })?;
            let frame: u64 = frame.trim().parse().map_err(|_| {
                format!(
                    "--window-keys step {} ({step:?}): {frame:?} is not a game frame number",
                    i + 1
                )
            })?;
            if steps.last().is_some_and(|(f, _)| *f >= frame) {
                return Err(format!(
                    "--window-keys step {} ({step:?}): frames must increase",
                    i + 1
                ));
            }
            let mut syms = Vec::new();
            for k in keys.split('+').map(str::trim).filter(|k| !k.is_empty()) {
                let sym = by_name(k).filter(|&s| button(s).is_some()).ok_or_else(|| {
                    format!(
                        "--window-keys step {} ({step:?}): unknown key {k:?} (arrows, x, z, a, s, q, e, space, return, backspace)",
                        i + 1
                    )
                })?;
                syms.push(sym);
            }
            steps.push((frame, syms));
        }
        Ok(KeyScript { steps })
    }
}

impl KeyScript {
    /// The keys held at game frame `frame` when the script says so (a step
    /// starts there), else `None`.
    pub fn at(&self, frame: u64) -> Option<&[u32]> {
        self.steps
            .iter()
            .find(|(f, _)| *f == frame)
            .map(|(_, k)| k.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_buttons() {
        assert_eq!(button(keysym::RIGHT), Some(PadButtons::RIGHT));
        assert_eq!(button(u32::from(b'X')), Some(PadButtons::CROSS));
        assert_eq!(button(u32::from(b'x')), Some(PadButtons::CROSS));
        assert_eq!(button(0xFFE1), None); // shift
        let mut k = Keyboard::default();
        assert!(k.key(keysym::RIGHT, true));
        assert!(k.key(keysym::SPACE, true));
        assert!(!k.key(keysym::SPACE, true), "auto-repeat changes nothing");
        assert_eq!(k.pad().buttons.0, PadButtons::RIGHT | PadButtons::CROSS);
        assert!(k.key(keysym::RIGHT, false));
        assert_eq!(k.pad().buttons.0, PadButtons::CROSS);
        assert!(!k.key(0xFFE1, true));
        assert_eq!((k.pad().left_x, k.pad().left_y), (0x80, 0x80));
    }

    #[test]
    fn key_scripts() {
        let s: KeyScript = "10:Right+x; 40:".parse().unwrap();
        assert_eq!(s.at(10), Some(&[keysym::RIGHT, u32::from(b'x')][..]));
        assert_eq!(s.at(40), Some(&[][..]));
        assert_eq!(s.at(11), None);
        assert!(
            "10:Right;5:"
                .parse::<KeyScript>()
                .unwrap_err()
                .contains("increase")
        );
        assert!(
            "10:F1"
                .parse::<KeyScript>()
                .unwrap_err()
                .contains("unknown key \"F1\"")
        );
        assert!(
            "ten:x"
                .parse::<KeyScript>()
                .unwrap_err()
                .contains("not a game frame")
        );
    }
}
