//! Queue-fault recovery for submissions: a dispatch that stores to an
//! address no allocation covers faults the GPU queue; the fault is reported
//! (an Internal error), the waiter is released, the next submission runs on
//! the recreated queue, and buffers the faulting work did not touch keep
//! their contents.

use std::borrow::Cow;

use aqueduct::*;
use aqueduct_test_harness::facade::*;

/// tests/kernels/<target>/fault_at.co: `fault_at(ulong address, uint value)`
/// stores `value` at `address` (both immediates).
fn fault_module(device: &Device) -> ShaderModule {
    device.create_shader_module(ShaderModuleDescriptor {
        label: Some("fault_at"),
        source: ShaderSource::CodeObject {
            code: Cow::Owned(test_kernel("fault_at")),
            workgroup_size: Some([64, 1, 1]),
        },
    })
}

fn submit_fault_at(
    c: &Ctx,
    pipeline: &ComputePipeline,
    address: u64,
    value: u32,
) -> SubmissionIndex {
    let mut immediates = address.to_le_bytes().to_vec();
    immediates.extend(value.to_le_bytes());
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_immediates(0, &immediates);
        pass.dispatch_workgroups(1, 1, 1);
    }
    c.queue.submit([enc.finish()])
}

/// The submission number a fault summary names; checks that the summary
/// reads `GPU fault in kernel fault_at (submission N): memory violation at
/// GPU address PAGE` (the device reports the faulting page's address,
/// as KFD's memory exception data does).
fn fault_submission(message: &str, address: u64) -> u64 {
    let prefix = "GPU fault in kernel fault_at (submission ";
    let suffix = format!("): memory violation at GPU address {address:#x};");
    let start = message
        .find(prefix)
        .unwrap_or_else(|| panic!("no `{prefix}` in: {message}"))
        + prefix.len();
    let end = message[start..]
        .find(&suffix)
        .unwrap_or_else(|| panic!("no `{suffix}` in: {message}"))
        + start;
    message[start..end]
        .parse()
        .unwrap_or_else(|e| panic!("submission number `{}`: {e}", &message[start..end]))
}

#[test]
fn a_faulting_submission_is_reported_and_the_next_one_runs() {
    let c = ctx();
    let words: Vec<u32> = (0..1024u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let intact = storage_init(&c.device, &words);
    let fault = expect_valid(&c.device, || {
        auto_pipeline(&c.device, &fault_module(&c.device), "fault_at")
    });
    c.device.poll(PollType::wait_indefinitely()).expect("setup");

    // A store into a low page (never mapped for the agent).
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let faulting = submit_fault_at(&c, &fault, 0x1040, 7);
    let status = c
        .device
        .poll(PollType::Wait {
            submission_index: Some(faulting),
            timeout: Some(std::time::Duration::from_secs(30)),
        })
        .expect("the waiter is released, not timed out");
    assert_eq!(status, PollStatus::QueueEmpty);
    let err = scope.pop_now().expect("the fault is reported");
    assert_eq!(err.filter(), ErrorFilter::Internal);
    let message = err.to_string();
    assert!(is_queue_fault(&err, Some("fault_at")), "{err}");
    // One line naming the kernel, the submission, the fault kind and the
    // faulting GPU address.
    assert!(!message.contains('\n'), "{err}");
    let first = fault_submission(&message, 0x1000);

    // The next submissions run (each read_words is a copy dispatch and a
    // mapping); the buffer the faulting work did not touch is intact.
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let read = read_words(&c, &intact);
    let again = storage_init(&c.device, &[1, 2, 3, 4]);
    let read_again = read_words(&c, &again);
    if let Some(e) = scope.pop_now() {
        panic!("an error after recovery: {e}");
    }
    assert_eq!(read, words);
    assert_eq!(read_again, [1, 2, 3, 4]);

    // A second fault is reported too (the recovery is repeatable).
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let second = submit_fault_at(&c, &fault, 0x2080, 9);
    let _ = c.device.poll(PollType::Wait {
        submission_index: Some(second),
        timeout: Some(std::time::Duration::from_secs(30)),
    });
    let err = scope.pop_now().expect("the second fault is reported");
    let second_number = fault_submission(&err.to_string(), 0x2000);
    assert!(second_number > first, "{err}");
    assert_eq!(read_words(&c, &intact), words);

    // A fault that no wait saw before the next submission: that submission
    // still completes, and the fault is reported.
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    submit_fault_at(&c, &fault, 0x30c0, 3);
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(read_words(&c, &intact), words);
    let err = scope.pop_now().expect("the unseen fault is reported");
    assert!(is_queue_fault(&err, Some("fault_at")), "{err}");
    // The unseen fault's submission came before the read_words submissions.
    assert!(
        fault_submission(&err.to_string(), 0x3000) > second_number,
        "{err}"
    );
}
