//! The process-wide runtime is reference counted like hsa_init/shut_down.
//! (One test function: the instance is global to the test binary.)

use std::sync::Arc;

use aqueduct_hsa::HsaError;
use aqueduct_test_harness::fake_kfd::FakeKfd;
use aqueduct_test_harness::topology::topology;

#[test]
fn init_and_shut_down_are_counted() {
    assert!(matches!(
        aqueduct_hsa::global(),
        Err(HsaError::NotInitialized)
    ));
    assert!(matches!(
        aqueduct_hsa::shut_down(),
        Err(HsaError::NotInitialized)
    ));
    // SAFETY-free: tests read ROCR_VISIBLE_DEVICES but never set it.
    let fake = Arc::new(FakeKfd::new(topology(&[(0x99, 9)])));
    let a = aqueduct_hsa::init(fake.clone()).unwrap();
    let b = aqueduct_hsa::init(fake.clone()).unwrap();
    assert!(
        Arc::ptr_eq(&a, &b),
        "a second init returns the same runtime"
    );
    aqueduct_hsa::shut_down().unwrap();
    assert!(
        Arc::ptr_eq(&aqueduct_hsa::global().unwrap(), &a),
        "still initialised after one shut_down"
    );
    aqueduct_hsa::shut_down().unwrap();
    assert!(matches!(
        aqueduct_hsa::global(),
        Err(HsaError::NotInitialized)
    ));
    assert!(matches!(
        aqueduct_hsa::shut_down(),
        Err(HsaError::NotInitialized)
    ));
    drop((a, b));
    // Every BO is freed once the last handle went, except the event page:
    // once registered, KFD keeps it until the process ends (FREE is EPERM).
    let left: Vec<u64> = fake
        .state
        .lock()
        .unwrap()
        .bos
        .values()
        .map(|bo| bo.size)
        .collect();
    assert_eq!(left, [aqueduct_hsa::runtime::EVENT_PAGE_SIZE], "BOs left");
    assert_eq!(fake.events.live_events(), 0, "every event destroyed");
}
