//! Bit-for-bit comparison of two observations, reporting only the first
//! difference: which part, which word (or byte, for lengths that are not
//! whole words), the expected (gfxsim) and the got (selected device) value.

use std::fmt;

/// Where two byte strings first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// Different lengths, the common prefix equal.
    Length { expected: usize, got: usize },
    /// The 32-bit little-endian word `index` differs.
    Word {
        index: usize,
        expected: u32,
        got: u32,
    },
    /// Byte `index` differs (lengths not a multiple of 4).
    Byte { index: usize, expected: u8, got: u8 },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Difference::Length { expected, got } => {
                write!(f, "length differs: expected {expected} bytes got {got}")
            }
            Difference::Word {
                index,
                expected,
                got,
            } => write!(
                f,
                "first difference at word {index}: expected {expected:#010x} got {got:#010x}"
            ),
            Difference::Byte {
                index,
                expected,
                got,
            } => write!(
                f,
                "first difference at byte {index}: expected {expected:#04x} got {got:#04x}"
            ),
        }
    }
}

/// The first difference between `expected` and `got`, None when equal.
pub fn first_difference(expected: &[u8], got: &[u8]) -> Option<Difference> {
    let common = expected.len().min(got.len());
    let by_words = expected.len().is_multiple_of(4) && got.len().is_multiple_of(4);
    if by_words {
        let word = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        if let Some(i) = (0..common / 4).find(|&i| word(expected, i * 4) != word(got, i * 4)) {
            return Some(Difference::Word {
                index: i,
                expected: word(expected, i * 4),
                got: word(got, i * 4),
            });
        }
    } else if let Some(i) = (0..common).find(|&i| expected[i] != got[i]) {
        return Some(Difference::Byte {
            index: i,
            expected: expected[i],
            got: got[i],
        });
    }
    (expected.len() != got.len()).then_some(Difference::Length {
        expected: expected.len(),
        got: got.len(),
    })
}

/// Where two observations (named parts) first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartDifference {
    /// A different list of parts (a check produced a different shape of result).
    Parts {
        expected: Vec<String>,
        got: Vec<String>,
    },
    /// The part `label` differs.
    Bytes {
        label: String,
        difference: Difference,
    },
}

impl fmt::Display for PartDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartDifference::Parts { expected, got } => write!(
                f,
                "different results: expected parts [{}] got [{}]",
                expected.join(", "),
                got.join(", ")
            ),
            PartDifference::Bytes { label, difference } => write!(f, "{label}: {difference}"),
        }
    }
}

/// The first difference between two observations' parts, None when equal.
pub fn first_part_difference(
    expected: &[(String, Vec<u8>)],
    got: &[(String, Vec<u8>)],
) -> Option<PartDifference> {
    let labels = |parts: &[(String, Vec<u8>)]| parts.iter().map(|(l, _)| l.clone()).collect();
    if expected.len() != got.len() || expected.iter().zip(got).any(|(e, g)| e.0 != g.0) {
        return Some(PartDifference::Parts {
            expected: labels(expected),
            got: labels(got),
        });
    }
    expected.iter().zip(got).find_map(|((label, e), (_, g))| {
        first_difference(e, g).map(|difference| PartDifference::Bytes {
            label: label.clone(),
            difference,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(values: &[u32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn equal_bytes_have_no_difference() {
        assert_eq!(
            first_difference(&words(&[1, 2, 3]), &words(&[1, 2, 3])),
            None
        );
        assert_eq!(first_difference(&[], &[]), None);
    }

    #[test]
    fn the_first_differing_word_is_reported() {
        let expected = words(&(0..40).collect::<Vec<_>>());
        let mut got = expected.clone();
        got[17 * 4] ^= 1;
        got[30 * 4] ^= 1;
        let d = first_difference(&expected, &got).unwrap();
        assert_eq!(
            d,
            Difference::Word {
                index: 17,
                expected: 17,
                got: 16
            }
        );
        assert_eq!(
            d.to_string(),
            "first difference at word 17: expected 0x00000011 got 0x00000010"
        );
    }

    #[test]
    fn odd_lengths_compare_bytes_and_lengths() {
        assert_eq!(
            first_difference(&[1, 2, 3], &[1, 9, 3]),
            Some(Difference::Byte {
                index: 1,
                expected: 2,
                got: 9
            })
        );
        assert_eq!(
            first_difference(&words(&[1, 2]), &words(&[1])),
            Some(Difference::Length {
                expected: 8,
                got: 4
            })
        );
    }

    #[test]
    fn parts_name_where_they_differ() {
        let expected = vec![
            ("a".to_string(), words(&[1])),
            ("b".to_string(), words(&[2])),
        ];
        let mut got = expected.clone();
        assert_eq!(first_part_difference(&expected, &got), None);
        got[1].1 = words(&[3]);
        assert_eq!(
            first_part_difference(&expected, &got).unwrap().to_string(),
            "b: first difference at word 0: expected 0x00000002 got 0x00000003"
        );
        got.pop();
        assert!(matches!(
            first_part_difference(&expected, &got),
            Some(PartDifference::Parts { .. })
        ));
    }
}
