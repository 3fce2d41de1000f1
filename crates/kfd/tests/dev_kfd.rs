//! Opening the real device where it cannot work: the errors must say why.

use std::path::{Path, PathBuf};

use aqueduct_kfd::{DevKfd, KfdError, NoDeviceError};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn no_dev_kfd_is_no_device() {
    if Path::new("/dev/kfd").exists() {
        eprintln!("note: /dev/kfd exists here; the no-device check does not apply");
        return;
    }
    match DevKfd::open() {
        Err(KfdError::NoDevice(NoDeviceError::NodeMissing { path })) => {
            assert_eq!(path, Path::new("/dev/kfd"));
        }
        other => panic!("expected NoDevice, got {other:?}"),
    }
}

#[test]
fn missing_node_path_is_no_device() {
    let err = DevKfd::open_with("/nonexistent/kfd", fixture("mi300x")).unwrap_err();
    assert!(
        matches!(&err, KfdError::NoDevice(NoDeviceError::NodeMissing { path })
            if path == Path::new("/nonexistent/kfd")),
        "{err:?}"
    );
}

#[test]
fn topology_without_gpu_is_no_device() {
    // /dev/null opens like a device node; the CPU-only topology has no GPU.
    let err = DevKfd::open_with("/dev/null", fixture("cpu_only")).unwrap_err();
    assert!(
        matches!(&err, KfdError::NoDevice(NoDeviceError::NoGpuNode { sysfs_root })
            if *sysfs_root == fixture("cpu_only")),
        "{err:?}"
    );
}

#[test]
fn a_node_that_is_not_kfd_fails_get_version() {
    // With a GPU topology the next step is GET_VERSION, which /dev/null
    // rejects with ENOTTY.
    let err = DevKfd::open_with("/dev/null", fixture("rx7900xtx")).unwrap_err();
    assert!(
        matches!(
            err,
            KfdError::Ioctl {
                ioctl: "GET_VERSION",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.errno(), Some(25), "ENOTTY");
}

#[test]
fn broken_topology_is_a_topology_error() {
    let err = DevKfd::open_with("/dev/null", fixture("no-such-fixture")).unwrap_err();
    assert!(matches!(err, KfdError::Topology { .. }), "{err:?}");
}
