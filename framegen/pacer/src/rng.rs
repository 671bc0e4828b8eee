//! A tiny seeded random number generator (xorshift64*), so the simulator's
//! jitter is deterministic and needs neither std nor a dependency.

/// xorshift64* (Vigna): 64 bits of state, good enough for timing jitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// A generator from `seed`; seed 0 (which xorshift cannot use) is
    /// replaced by a fixed odd constant.
    pub const fn new(seed: u64) -> Self {
        Self {
            state: if seed == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                seed
            },
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in [0, 1), 53 bits of it random.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let mut a = XorShift64::new(7);
        let mut b = XorShift64::new(7);
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let x = a.next_f64();
            assert_eq!(x, b.next_f64());
            assert!((0.0..1.0).contains(&x));
            sum += x;
        }
        // The mean of 10 000 uniform draws is 0.5 within a few hundredths.
        assert!((sum / 10_000.0 - 0.5).abs() < 0.02, "{sum}");
        assert_ne!(XorShift64::new(0).next_u64(), 0);
    }
}
