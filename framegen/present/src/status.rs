//! The status line, every few seconds: game fps, presents a second, the
//! share of generated presents, GPU time (flow / interpolation), the
//! pacer's state and why it is not generating.

use framegen::GpuTime;
use framegen_pacer::State;

/// One status line's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// Display clock at the end of the interval, seconds.
    pub at_s: f64,
    /// The interval, seconds.
    pub interval_s: f64,
    /// Game frames a second.
    pub game_fps: f64,
    /// Presents a second.
    pub presents_per_s: f64,
    /// Generated presents over all presents, 0..1.
    pub generated_share: f64,
    /// GPU time of frame generation in the interval (read back late).
    pub gpu: Option<GpuTime>,
    /// The pacer's state now.
    pub state: State,
    /// Drains in the interval (first acquires that waited).
    pub drains: u32,
    /// Dump records dropped so far.
    pub dump_dropped: u64,
}

/// Why the pacer is where it is, in a few words.
pub fn reason(state: State) -> String {
    match state {
        State::Generating => "generating".into(),
        State::Priming => "priming (history starts)".into(),
        State::WarmingUp { frames_left } => format!("warming up ({frames_left} frames left)"),
        State::Uneven => "not generating: uneven frame lengths".into(),
        State::NoRoom => "not generating: no room (a game frame lasts one refresh)".into(),
        State::Paused { resume_at_s } => {
            format!("not generating: safety net pause until {resume_at_s:.1} s")
        }
        State::Draining => "draining the swapchain queue".into(),
        State::Disabled => "frame generation off".into(),
        State::LimiterNotNominal => "not generating: frame limiter not nominal".into(),
        State::InvalidRates => "not generating: invalid rates".into(),
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[{:7.1} s] game {:5.1} fps | {:5.1} presents/s, {:4.1} % generated | ",
            self.at_s,
            self.game_fps,
            self.presents_per_s,
            100.0 * self.generated_share
        )?;
        match &self.gpu {
            Some(g) => write!(
                f,
                "GPU {:.2} ms (flow {:.2} / interp {:.2}) | ",
                g.mean_ms,
                g.flow_mean_ms,
                (g.mean_ms - g.flow_mean_ms).max(0.0)
            )?,
            None => f.write_str("GPU - | ")?,
        }
        write!(f, "pacer {}", reason(self.state))?;
        if self.drains > 0 {
            write!(f, " | {} drains", self.drains)?;
        }
        if self.dump_dropped > 0 {
            write!(f, " | dump dropped {}", self.dump_dropped)?;
        }
        Ok(())
    }
}

/// Counts over one status interval.
#[derive(Debug, Clone, Default)]
pub(crate) struct StatusCounter {
    pub(crate) since_s: Option<f64>,
    pub(crate) frames: u64,
    pub(crate) presents: u64,
    pub(crate) generated: u64,
    pub(crate) drains: u32,
    gpu_sum: f64,
    gpu_flow_sum: f64,
    gpu_max: f64,
    gpu_n: u32,
}

impl StatusCounter {
    pub(crate) fn add_gpu(&mut self, g: &GpuTime) {
        self.gpu_sum += g.mean_ms * f64::from(g.count);
        self.gpu_flow_sum += g.flow_mean_ms * f64::from(g.count);
        self.gpu_max = self.gpu_max.max(g.max_ms);
        self.gpu_n += g.count;
    }

    /// The status line when `every_s` has passed since the interval began
    /// (and starts the next interval).
    pub(crate) fn take(
        &mut self,
        now_s: f64,
        every_s: f64,
        state: State,
        dropped: u64,
    ) -> Option<Status> {
        let since = *self.since_s.get_or_insert(now_s);
        let dt = now_s - since;
        if every_s <= 0.0 || dt < every_s {
            return None;
        }
        let gpu = (self.gpu_n > 0).then(|| GpuTime {
            mean_ms: self.gpu_sum / f64::from(self.gpu_n),
            max_ms: self.gpu_max,
            count: self.gpu_n,
            flow_mean_ms: self.gpu_flow_sum / f64::from(self.gpu_n),
        });
        let s = Status {
            at_s: now_s,
            interval_s: dt,
            game_fps: self.frames as f64 / dt,
            presents_per_s: self.presents as f64 / dt,
            generated_share: self.generated as f64 / self.presents.max(1) as f64,
            gpu,
            state,
            drains: self.drains,
            dump_dropped: dropped,
        };
        *self = StatusCounter {
            since_s: Some(now_s),
            ..StatusCounter::default()
        };
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_every_interval() {
        let mut c = StatusCounter::default();
        assert!(c.take(0.0, 5.0, State::Generating, 0).is_none());
        c.frames = 300;
        c.presents = 600;
        c.generated = 300;
        c.add_gpu(&GpuTime {
            mean_ms: 3.0,
            max_ms: 4.0,
            count: 10,
            flow_mean_ms: 1.0,
        });
        assert!(c.take(4.9, 5.0, State::Generating, 0).is_none());
        let s = c.take(5.0, 5.0, State::Generating, 0).unwrap();
        assert_eq!(s.game_fps, 60.0);
        assert_eq!(s.presents_per_s, 120.0);
        assert_eq!(s.generated_share, 0.5);
        let line = s.to_string();
        assert!(line.contains("game  60.0 fps"), "{line}");
        assert!(
            line.contains("GPU 3.00 ms (flow 1.00 / interp 2.00)"),
            "{line}"
        );
        assert!(line.contains("pacer generating"), "{line}");
        assert_eq!(c.frames, 0);
        let s = StatusCounter::default();
        let _ = s;
        assert!(reason(State::NoRoom).contains("no room"));
    }
}
