//! The VMX SIMD forms against the scalar reference, bit for bit, with NJ on
//! and off, over edge values (NaNs, infinities, denormals, zeros) and
//! random ones.

use ppu_cpu::helpers::vmx::{self, reference, simd};
use ppu_cpu::{V128, VSCR_NJ};

const EDGES: &[u32] = &[
    0,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0x7F80_0001,
    0xFFA0_0000,
    0x0000_0001,
    0x807F_FFFF,
    0x0080_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x3F00_0000,
    0x4B00_0000,
    0x3380_0000,
    0x3400_0001,
    0x0100_0000,
    0x00FF_FFFF,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn word(&mut self) -> u32 {
        match self.next() % 4 {
            0 => EDGES[(self.next() % EDGES.len() as u64) as usize],
            1 => {
                (self.next() as u32 & 0x807F_FFFF) | ((127 - 10 + (self.next() % 20) as u32) << 23)
            }
            2 => (self.next() as u32 & 0x807F_F000) | ((127 - 3 + (self.next() % 6) as u32) << 23),
            _ => self.next() as u32,
        }
    }
    fn vec(&mut self) -> V128 {
        vmx::from_words([self.word(), self.word(), self.word(), self.word()])
    }
}

type Two = (
    &'static str,
    fn(u32, V128, V128) -> Option<V128>,
    fn(u32, V128, V128) -> V128,
);
type Three = (
    &'static str,
    fn(u32, V128, V128, V128) -> Option<V128>,
    fn(u32, V128, V128, V128) -> V128,
);

#[test]
fn simd_forms_agree_with_the_scalar_reference() {
    let two: &[Two] = &[
        ("vaddfp", simd::vaddfp, reference::vaddfp),
        ("vsubfp", simd::vsubfp, reference::vsubfp),
        ("vcmpeqfp", simd::vcmpeqfp, reference::vcmpeqfp),
        ("vcmpgefp", simd::vcmpgefp, reference::vcmpgefp),
        ("vcmpgtfp", simd::vcmpgtfp, reference::vcmpgtfp),
    ];
    let three: &[Three] = &[
        ("vmaddfp", simd::vmaddfp, reference::vmaddfp),
        ("vnmsubfp", simd::vnmsubfp, reference::vnmsubfp),
    ];
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let mut bad = Vec::new();
    let mut taken = 0;
    for _ in 0..30_000 {
        let (a, b, c) = (rng.vec(), rng.vec(), rng.vec());
        for vscr in [0, VSCR_NJ] {
            for (name, fast, refr) in two {
                if let Some(f) = fast(vscr, a, b) {
                    taken += 1;
                    let r = refr(vscr, a, b);
                    if f != r {
                        bad.push(format!(
                            "{name} nj={} a {a:?} b {b:?}: simd {f:?} reference {r:?}",
                            vscr != 0
                        ));
                    }
                }
            }
            for (name, fast, refr) in three {
                if let Some(f) = fast(vscr, a, c, b) {
                    taken += 1;
                    let r = refr(vscr, a, c, b);
                    if f != r {
                        bad.push(format!(
                            "{name} nj={} a {a:?} c {c:?} b {b:?}: simd {f:?} reference {r:?}",
                            vscr != 0
                        ));
                    }
                }
            }
        }
        // vperm: any control bytes.
        if let Some(f) = simd::vperm(a, b, c) {
            taken += 1;
            let r = reference::vperm(a, b, c);
            if f != r {
                bad.push(format!(
                    "vperm a {a:?} b {b:?} c {c:?}: simd {f:?} reference {r:?}"
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} differences, e.g.:\n{}",
        bad.len(),
        bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
    #[cfg(target_arch = "x86_64")]
    assert!(taken > 300_000, "SIMD forms taken only {taken} times");
    let _ = taken;
}
