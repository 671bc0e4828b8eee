//! The console's controller as the PS3 pad the HLE pad module reads: the
//! libScePad state (`ScePadData`, as the public SDK headers lay it out)
//! converted to `platform::PadState`. The console code polls it
//! (`console::pad`); the conversion is pure and tested on the host.
//!
//! | DualSense | PS3 |
//! |---|---|
//! | d-pad, cross, circle, square, triangle, L1, R1, L2, R2, L3, R3 | the same |
//! | OPTIONS | START |
//! | touch pad (click) | SELECT |
//! | sticks (0..255, centre 128) | the same |

use platform::{PadButtons, PadState};

/// `ScePadData.buttons` bits (the SDK's `SCE_PAD_BUTTON_*`).
pub mod button {
    /// L3.
    pub const L3: u32 = 0x0002;
    /// R3.
    pub const R3: u32 = 0x0004;
    /// OPTIONS.
    pub const OPTIONS: u32 = 0x0008;
    /// D-pad up.
    pub const UP: u32 = 0x0010;
    /// D-pad right.
    pub const RIGHT: u32 = 0x0020;
    /// D-pad down.
    pub const DOWN: u32 = 0x0040;
    /// D-pad left.
    pub const LEFT: u32 = 0x0080;
    /// L2.
    pub const L2: u32 = 0x0100;
    /// R2.
    pub const R2: u32 = 0x0200;
    /// L1.
    pub const L1: u32 = 0x0400;
    /// R1.
    pub const R1: u32 = 0x0800;
    /// Triangle.
    pub const TRIANGLE: u32 = 0x1000;
    /// Circle.
    pub const CIRCLE: u32 = 0x2000;
    /// Cross.
    pub const CROSS: u32 = 0x4000;
    /// Square.
    pub const SQUARE: u32 = 0x8000;
    /// The touch pad's click.
    pub const TOUCH_PAD: u32 = 0x0010_0000;
}

/// Bytes of `ScePadData` (120 in the public headers); the console code
/// hands the library a buffer at least this big.
pub const PAD_DATA_BYTES: usize = 120;
/// Where `ScePadData` keeps the buttons, the sticks and `connected`.
const BUTTONS_AT: usize = 0;
const STICKS_AT: usize = 4;
const CONNECTED_AT: usize = 76;

const MAP: [(u32, u16); 16] = [
    (button::UP, PadButtons::UP),
    (button::RIGHT, PadButtons::RIGHT),
    (button::DOWN, PadButtons::DOWN),
    (button::LEFT, PadButtons::LEFT),
    (button::CROSS, PadButtons::CROSS),
    (button::CIRCLE, PadButtons::CIRCLE),
    (button::SQUARE, PadButtons::SQUARE),
    (button::TRIANGLE, PadButtons::TRIANGLE),
    (button::L1, PadButtons::L1),
    (button::R1, PadButtons::R1),
    (button::L2, PadButtons::L2),
    (button::R2, PadButtons::R2),
    (button::L3, PadButtons::L3),
    (button::R3, PadButtons::R3),
    (button::OPTIONS, PadButtons::START),
    (button::TOUCH_PAD, PadButtons::SELECT),
];

/// The PS3 pad for a `ScePadData` (`None`: the controller is not
/// connected).
pub fn from_pad_data(data: &[u8; PAD_DATA_BYTES]) -> Option<PadState> {
    if data[CONNECTED_AT] == 0 {
        return None;
    }
    let buttons = u32::from_le_bytes(
        data[BUTTONS_AT..BUTTONS_AT + 4]
            .try_into()
            .expect("4 bytes"),
    );
    let bits = MAP
        .iter()
        .filter(|(b, _)| buttons & b != 0)
        .fold(0u16, |a, (_, p)| a | p);
    Some(PadState {
        buttons: PadButtons(bits),
        left_x: data[STICKS_AT],
        left_y: data[STICKS_AT + 1],
        right_x: data[STICKS_AT + 2],
        right_y: data[STICKS_AT + 3],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(buttons: u32, sticks: [u8; 4], connected: bool) -> [u8; PAD_DATA_BYTES] {
        let mut d = [0u8; PAD_DATA_BYTES];
        d[..4].copy_from_slice(&buttons.to_le_bytes());
        d[4..8].copy_from_slice(&sticks);
        d[CONNECTED_AT] = u8::from(connected);
        d
    }

    #[test]
    fn buttons_and_sticks() {
        let p = from_pad_data(&data(
            button::RIGHT | button::CROSS | button::OPTIONS | button::TOUCH_PAD,
            [0xFF, 0x80, 0x10, 0x20],
            true,
        ))
        .unwrap();
        assert_eq!(
            p.buttons.0,
            PadButtons::RIGHT | PadButtons::CROSS | PadButtons::START | PadButtons::SELECT
        );
        assert_eq!(
            (p.left_x, p.left_y, p.right_x, p.right_y),
            (0xFF, 0x80, 0x10, 0x20)
        );
        assert_eq!(from_pad_data(&data(button::CROSS, [0x80; 4], false)), None);
        // Every console button has its own PS3 button.
        let all = MAP.iter().fold(0u32, |a, (b, _)| a | b);
        let p = from_pad_data(&data(all, [0x80; 4], true)).unwrap();
        assert_eq!(p.buttons.0.count_ones(), 16);
    }
}
