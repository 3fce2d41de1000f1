//! Real-driver robustness up to the ioctl boundary: DevKfd over a scripted
//! driver (a `KfdSyscalls` that answers from a script instead of the
//! kernel). It reports interface versions this crate does not drive, fails
//! each ioctl with every errno KFD can return, fails mmaps, and interrupts
//! calls with EINTR. Every case must end in a typed `KfdError` that names
//! the ioctl and keeps the errno (or, for versions, the version numbers),
//! never a panic; EINTR must be retried.
//!
//! The files are still opened for real: "/dev/kfd" is /dev/null and the
//! topology is a checked-in fixture.

use std::collections::BTreeMap;
use std::os::fd::BorrowedFd;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use aqueduct_kfd::ioctl::*;
use aqueduct_kfd::uapi::*;
use aqueduct_kfd::{
    DevKfd, KFD_MIN_MINOR_VERSION, KfdDevice, KfdError, KfdSyscalls, NoDeviceError,
};
use rustix::io::Errno;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// What the scripted driver does with one ioctl number.
#[derive(Clone, Copy, Debug)]
enum Answer {
    /// Succeed, leaving the arguments as they are.
    Ok,
    /// GET_VERSION: succeed with this version.
    Version(u32, u32),
    /// Fail with this errno every time.
    Fail(Errno),
    /// Fail with EINTR this many times, then succeed.
    Interrupt(u32),
}

/// A driver that answers ioctls from a script (by ioctl number) and
/// records each request; mmaps fail with `mmap_errno`.
#[derive(Debug)]
struct ScriptedDriver {
    answers: Mutex<BTreeMap<u8, Answer>>,
    calls: Mutex<Vec<u32>>,
    mmap_errno: Errno,
}

impl ScriptedDriver {
    fn new(version: (u32, u32)) -> Arc<ScriptedDriver> {
        let mut answers = BTreeMap::new();
        answers.insert(
            ioc_nr(AMDKFD_IOC_GET_VERSION),
            Answer::Version(version.0, version.1),
        );
        Arc::new(ScriptedDriver {
            answers: Mutex::new(answers),
            calls: Mutex::new(Vec::new()),
            mmap_errno: Errno::NOMEM,
        })
    }

    fn answer(&self, request: u32, answer: Answer) {
        self.answers.lock().unwrap().insert(ioc_nr(request), answer);
    }

    fn calls_of(&self, request: u32) -> usize {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .filter(|&&r| r == request)
            .count()
    }
}

impl KfdSyscalls for ScriptedDriver {
    unsafe fn ioctl(
        &self,
        _fd: BorrowedFd<'_>,
        request: u32,
        args: &mut [u8],
    ) -> Result<(), Errno> {
        assert_eq!(
            args.len(),
            ioc_size(request),
            "argument size of {request:#x}"
        );
        self.calls.lock().unwrap().push(request);
        let mut answers = self.answers.lock().unwrap();
        let answer = answers.get(&ioc_nr(request)).copied().unwrap_or(Answer::Ok);
        match answer {
            Answer::Ok => Ok(()),
            Answer::Version(major, minor) => {
                let version = GetVersionArgs {
                    major_version: major,
                    minor_version: minor,
                };
                args.copy_from_slice(bytemuck::bytes_of(&version));
                Ok(())
            }
            Answer::Fail(errno) => Err(errno),
            Answer::Interrupt(0) => Ok(()),
            Answer::Interrupt(n) => {
                answers.insert(ioc_nr(request), Answer::Interrupt(n - 1));
                Err(Errno::INTR)
            }
        }
    }

    unsafe fn mmap_fixed(
        &self,
        _fd: BorrowedFd<'_>,
        _va: u64,
        _len: usize,
        _offset: u64,
    ) -> Result<(), Errno> {
        Err(self.mmap_errno)
    }
}

fn open(driver: &Arc<ScriptedDriver>) -> Result<Arc<DevKfd>, KfdError> {
    DevKfd::open_with_syscalls("/dev/null", fixture("rx7900xtx"), driver.clone())
}

/// The errnos KFD's ioctl handlers return (kfd_chardev.c and the amdgpu
/// calls beneath it), plus ones a broken or foreign driver could return.
const ERRNOS: [Errno; 20] = [
    Errno::INVAL,
    Errno::NOMEM,
    Errno::FAULT,
    Errno::BUSY,
    Errno::NODEV,
    Errno::PERM,
    Errno::AGAIN,
    Errno::NOSPC,
    Errno::NOENT,
    Errno::SRCH,
    Errno::IO,
    Errno::TIME,
    Errno::ACCESS,
    Errno::NOTTY,
    Errno::EXIST,
    Errno::BADF,
    Errno::TOOBIG,
    Errno::RANGE,
    Errno::OPNOTSUPP,
    Errno::NOSYS,
];

#[test]
fn supported_versions_open() {
    for minor in [KFD_MIN_MINOR_VERSION, 13, 17, 99] {
        let driver = ScriptedDriver::new((KFD_IOCTL_MAJOR_VERSION, minor));
        let dev = open(&driver).unwrap_or_else(|e| panic!("1.{minor}: {e}"));
        assert_eq!(dev.version().minor_version, minor);
        assert_eq!(dev.version().major_version, 1);
        assert_eq!(driver.calls_of(AMDKFD_IOC_GET_VERSION), 1);
    }
}

#[test]
fn unsupported_versions_are_refused_with_the_numbers() {
    for (major, minor) in [(0, 17), (2, 0), (2, 17), (1, 0), (u32::MAX, u32::MAX)] {
        let driver = ScriptedDriver::new((major, minor));
        let err = open(&driver).unwrap_err();
        match &err {
            KfdError::UnsupportedVersion {
                major: m,
                minor: n,
                min_minor,
            } => {
                assert_eq!((*m, *n, *min_minor), (major, minor, KFD_MIN_MINOR_VERSION));
            }
            other => panic!("{major}.{minor}: expected UnsupportedVersion, got {other:?}"),
        }
        let text = err.to_string();
        assert!(text.contains(&format!("{major}.{minor}")), "{text}");
        assert!(text.contains("need 1.x"), "{text}");
    }
}

#[test]
fn get_version_failing_with_any_errno_is_an_ioctl_error() {
    for errno in ERRNOS {
        let driver = ScriptedDriver::new((1, 17));
        driver.answer(AMDKFD_IOC_GET_VERSION, Answer::Fail(errno));
        let err = open(&driver).unwrap_err();
        assert!(
            matches!(
                err,
                KfdError::Ioctl {
                    ioctl: "GET_VERSION",
                    ..
                }
            ),
            "{errno:?}: {err:?}"
        );
        assert_eq!(err.errno(), Some(errno.raw_os_error()));
        let text = err.to_string();
        let os_text = std::io::Error::from_raw_os_error(errno.raw_os_error()).to_string();
        assert!(
            text.contains("GET_VERSION") && text.contains(&os_text),
            "{text}"
        );
    }
}

#[test]
fn a_topology_without_gpus_fails_before_any_ioctl() {
    let driver = ScriptedDriver::new((1, 17));
    let err =
        DevKfd::open_with_syscalls("/dev/null", fixture("cpu_only"), driver.clone()).unwrap_err();
    assert!(
        matches!(&err, KfdError::NoDevice(NoDeviceError::NoGpuNode { .. })),
        "{err:?}"
    );
    assert!(driver.calls.lock().unwrap().is_empty(), "no ioctl was made");
}

/// Call the trait method for `request` once with arguments whose counts fit
/// their arrays, returning its result.
fn call_ioctl(dev: &DevKfd, request: u32) -> Result<(), KfdError> {
    let ids = [1u32, 2];
    let mut events = [KfdEventData::for_event(3); 2];
    let mut apertures = [ProcessDeviceApertures::default(); 2];
    match request {
        AMDKFD_IOC_GET_VERSION => dev.get_version(&mut Default::default()),
        AMDKFD_IOC_CREATE_QUEUE => dev.create_queue(&mut Default::default()),
        AMDKFD_IOC_DESTROY_QUEUE => dev.destroy_queue(&mut Default::default()),
        AMDKFD_IOC_SET_MEMORY_POLICY => dev.set_memory_policy(&mut Default::default()),
        AMDKFD_IOC_GET_CLOCK_COUNTERS => dev.get_clock_counters(&mut Default::default()),
        AMDKFD_IOC_UPDATE_QUEUE => dev.update_queue(&mut Default::default()),
        AMDKFD_IOC_CREATE_EVENT => dev.create_event(&mut Default::default()),
        AMDKFD_IOC_DESTROY_EVENT => dev.destroy_event(&mut Default::default()),
        AMDKFD_IOC_SET_EVENT => dev.set_event(&mut Default::default()),
        AMDKFD_IOC_RESET_EVENT => dev.reset_event(&mut Default::default()),
        AMDKFD_IOC_WAIT_EVENTS => dev.wait_events(
            &mut WaitEventsArgs {
                num_events: 2,
                ..Default::default()
            },
            &mut events,
        ),
        AMDKFD_IOC_GET_PROCESS_APERTURES_NEW => dev.get_process_apertures_new(
            &mut GetProcessAperturesNewArgs {
                num_of_nodes: 2,
                ..Default::default()
            },
            &mut apertures,
        ),
        AMDKFD_IOC_ACQUIRE_VM => dev.acquire_vm(&mut Default::default()),
        AMDKFD_IOC_ALLOC_MEMORY_OF_GPU => dev.alloc_memory_of_gpu(&mut Default::default()),
        AMDKFD_IOC_FREE_MEMORY_OF_GPU => dev.free_memory_of_gpu(&mut Default::default()),
        AMDKFD_IOC_MAP_MEMORY_TO_GPU => dev.map_memory_to_gpu(
            &mut MapMemoryToGpuArgs {
                n_devices: 2,
                ..Default::default()
            },
            &ids,
        ),
        AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU => dev.unmap_memory_from_gpu(
            &mut UnmapMemoryFromGpuArgs {
                n_devices: 2,
                ..Default::default()
            },
            &ids,
        ),
        AMDKFD_IOC_RUNTIME_ENABLE => dev.runtime_enable(&mut Default::default()),
        other => panic!("no trait method for {other:#x}"),
    }
}

const REQUESTS: [u32; 18] = [
    AMDKFD_IOC_GET_VERSION,
    AMDKFD_IOC_CREATE_QUEUE,
    AMDKFD_IOC_DESTROY_QUEUE,
    AMDKFD_IOC_SET_MEMORY_POLICY,
    AMDKFD_IOC_GET_CLOCK_COUNTERS,
    AMDKFD_IOC_UPDATE_QUEUE,
    AMDKFD_IOC_CREATE_EVENT,
    AMDKFD_IOC_DESTROY_EVENT,
    AMDKFD_IOC_SET_EVENT,
    AMDKFD_IOC_RESET_EVENT,
    AMDKFD_IOC_WAIT_EVENTS,
    AMDKFD_IOC_GET_PROCESS_APERTURES_NEW,
    AMDKFD_IOC_ACQUIRE_VM,
    AMDKFD_IOC_ALLOC_MEMORY_OF_GPU,
    AMDKFD_IOC_FREE_MEMORY_OF_GPU,
    AMDKFD_IOC_MAP_MEMORY_TO_GPU,
    AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU,
    AMDKFD_IOC_RUNTIME_ENABLE,
];

#[test]
fn every_ioctl_failing_with_every_errno_is_a_named_typed_error() {
    let driver = ScriptedDriver::new((1, 17));
    let dev = open(&driver).unwrap();
    for request in REQUESTS {
        call_ioctl(&dev, request).unwrap_or_else(|e| panic!("{}: {e}", ioctl_name(request)));
        for errno in ERRNOS {
            driver.answer(request, Answer::Fail(errno));
            let err = call_ioctl(&dev, request).unwrap_err();
            match &err {
                KfdError::Ioctl { ioctl, .. } => assert_eq!(*ioctl, ioctl_name(request)),
                other => panic!("{}: {errno:?}: got {other:?}", ioctl_name(request)),
            }
            assert_eq!(err.errno(), Some(errno.raw_os_error()));
            assert!(err.to_string().contains(ioctl_name(request)), "{err}");
        }
        // The failure does not stick: the next answer is the driver's.
        driver.answer(request, Answer::Ok);
        call_ioctl(&dev, request).unwrap();
    }
    // One call per request for each errno, plus the two successes, plus
    // the GET_VERSION of open.
    for request in REQUESTS {
        let at_open = usize::from(request == AMDKFD_IOC_GET_VERSION);
        assert_eq!(
            driver.calls_of(request),
            ERRNOS.len() + 2 + at_open,
            "{}",
            ioctl_name(request)
        );
    }
}

#[test]
fn interrupted_ioctls_are_retried() {
    let driver = ScriptedDriver::new((1, 17));
    driver.answer(AMDKFD_IOC_GET_VERSION, Answer::Interrupt(3));
    // Open retries GET_VERSION through three EINTRs; the args then hold
    // what the driver left there (zeros: version 0.0), so open refuses it.
    let err = open(&driver).unwrap_err();
    assert!(
        matches!(
            err,
            KfdError::UnsupportedVersion {
                major: 0,
                minor: 0,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(driver.calls_of(AMDKFD_IOC_GET_VERSION), 4);

    let driver = ScriptedDriver::new((1, 17));
    let dev = open(&driver).unwrap();
    driver.answer(AMDKFD_IOC_WAIT_EVENTS, Answer::Interrupt(5));
    call_ioctl(&dev, AMDKFD_IOC_WAIT_EVENTS).unwrap();
    assert_eq!(driver.calls_of(AMDKFD_IOC_WAIT_EVENTS), 6);
}

#[test]
fn count_mismatches_never_reach_the_driver() {
    let driver = ScriptedDriver::new((1, 17));
    let dev = open(&driver).unwrap();
    let mut map = MapMemoryToGpuArgs {
        n_devices: 3,
        ..Default::default()
    };
    let err = dev.map_memory_to_gpu(&mut map, &[1, 2]).unwrap_err();
    assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));
    let mut wait = WaitEventsArgs {
        num_events: u32::MAX,
        ..Default::default()
    };
    let err = dev.wait_events(&mut wait, &mut []).unwrap_err();
    assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));
    assert_eq!(driver.calls_of(AMDKFD_IOC_MAP_MEMORY_TO_GPU), 0);
    assert_eq!(driver.calls_of(AMDKFD_IOC_WAIT_EVENTS), 0);
}

#[test]
fn failed_mmaps_are_os_errors_with_the_errno() {
    let driver = ScriptedDriver::new((1, 17));
    let dev = open(&driver).unwrap();
    // SAFETY: the scripted driver maps nothing.
    let err = unsafe { dev.mmap_kfd(0x7000_0000_0000, 4096, 0) }.unwrap_err();
    assert!(
        matches!(err, KfdError::Os { what, .. } if what.contains("/dev/kfd")),
        "{err:?}"
    );
    assert_eq!(err.errno(), Some(Errno::NOMEM.raw_os_error()));
    // A gpu_id the topology does not list fails before any render node is opened.
    // SAFETY: as above.
    let err = unsafe { dev.mmap_render_node(0xdead, 0x7000_0000_0000, 4096, 0) }.unwrap_err();
    assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));
    // A listed GPU's render node does not exist on this machine (or cannot
    // be opened): an Os error, not a panic.
    let gpu_id = dev.topology().unwrap().gpu_nodes().next().unwrap().gpu_id;
    // SAFETY: as above.
    let result = unsafe { dev.mmap_render_node(gpu_id, 0x7000_0000_0000, 4096, 0) };
    assert!(matches!(result, Err(KfdError::Os { .. })), "{result:?}");
}
