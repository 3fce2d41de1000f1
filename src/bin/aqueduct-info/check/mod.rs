//! `aqueduct-info --check`: a fixed list of checks run on the selected
//! device and on an in-process gfxsim, compared bit for bit.
//!
//! Each check produces an [`Observation`] (named byte strings) on both
//! sides; it passes when the check ran on both, its own host-side checks
//! held on both, and the two observations are equal. On `--device sim`
//! both sides are gfxsim (two separate device instances), which is what CI
//! runs. The groups live in one file each: [`kfd`] (the ioctl sequence on
//! the `KfdDevice` trait), [`corpus`] (the kernel corpus at -O0 and -O3),
//! [`facade`] (the examples' work), [`timestamps`] and [`fault`] (a
//! deliberate GPU memory fault and the recovery after it; last, because a
//! fault may leave more of the device in error than its own queue).

#[path = "../../../../corpus/cases/mod.rs"]
mod cases;
pub mod compare;
mod corpus;
mod dispatch;
mod error;
mod facade;
mod fault;
mod kfd;
pub mod render;
pub mod side;
mod timestamps;

use std::time::Instant;

use serde::Serialize;

pub use error::CheckError;
pub use side::{Reference, Side};

/// The part of the checks a check belongs to (its name's first component).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Kfd,
    Corpus,
    Facade,
    Timestamps,
    Fault,
}

impl Group {
    pub fn name(self) -> &'static str {
        match self {
            Group::Kfd => "kfd",
            Group::Corpus => "corpus",
            Group::Facade => "facade",
            Group::Timestamps => "timestamps",
            Group::Fault => "fault",
        }
    }
}

/// What one run of a check produced on one side: named parts compared
/// part by part, and a note for the reader (a version, a fault address)
/// that is shown but not compared.
#[derive(Clone, Debug, Default)]
pub struct Observation {
    pub parts: Vec<(String, Vec<u8>)>,
    pub note: Option<String>,
}

impl Observation {
    /// An observation of one part.
    pub fn of(label: impl Into<String>, bytes: Vec<u8>) -> Observation {
        Observation {
            parts: vec![(label.into(), bytes)],
            note: None,
        }
    }

    /// Adds a part.
    pub fn with(mut self, label: impl Into<String>, bytes: Vec<u8>) -> Observation {
        self.parts.push((label.into(), bytes));
        self
    }

    /// Sets the note shown beside the result.
    pub fn noted(mut self, note: impl Into<String>) -> Observation {
        self.note = Some(note.into());
        self
    }
}

/// The little-endian bytes of 32-bit words (the unit differences are
/// reported in).
pub fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

type CheckFn = Box<dyn Fn(&Side) -> Result<Observation, CheckError>>;

/// One check: its name (`group.what[.variant]`) and the work it does on a side.
pub struct Check {
    pub name: String,
    pub group: Group,
    work: CheckFn,
}

impl Check {
    pub fn new(
        group: Group,
        name: impl Into<String>,
        run: impl Fn(&Side) -> Result<Observation, CheckError> + 'static,
    ) -> Check {
        Check {
            name: format!("{}.{}", group.name(), name.into()),
            group,
            work: Box::new(run),
        }
    }

    /// Runs the check's work on one side.
    pub fn run(&self, side: &Side) -> Result<Observation, CheckError> {
        (self.work)(side)
    }
}

/// Every check, in the order they run.
pub fn all() -> Vec<Check> {
    let mut checks = kfd::checks();
    checks.extend(corpus::checks());
    checks.extend(facade::checks());
    checks.extend(timestamps::checks());
    checks.extend(fault::checks());
    checks
}

/// The checks whose name contains one of `filters` (all when empty).
pub fn selected(filters: &[String]) -> Vec<Check> {
    all()
        .into_iter()
        .filter(|c| filters.is_empty() || filters.iter().any(|f| c.name.contains(f.as_str())))
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Status {
    #[serde(rename = "PASS")]
    Pass,
    #[serde(rename = "FAIL")]
    Fail,
    #[serde(rename = "SKIP")]
    Skip,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        }
    }
}

/// The result of one check, as printed and as `--json` writes it.
#[derive(Debug, Serialize)]
pub struct CheckRecord {
    pub name: String,
    pub group: &'static str,
    pub status: Status,
    /// The first difference, the error, the reason for a skip, or a note.
    pub detail: String,
    /// Milliseconds the check took on the selected device.
    pub ms: f64,
}

/// Runs `check` on the selected side and on the reference, and judges it.
pub fn run_one(check: &Check, selected: &Side, reference: &Reference) -> CheckRecord {
    let start = Instant::now();
    let got = check.run(selected);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let (status, detail) = judge(got, || match reference {
        Reference::Sim(side) => Ok(check.run(side)),
        Reference::Unavailable(reason) => Err(reason.clone()),
    });
    CheckRecord {
        name: check.name.clone(),
        group: check.group.name(),
        status,
        detail,
        ms,
    }
}

/// Runs `checks` in order, handing each record to `each` as it is made.
pub fn run_all(
    checks: &[Check],
    selected: &Side,
    reference: &Reference,
    mut each: impl FnMut(&CheckRecord),
) -> Vec<CheckRecord> {
    checks
        .iter()
        .map(|check| {
            let record = run_one(check, selected, reference);
            each(&record);
            record
        })
        .collect()
}

/// The verdict on a selected-device result, given the way to get the
/// reference's result (or the reason there is none).
pub fn judge(
    got: Result<Observation, CheckError>,
    reference: impl FnOnce() -> Result<Result<Observation, CheckError>, String>,
) -> (Status, String) {
    let got = match got {
        Ok(got) => got,
        Err(CheckError::Unsupported { reason }) => return (Status::Skip, reason),
        Err(e) => return (Status::Fail, e.to_string()),
    };
    let expected = match reference() {
        Err(reason) => {
            return (
                Status::Skip,
                format!("ran without error; not compared: {reason}"),
            );
        }
        Ok(Err(e)) => return (Status::Fail, format!("on the gfxsim reference: {e}")),
        Ok(Ok(expected)) => expected,
    };
    match compare::first_part_difference(&expected.parts, &got.parts) {
        Some(difference) => (Status::Fail, difference.to_string()),
        None => (Status::Pass, got.note.unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqueduct::{DeviceChoice, open_device};

    fn observation() -> Observation {
        Observation::of("a", words(&[1, 2, 3])).with("b", words(&[4]))
    }

    #[test]
    fn equal_results_pass_and_different_ones_fail_at_the_first_word() {
        let (status, _) = judge(Ok(observation()), || Ok(Ok(observation())));
        assert_eq!(status, Status::Pass);
        let mut other = observation();
        other.parts[0].1 = words(&[1, 2, 7]);
        let (status, detail) = judge(Ok(observation()), || Ok(Ok(other)));
        assert_eq!(status, Status::Fail);
        assert_eq!(
            detail,
            "a: first difference at word 2: expected 0x00000007 got 0x00000003"
        );
    }

    #[test]
    fn errors_fail_and_unsupported_or_uncompared_checks_skip() {
        let unsupported = || {
            Err(CheckError::Unsupported {
                reason: "not here".into(),
            })
        };
        assert_eq!(
            judge(unsupported(), || Ok(Ok(observation()))),
            (Status::Skip, "not here".to_string())
        );
        let (status, detail) = judge(Ok(observation()), || Err("no reference".into()));
        assert_eq!(status, Status::Skip);
        assert!(detail.contains("not compared: no reference"), "{detail}");
        let failed = || Err(CheckError::unexpected("value", 1, 2));
        let (status, detail) = judge(failed(), || Ok(Ok(observation())));
        assert_eq!(
            (status, detail.as_str()),
            (Status::Fail, "value: expected 1, got 2")
        );
        let (status, detail) = judge(Ok(observation()), || Ok(failed()));
        assert_eq!(status, Status::Fail);
        assert!(detail.starts_with("on the gfxsim reference: "), "{detail}");
    }

    /// For one check of every group, run on gfxsim: the result compared
    /// with itself passes, with one bit changed fails naming the part, and
    /// with no reference is a SKIP saying so.
    #[test]
    fn every_group_fails_when_the_sides_differ() {
        let side = Side::open(open_device(DeviceChoice::Sim).unwrap()).unwrap();
        let names = [
            "kfd.alloc_map_free.gtt",
            "corpus.bitops.o3",
            "facade.hello_compute",
            "timestamps.pass",
            "fault.memory_violation",
        ];
        let checks = all();
        for name in names {
            let check = checks.iter().find(|c| c.name == name).unwrap();
            let got = check.run(&side).unwrap_or_else(|e| panic!("{name}: {e}"));
            let same = got.clone();
            assert_eq!(judge(Ok(got.clone()), || Ok(Ok(same))).0, Status::Pass);
            let mut changed = got.clone();
            let (label, bytes) = changed.parts.last_mut().unwrap();
            let label = label.clone();
            *bytes.last_mut().unwrap() ^= 1;
            let (status, detail) = judge(Ok(got), || Ok(Ok(changed)));
            assert_eq!(status, Status::Fail, "{name}");
            assert!(
                detail.starts_with(&format!("{label}: first difference at ")),
                "{name}: {detail}"
            );
            // Without a reference the check runs and is reported as not compared.
            let alone = Reference::Unavailable("no gfxsim for this ISA".into());
            let record = run_one(check, &side, &alone);
            assert_eq!(record.status, Status::Skip, "{name}");
            assert_eq!(
                record.detail,
                "ran without error; not compared: no gfxsim for this ISA"
            );
        }
    }
}
