//! The simulated display's FIFO rules on a real device. (The built-in
//! scene's shader is checked in runtime/titles/tests/scene.rs.)

use framegen_present::{Display, Mode, PresentTag};
use host_sim::videoout::{Clock, FIRST_REFRESH_PHASE, Profile, SimVideoOut};
use host_sim::vulkan::Gpu;

fn tag(n: u64) -> PresentTag {
    PresentTag {
        present: n,
        picture: n,
    }
}

#[test]
fn the_simulated_display_is_fifo_and_measures_acquire_waits() {
    let gpu = Gpu::new(None, false).expect("a Vulkan device (lavapipe)");
    let mode = Mode {
        width: 64,
        height: 64,
        refresh_mhz: 119_880,
    };
    for (profile, images) in [(Profile::Radv, 4u32), (Profile::Ps5vk, 3)] {
        let mut d = SimVideoOut::new(
            &gpu.device,
            &gpu.memory_properties(),
            mode,
            vec![mode],
            profile,
            Clock::new(true),
        )
        .unwrap();
        assert_eq!(d.info().images, images);
        assert_eq!(d.images().len(), images as usize);
        // Every image acquired and presented at once: no wait.
        for n in 0..u64::from(images) {
            let a = d.acquire().unwrap();
            assert_eq!(a.waited_s, 0.0);
            d.present(a.image, tag(n)).unwrap();
        }
        // The next acquire waits until the second refresh frees the first image.
        let p = mode.period_s();
        let a = d.acquire().unwrap();
        let want = p * FIRST_REFRESH_PHASE + p;
        assert!(
            (a.waited_s - want).abs() < 1e-9,
            "{profile:?}: waited {} s, not {want}",
            a.waited_s
        );
        assert!(
            (d.now_s() - want).abs() < 1e-9,
            "virtual time moved to the refresh"
        );
        d.present(a.image, tag(99)).unwrap();
        let mut l = Vec::new();
        d.take_latched(&mut l);
        assert_eq!(
            l.iter()
                .map(|l| (l.tag.present, l.refresh))
                .collect::<Vec<_>>(),
            [(0, 0), (1, 1)]
        );
        // Flushing shows the rest, in order, one refresh each.
        d.flush().unwrap();
        d.take_latched(&mut l);
        let order: Vec<u64> = l.iter().map(|l| l.tag.present).collect();
        let mut want_order: Vec<u64> = (0..u64::from(images)).collect();
        want_order.push(99);
        assert_eq!(order, want_order);
        assert!(l.windows(2).all(|w| w[1].refresh == w[0].refresh + 1));
    }
    // Real time: a blocked acquire sleeps until the refresh, and says how long.
    let slow = Mode {
        width: 64,
        height: 64,
        refresh_mhz: 59_940,
    };
    let mut d = SimVideoOut::new(
        &gpu.device,
        &gpu.memory_properties(),
        slow,
        vec![slow],
        Profile::Ps5vk,
        Clock::new(false),
    )
    .unwrap();
    for n in 0..3 {
        let a = d.acquire().unwrap();
        d.present(a.image, tag(n)).unwrap();
    }
    let t0 = std::time::Instant::now();
    let a = d.acquire().unwrap();
    assert!(
        a.waited_s > 0.002,
        "a full swapchain's acquire waited {} s",
        a.waited_s
    );
    assert!(t0.elapsed().as_secs_f64() >= a.waited_s * 0.9);
}
