//! A FIFO display in virtual time: what a VideoOut display with a FIFO
//! swapchain does with presents, without a clock or a GPU.
//!
//! - Refreshes (vblanks) come at `first_vblank_s + n * period_s`.
//! - The swapchain has 2 to [`MAX_IMAGES`] images. The application acquires a
//!   free one (waiting for a refresh when none is free), then presents it.
//! - Presents are queued in order. At each refresh the oldest queued present
//!   (made before that refresh) goes on screen and the image that was on
//!   screen becomes free again. So every present is shown for at least one
//!   refresh, and an image stays on screen until the next present replaces it.
//!
//! Time only moves when the caller asks: [`FifoDisplay::advance_to`] runs the
//! refreshes up to a time, and [`FifoDisplay::acquire`] runs them until an
//! image is free. Each refresh is reported to a callback with what it shows,
//! so a caller can count refreshes per image, latency or repeats.

use heapless::Deque;

/// The most swapchain images the display models.
pub const MAX_IMAGES: usize = 8;

/// A present waiting in the queue.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Queued<T> {
    image: u8,
    at_s: f64,
    content: T,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Free,
    Acquired,
    Queued,
    OnScreen,
}

/// One refresh of the display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Refresh<T> {
    /// The refresh's number, from 0.
    pub index: u64,
    /// When it starts (the vblank), seconds.
    pub at_s: f64,
    /// What it shows: the content of the present on screen (`None` before
    /// the first present).
    pub shown: Option<T>,
    /// Whether a present went on screen at this refresh (false: the display
    /// shows the previous image again).
    pub latched: bool,
    /// Presents still queued after this refresh took its image.
    pub queued_after: usize,
}

/// An image acquired from the swapchain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acquired {
    /// The image's index.
    pub image: u8,
    /// When the acquire returned, seconds.
    pub at_s: f64,
    /// How long it waited for a refresh to free an image, seconds.
    pub waited_s: f64,
}

/// Misuse of the display (these are the caller's bugs; the display's state
/// is unchanged when one is returned).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FifoError {
    /// The image count is outside 2..=[`MAX_IMAGES`].
    Images(u8),
    /// The refresh period is not finite and positive.
    Period(f64),
    /// Every image not on screen is acquired and none queued: an acquire
    /// would wait forever.
    AllAcquired,
    /// The presented image was not acquired.
    NotAcquired(u8),
}

impl core::fmt::Display for FifoError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FifoError::Images(n) => {
                write!(
                    f,
                    "swapchain images: {n} is not supported (use 2 to {MAX_IMAGES})"
                )
            }
            FifoError::Period(p) => write!(f, "refresh period {p} s is not a positive time"),
            FifoError::AllAcquired => {
                f.write_str("acquire would wait forever: every free image is already acquired")
            }
            FifoError::NotAcquired(i) => write!(f, "present of image {i}, which is not acquired"),
        }
    }
}

/// The display and its swapchain. `T` is whatever the caller wants to know
/// about a present when it is shown (a frame number, generated or not).
#[derive(Clone, Debug)]
pub struct FifoDisplay<T: Copy> {
    period_s: f64,
    first_vblank_s: f64,
    images: u8,
    slots: [Slot; MAX_IMAGES],
    queue: Deque<Queued<T>, MAX_IMAGES>,
    on_screen: Option<(u8, T)>,
    next_refresh: u64,
}

impl<T: Copy> FifoDisplay<T> {
    /// A display refreshing every `period_s` seconds, the first refresh at
    /// `first_vblank_s`, with `images` swapchain images, all free, nothing on
    /// screen.
    pub fn new(period_s: f64, first_vblank_s: f64, images: u8) -> Result<Self, FifoError> {
        if !(2..=MAX_IMAGES as u8).contains(&images) {
            return Err(FifoError::Images(images));
        }
        if !(period_s.is_finite() && period_s > 0.0) {
            return Err(FifoError::Period(period_s));
        }
        Ok(Self {
            period_s,
            first_vblank_s,
            images,
            slots: [Slot::Free; MAX_IMAGES],
            queue: Deque::new(),
            on_screen: None,
            next_refresh: 0,
        })
    }

    /// The refresh period, seconds.
    pub fn period_s(&self) -> f64 {
        self.period_s
    }

    /// The swapchain's image count.
    pub fn images(&self) -> u8 {
        self.images
    }

    /// When refresh `n` starts, seconds.
    pub fn refresh_time(&self, n: u64) -> f64 {
        self.first_vblank_s + n as f64 * self.period_s
    }

    /// When the next refresh not yet run starts.
    pub fn next_refresh_s(&self) -> f64 {
        self.refresh_time(self.next_refresh)
    }

    /// Refreshes run so far.
    pub fn refreshes(&self) -> u64 {
        self.next_refresh
    }

    /// Presents queued and not yet shown.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// What is on screen now.
    pub fn on_screen(&self) -> Option<T> {
        self.on_screen.map(|(_, c)| c)
    }

    /// Runs every refresh that starts at or before `t_s`, reporting each.
    pub fn advance_to(&mut self, t_s: f64, on_refresh: &mut impl FnMut(Refresh<T>)) {
        while self.next_refresh_s() <= t_s {
            self.refresh(on_refresh);
        }
    }

    /// Acquires a free image at `t_s`, running refreshes until one is free.
    pub fn acquire(
        &mut self,
        t_s: f64,
        on_refresh: &mut impl FnMut(Refresh<T>),
    ) -> Result<Acquired, FifoError> {
        self.advance_to(t_s, on_refresh);
        let mut at = t_s;
        loop {
            if let Some(i) = self.free_slot() {
                self.slots[i] = Slot::Acquired;
                return Ok(Acquired {
                    image: i as u8,
                    at_s: at,
                    waited_s: at - t_s,
                });
            }
            if self.queue.is_empty() {
                return Err(FifoError::AllAcquired);
            }
            at = at.max(self.next_refresh_s());
            self.refresh(on_refresh);
        }
    }

    /// Presents an acquired image at `at_s`: it goes on screen at the first
    /// refresh after `at_s` at which every earlier present has been shown.
    pub fn present(&mut self, image: u8, at_s: f64, content: T) -> Result<(), FifoError> {
        let i = usize::from(image);
        if i >= usize::from(self.images) || self.slots[i] != Slot::Acquired {
            return Err(FifoError::NotAcquired(image));
        }
        // Presents stay in time order: one made "earlier" than the one before
        // it cannot be shown before it anyway.
        let at_s = self.queue.back().map_or(at_s, |b| b.at_s.max(at_s));
        // Cannot fail: at most `images - 1` images are queued.
        let _ = self.queue.push_back(Queued {
            image,
            at_s,
            content,
        });
        self.slots[i] = Slot::Queued;
        Ok(())
    }

    fn free_slot(&self) -> Option<usize> {
        self.slots[..usize::from(self.images)]
            .iter()
            .position(|s| *s == Slot::Free)
    }

    fn refresh(&mut self, on_refresh: &mut impl FnMut(Refresh<T>)) {
        let at = self.next_refresh_s();
        let latch = self.queue.front().is_some_and(|q| q.at_s < at);
        if latch && let Some(q) = self.queue.pop_front() {
            if let Some((old, _)) = self.on_screen {
                self.slots[usize::from(old)] = Slot::Free;
            }
            self.slots[usize::from(q.image)] = Slot::OnScreen;
            self.on_screen = Some((q.image, q.content));
        }
        on_refresh(Refresh {
            index: self.next_refresh,
            at_s: at,
            shown: self.on_screen.map(|(_, c)| c),
            latched: latch,
            queued_after: self.queue.len(),
        });
        self.next_refresh += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nothing(_: Refresh<u32>) {}

    #[test]
    fn presents_show_in_order_one_refresh_at_least() {
        let mut d = FifoDisplay::<u32>::new(0.01, 0.005, 4).unwrap();
        let mut shown = heapless::Vec::<(Option<u32>, bool), 8>::new();
        let mut log = |r: Refresh<u32>| shown.push((r.shown, r.latched)).unwrap();
        for c in 0..3 {
            let a = d.acquire(0.0, &mut log).unwrap();
            assert_eq!(a.waited_s, 0.0);
            d.present(a.image, 0.0, c).unwrap();
        }
        d.advance_to(0.05, &mut log);
        assert_eq!(
            shown.as_slice(),
            &[
                (Some(0), true),
                (Some(1), true),
                (Some(2), true),
                (Some(2), false),
                (Some(2), false)
            ]
        );
    }

    #[test]
    fn acquire_waits_for_a_refresh_when_all_images_are_busy() {
        let mut d = FifoDisplay::<u32>::new(0.01, 0.005, 2).unwrap();
        let a = d.acquire(0.0, &mut nothing).unwrap();
        d.present(a.image, 0.0, 0).unwrap();
        let b = d.acquire(0.0, &mut nothing).unwrap();
        d.present(b.image, 0.0, 1).unwrap();
        // Image a is on screen after the first refresh, b is queued: the
        // next acquire waits until b goes on screen at the second refresh.
        let c = d.acquire(0.001, &mut nothing).unwrap();
        assert!((c.at_s - 0.015).abs() < 1e-12, "{c:?}");
        assert!((c.waited_s - 0.014).abs() < 1e-12);
        assert_eq!(c.image, a.image);
    }

    #[test]
    fn a_present_made_on_the_vblank_waits_for_the_next() {
        let mut d = FifoDisplay::<u32>::new(0.01, 0.0, 2).unwrap();
        let mut latched_at = None;
        let a = d.acquire(0.0, &mut nothing).unwrap();
        d.present(a.image, 0.0, 7).unwrap();
        d.advance_to(0.02, &mut |r: Refresh<u32>| {
            if r.latched {
                latched_at = Some(r.index);
            }
        });
        assert_eq!(latched_at, Some(1));
    }

    #[test]
    fn misuse_is_an_error() {
        assert_eq!(
            FifoDisplay::<u32>::new(0.01, 0.0, 1).unwrap_err(),
            FifoError::Images(1)
        );
        assert_eq!(
            FifoDisplay::<u32>::new(0.01, 0.0, 9).unwrap_err(),
            FifoError::Images(9)
        );
        assert!(matches!(
            FifoDisplay::<u32>::new(0.0, 0.0, 2),
            Err(FifoError::Period(_))
        ));
        let mut d = FifoDisplay::<u32>::new(0.01, 0.0, 2).unwrap();
        assert_eq!(d.present(0, 0.0, 1), Err(FifoError::NotAcquired(0)));
        d.acquire(0.0, &mut nothing).unwrap();
        d.acquire(0.0, &mut nothing).unwrap();
        assert_eq!(d.acquire(0.0, &mut nothing), Err(FifoError::AllAcquired));
    }
}
