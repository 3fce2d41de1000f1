//! Order statistics over timing samples (the machine is noisy: medians and
//! minima, never means).

use std::time::Duration;

/// The `q`-quantile (0.0..=1.0, nearest rank) of `samples`; zero when empty.
pub fn quantile(samples: &[Duration], q: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = samples.to_vec();
    sorted.sort();
    let rank = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    sorted[rank]
}

pub fn median(samples: &[Duration]) -> Duration {
    quantile(samples, 0.5)
}

pub fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_pick_nearest_rank() {
        let s: Vec<Duration> = [5u64, 1, 4, 2, 3].map(Duration::from_micros).to_vec();
        assert_eq!(median(&s), Duration::from_micros(3));
        assert_eq!(quantile(&s, 0.0), Duration::from_micros(1));
        assert_eq!(quantile(&s, 1.0), Duration::from_micros(5));
        assert_eq!(median(&[]), Duration::ZERO);
    }
}
