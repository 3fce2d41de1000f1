//! The sanitizer of one workgroup, on the thread that runs it: it applies
//! memcheck to each access, keeps the LDS shadow for initcheck and
//! racecheck (with the barrier epoch), hands global accesses to the
//! dispatch's shadow for racecheck-global, applies synccheck at each barrier
//! release, and hands its folded findings to the dispatch when it ends.

use aqueduct_isa::Access;
use aqueduct_isa::observer::{LaneAccesses, Segment, WaveSync, WorkgroupObserver};

use super::config::Tool;
use super::device_init::WrittenSnapshot;
use super::dispatch::{DispatchSanitizer, Folded, fold};
use super::finding::{Finding, Site};
use super::global_shadow::GlobalShadow;
use super::lds_shadow::{self, LdsEvent, LdsShadow, Stamp};
use super::memcheck;
use super::synccheck::{self, SyncBreak};

pub(super) struct WorkgroupSanitizer<'d> {
    dispatch: &'d DispatchSanitizer,
    id: [u32; 3],
    lds_bytes: u32,
    /// Taken at the first LDS access initcheck or racecheck looks at
    /// (lds_shadow.rs: the thread's, reused), given back at the end.
    lds: Option<LdsShadow>,
    /// Barrier releases so far, plus one.
    epoch: u32,
    found: Folded,
}

impl<'d> WorkgroupSanitizer<'d> {
    pub(super) fn new(dispatch: &'d DispatchSanitizer, id: [u32; 3], lds_bytes: u32) -> Self {
        WorkgroupSanitizer {
            dispatch,
            id,
            lds_bytes,
            lds: None,
            epoch: 1,
            found: Folded::new(),
        }
    }

    fn site(&self, pc: u64, wave: u32, lane: Option<u32>) -> Site {
        Site {
            pc,
            offset: pc.wrapping_sub(self.dispatch.entry),
            workgroup: self.id,
            wave,
            lane,
        }
    }

    /// The site of lane `l` of `a` (no lane for a scalar load).
    fn lane_site(&self, a: &LaneAccesses<'_>, l: usize) -> Site {
        let lane = (!a.scalar).then_some(a.first_lane + l as u32);
        self.site(a.pc, a.wave, lane)
    }

    fn memcheck(&mut self, a: &LaneAccesses<'_>) {
        let finding = match a.segment {
            Segment::Global => memcheck::global(a, &self.dispatch.allocations)
                .map(|(l, allocation, overrun)| Finding::GlobalOverrun {
                    at: self.lane_site(a, l),
                    access: a.access,
                    address: a.addrs[l],
                    size: a.size,
                    allocation,
                    overrun,
                })
                .or_else(|| {
                    let bindings = self.dispatch.bindings.as_deref()?;
                    memcheck::binding(a, &self.dispatch.allocations, bindings).map(
                        |(l, allocation, binding)| Finding::BindingOverrun {
                            at: self.lane_site(a, l),
                            access: a.access,
                            address: a.addrs[l],
                            size: a.size,
                            allocation,
                            binding,
                        },
                    )
                }),
            Segment::Lds => memcheck::past(a, self.lds_bytes).map(|l| Finding::LdsOverrun {
                at: self.lane_site(a, l),
                access: a.access,
                offset: a.addrs[l],
                size: a.size,
                lds_bytes: self.lds_bytes,
            }),
            Segment::Private => {
                memcheck::past(a, self.dispatch.private_bytes).map(|l| Finding::PrivateOverrun {
                    at: self.lane_site(a, l),
                    access: a.access,
                    offset: a.addrs[l],
                    size: a.size,
                    private_bytes: self.dispatch.private_bytes,
                })
            }
        };
        if let Some(f) = finding {
            fold(&mut self.found, f);
        }
    }

    /// initcheck of a global access: a read (or atomic) of tracked VRAM
    /// must find its bytes written; a write (or atomic) marks them.
    fn device_init(&mut self, written: &WrittenSnapshot, a: &LaneAccesses<'_>) {
        let size = u64::from(a.size);
        let mut uninit = None;
        for l in (0..32).filter(|l| a.exec >> l & 1 != 0) {
            let Some(bo) = written.containing(a.addrs[l]) else {
                continue;
            };
            // Bytes past the size the runtime asked for are memcheck's finding.
            let asked = self.dispatch.allocations.containing(a.addrs[l]);
            if a.access != Access::Write
                && uninit.is_none()
                && let Some(address) = bo.first_unwritten(a.addrs[l], size)
                && asked.is_none_or(|asked| address < asked.end())
            {
                uninit = Some((l, address, asked.unwrap_or(bo.allocation())));
            }
            if a.access != Access::Read {
                written.mark(a.addrs[l], size);
            }
        }
        if let Some((l, address, allocation)) = uninit {
            let at = self.lane_site(a, l);
            fold(
                &mut self.found,
                Finding::UninitializedGlobal {
                    at,
                    access: a.access,
                    address,
                    size: a.size,
                    allocation,
                },
            );
        }
    }

    /// racecheck-global of a global access.
    fn global_race(&mut self, shadow: &GlobalShadow, a: &LaneAccesses<'_>) {
        if let Some(race) = shadow.access(a, self.id) {
            let at = self.lane_site(a, race.lane);
            let e = race.earlier;
            let earlier = Site {
                pc: e.pc,
                offset: e.pc.wrapping_sub(self.dispatch.entry),
                workgroup: e.workgroup,
                wave: e.wave,
                lane: e.lane,
            };
            fold(
                &mut self.found,
                Finding::GlobalRace {
                    at,
                    access: a.access,
                    earlier,
                    earlier_access: race.earlier_access,
                    address: race.address,
                },
            );
        }
    }

    /// initcheck and racecheck of an LDS access: the first lane of each
    /// kind of event gives the instruction's finding.
    fn lds_shadow(&mut self, a: &LaneAccesses<'_>, initcheck: bool, racecheck: bool) {
        let lds_bytes = self.lds_bytes;
        let shadow = self.lds.get_or_insert_with(|| lds_shadow::take(lds_bytes));
        let (mut uninit, mut race) = (None, None);
        for l in (0..32).filter(|l| a.exec >> l & 1 != 0) {
            let by = Stamp {
                epoch: self.epoch,
                wave: a.wave,
                lane: a.first_lane + l as u32,
                pc: a.pc,
            };
            let (u, r) = shadow.access(by, a.addrs[l], a.size, a.access, racecheck, initcheck);
            if uninit.is_none() {
                uninit = u.map(|e| (l, e));
            }
            if race.is_none() {
                race = r.map(|e| (l, e));
            }
        }
        if let Some((l, LdsEvent::Uninitialized { offset })) = uninit {
            let at = self.lane_site(a, l);
            fold(
                &mut self.found,
                Finding::UninitializedLds {
                    at,
                    offset,
                    size: a.size,
                },
            );
        }
        if let Some((
            l,
            LdsEvent::Race {
                offset,
                earlier,
                earlier_access,
            },
        )) = race
        {
            let at = self.lane_site(a, l);
            let earlier_site = self.site(earlier.pc, earlier.wave, Some(earlier.lane));
            fold(
                &mut self.found,
                Finding::LdsRace {
                    at,
                    access: a.access,
                    earlier: earlier_site,
                    earlier_access,
                    offset,
                },
            );
        }
    }
}

impl WorkgroupObserver for WorkgroupSanitizer<'_> {
    fn access(&mut self, a: &LaneAccesses<'_>) {
        let tools = self.dispatch.tools;
        if tools.contains(Tool::Memcheck) {
            self.memcheck(a);
        }
        if a.segment == Segment::Global
            && let Some(written) = &self.dispatch.written
        {
            self.device_init(written, a);
        }
        if a.segment == Segment::Global
            && a.access != Access::Atomic
            && let Some(shadow) = &self.dispatch.global
        {
            self.global_race(shadow, a);
        }
        if a.segment == Segment::Lds {
            let initcheck = tools.contains(Tool::Initcheck);
            let racecheck = tools.contains(Tool::Racecheck);
            if initcheck || racecheck {
                self.lds_shadow(a, initcheck, racecheck && a.access != Access::Atomic);
            }
        }
    }

    fn barrier_released(&mut self, waves: &[WaveSync]) {
        self.epoch += 1;
        if !self.dispatch.tools.contains(Tool::Synccheck) {
            return;
        }
        for b in synccheck::check(waves) {
            let finding = match b {
                SyncBreak::Divergent {
                    wave,
                    pc,
                    other,
                    other_pc,
                } => Finding::DivergentBarrier {
                    at: self.site(pc, wave, None),
                    other: self.site(other_pc, other, None),
                },
                SyncBreak::Ended {
                    wave,
                    pc,
                    waiting,
                    barrier_pc,
                } => Finding::EndedAtBarrier {
                    at: self.site(pc, wave, None),
                    waiting: self.site(barrier_pc, waiting, None),
                },
            };
            fold(&mut self.found, finding);
        }
    }

    fn finish(&mut self) {
        if let Some(shadow) = self.lds.take() {
            lds_shadow::give_back(shadow);
        }
        if !self.found.is_empty() {
            self.dispatch.add(std::mem::take(&mut self.found));
        }
    }
}
