//! Pad state shared between an input source (a window, a controller) and
//! the HLE pad module.

use std::sync::Mutex;

/// PS3 pad buttons, as `cellPad` reports them: the low byte is DIGITAL2
/// (square, cross, circle, triangle, R1, L1, R2, L2), the next byte
/// DIGITAL1 (left, down, right, up, start, R3, L3, select).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PadButtons(pub u16);

impl PadButtons {
    /// Select.
    pub const SELECT: u16 = 0x0100;
    /// L3.
    pub const L3: u16 = 0x0200;
    /// R3.
    pub const R3: u16 = 0x0400;
    /// Start.
    pub const START: u16 = 0x0800;
    /// D-pad up.
    pub const UP: u16 = 0x1000;
    /// D-pad right.
    pub const RIGHT: u16 = 0x2000;
    /// D-pad down.
    pub const DOWN: u16 = 0x4000;
    /// D-pad left.
    pub const LEFT: u16 = 0x8000;
    /// L2.
    pub const L2: u16 = 0x0001;
    /// R2.
    pub const R2: u16 = 0x0002;
    /// L1.
    pub const L1: u16 = 0x0004;
    /// R1.
    pub const R1: u16 = 0x0008;
    /// Triangle.
    pub const TRIANGLE: u16 = 0x0010;
    /// Circle.
    pub const CIRCLE: u16 = 0x0020;
    /// Cross.
    pub const CROSS: u16 = 0x0040;
    /// Square.
    pub const SQUARE: u16 = 0x0080;

    /// The DIGITAL1 byte.
    pub fn digital1(self) -> u16 {
        self.0 >> 8
    }
    /// The DIGITAL2 byte.
    pub fn digital2(self) -> u16 {
        self.0 & 0xFF
    }
}

/// One pad's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PadState {
    /// Buttons held.
    pub buttons: PadButtons,
    /// Left stick X (0 left, 0x80 centre, 0xFF right).
    pub left_x: u8,
    /// Left stick Y (0 up, 0x80 centre, 0xFF down).
    pub left_y: u8,
    /// Right stick X.
    pub right_x: u8,
    /// Right stick Y.
    pub right_y: u8,
}

impl Default for PadState {
    fn default() -> Self {
        PadState {
            buttons: PadButtons(0),
            left_x: 0x80,
            left_y: 0x80,
            right_x: 0x80,
            right_y: 0x80,
        }
    }
}

/// The pads an input source fills in: up to 7 ports, each connected or not.
#[derive(Debug, Default)]
pub struct SharedPads {
    ports: Mutex<[Option<PadState>; 7]>,
}

impl SharedPads {
    /// Sets port `port`'s state (`None`: unplugged). Ports past 6 are ignored.
    pub fn set(&self, port: usize, state: Option<PadState>) {
        if let Some(slot) = self
            .ports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(port)
        {
            *slot = state;
        }
    }

    /// Port `port`'s state, `None` when nothing is plugged in.
    pub fn get(&self, port: usize) -> Option<PadState> {
        self.ports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(port)
            .copied()
            .flatten()
    }

    /// Whether any port has a pad.
    pub fn any_connected(&self) -> bool {
        self.ports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(Option::is_some)
    }
}
