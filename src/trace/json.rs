//! The bytes of trace records: a JSON writer for records whose keys are
//! known when the code is written.
//!
//! Why not serde_json's serializer for every record: a traced dispatch is
//! one slice of about forty keys and values, and the trace thread writes
//! one per dispatch (10 000 per submission in `cargo bench --bench
//! dispatch`). Through serde, every key is scanned for characters to
//! escape and every time is formatted as an `f64`; on a 2-core host that
//! work competed with the traced program for a core. Here the keys are
//! `&'static str`s written as they are (checked once, in debug builds, to
//! need no escaping), integers go through `itoa` (the integer formatter
//! serde_json itself uses) and times are written as fixed-point
//! microseconds from integer nanoseconds, which is exact. Strings that
//! come from outside (kernel names, host slices' free-form arguments) are
//! still written by serde_json, and the tests read every file back with
//! serde_json's parser.

use serde::Serialize;

/// Appends JSON to a byte vector; the caller opens and closes objects and
/// arrays and writes the commas (`key` writes the one before a key when
/// `first` is false).
pub(crate) struct JsonOut<'a> {
    pub(crate) out: &'a mut Vec<u8>,
}

impl JsonOut<'_> {
    /// Bytes as they are (punctuation, or JSON made elsewhere).
    #[inline]
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// `"key":`, after a comma unless `first`.
    #[inline]
    pub(crate) fn key(&mut self, key: &'static str, first: bool) {
        debug_assert!(
            key.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\'),
            "trace key {key:?} needs escaping"
        );
        if !first {
            self.out.push(b',');
        }
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// An unsigned integer.
    #[inline]
    pub(crate) fn u64(&mut self, v: u64) {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }

    /// `,"key":v` (or without the comma when `first`).
    #[inline]
    pub(crate) fn field_u64(&mut self, key: &'static str, v: u64, first: bool) {
        self.key(key, first);
        self.u64(v);
    }

    /// A string, escaped (serde_json's escaping).
    pub(crate) fn str(&mut self, s: &str) {
        self.serde(s);
    }

    /// Any serde value (free-form arguments).
    pub(crate) fn serde(&mut self, v: &(impl Serialize + ?Sized)) {
        // Writing into a Vec cannot fail, and the values written here
        // (strings, JSON maps) always serialize.
        let _ = serde_json::to_writer(&mut *self.out, v);
    }

    /// `{"a":1,"b":2}` of unsigned integers under static keys.
    pub(crate) fn object_u64(&mut self, pairs: &[(&'static str, u64)]) {
        self.out.push(b'{');
        for (i, (k, v)) in pairs.iter().enumerate() {
            self.field_u64(k, *v, i == 0);
        }
        self.out.push(b'}');
    }

    /// `[a,b,c]` of unsigned integers.
    pub(crate) fn array(&mut self, values: impl IntoIterator<Item = u64>) {
        self.out.push(b'[');
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.u64(v);
        }
        self.out.push(b']');
    }

    /// `ns - origin_ns` nanoseconds as microseconds: the integer part, and
    /// the nanoseconds as up to three decimals (none when 0).
    pub(crate) fn micros(&mut self, ns: u64, origin_ns: u64) {
        let (magnitude, negative) = match ns.checked_sub(origin_ns) {
            Some(d) => (d, false),
            None => (origin_ns - ns, true),
        };
        if negative {
            self.out.push(b'-');
        }
        self.u64(magnitude / 1000);
        let frac = magnitude % 1000;
        if frac != 0 {
            let digits = [
                b'.',
                b'0' + (frac / 100) as u8,
                b'0' + (frac / 10 % 10) as u8,
                b'0' + (frac % 10) as u8,
            ];
            let len = 4 - usize::from(frac % 10 == 0) - usize::from(frac % 100 == 0);
            self.out.extend_from_slice(&digits[..len]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(f: impl FnOnce(&mut JsonOut<'_>)) -> String {
        let mut out = Vec::new();
        f(&mut JsonOut { out: &mut out });
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn micros_are_exact_fixed_point() {
        let cases = [
            (5_000, 0, "5"),
            (5_001, 0, "5.001"),
            (5_010, 0, "5.01"),
            (5_100, 0, "5.1"),
            (123_456_789, 456_789, "123000"),
            (0, 1_500, "-1.5"),
            (999, 0, "0.999"),
            (u64::MAX, 0, "18446744073709551.615"),
        ];
        for (ns, origin, text) in cases {
            let got = written(|j| j.micros(ns, origin));
            assert_eq!(got, text, "{ns} - {origin}");
            let parsed: f64 = serde_json::from_str(&got).expect("a JSON number");
            if ns < 1 << 53 {
                let want = (ns as i128 - origin as i128) as f64 / 1000.0;
                assert_eq!(parsed, want);
            }
        }
    }

    #[test]
    fn an_object_parses_back() {
        let got = written(|j| {
            j.raw(b"{");
            j.key("name", true);
            j.str("k\"ernel\n");
            j.field_u64("big", u64::MAX, false);
            j.key("grid", false);
            j.array([64, 1, 1]);
            j.key("ts", false);
            j.micros(2_500, 1_000);
            j.raw(b"}");
        });
        let v: serde_json::Value = serde_json::from_str(&got).expect("JSON");
        assert_eq!(v["name"], "k\"ernel\n");
        assert_eq!(v["big"], u64::MAX);
        assert_eq!(v["grid"], serde_json::json!([64, 1, 1]));
        assert_eq!(v["ts"], 1.5);
    }
}
