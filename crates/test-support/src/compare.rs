//! Float comparison for results a kernel computes with a different
//! operation order or accuracy than the host reference.

/// Panics unless `|got - want| <= abs_tol + rel_tol * |want|` for every
/// element (NaN matches NaN), naming `what` and the first index that fails.
pub fn assert_close(got: &[f32], want: &[f32], abs_tol: f32, rel_tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= abs_tol + rel_tol * w.abs() || (g.is_nan() && w.is_nan());
        assert!(ok, "{what}[{i}]: got {g}, want {w}");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tolerances_apply() {
        super::assert_close(&[1.0, f32::NAN], &[1.0001, f32::NAN], 0.0, 1e-3, "close");
        let far = std::panic::catch_unwind(|| super::assert_close(&[1.0], &[2.0], 0.1, 0.0, "far"));
        assert!(far.is_err());
    }
}
