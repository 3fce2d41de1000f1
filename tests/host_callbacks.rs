//! Callbacks on the host-callback thread (`Device::set_callbacks_on_host_thread`,
//! an Aqueduct extension): map and work-done callbacks run
//! through the device's CPU-agent soft queue behind the GPU work, with no
//! poll, in registration order (wgpu's issue_4024 ordering: a map callback
//! before a later work-done callback), also after a GPU queue fault (the
//! map callback with an error); unmapping before completion aborts as in
//! WebGPU's poll delivery.

use std::borrow::Cow;
use std::sync::mpsc;
use std::time::Duration;

use aqueduct::*;
use aqueduct_test_harness::facade::*;

const TIMEOUT: Duration = Duration::from_secs(60);

fn host_thread_ctx() -> Ctx {
    let c = ctx();
    c.device.set_callbacks_on_host_thread(true);
    c
}

#[test]
fn map_then_work_done_run_in_order_without_poll() {
    let c = host_thread_ctx();
    let rb = readback_buffer(&c.device, 16);
    let (cb, dst) = doubling_work(&c);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&dst, 0, &rb, 0, 16);
    c.queue.submit([cb, enc.finish()]);
    let (tx, rx) = mpsc::channel::<(&str, Option<Vec<u32>>)>();
    let (t, reader) = (tx.clone(), rb.clone());
    rb.map_async(MapMode::Read, .., move |r| {
        r.expect("mapped");
        // The buffer is mapped when its callback runs.
        let words = bytemuck::cast_slice::<u8, u32>(&reader.get_mapped_range(..).unwrap()).to_vec();
        t.send(("map", Some(words))).unwrap();
    });
    c.queue
        .on_submitted_work_done(move || tx.send(("done", None)).unwrap());
    // No poll: both arrive on their own, map first.
    let first = rx
        .recv_timeout(TIMEOUT)
        .expect("the map callback ran unpolled");
    let second = rx
        .recv_timeout(TIMEOUT)
        .expect("the work-done callback ran unpolled");
    assert_eq!(first, ("map", Some(vec![2, 4, 6, 8])));
    assert_eq!(second, ("done", None));
    rb.unmap();
}

#[test]
fn poll_wait_returns_after_the_callbacks_registered_before_it() {
    let c = host_thread_ctx();
    let rb = readback_buffer(&c.device, 16);
    let order = map_then_work_done(&c, &rb);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    assert_eq!(*order.lock().unwrap(), vec!["map", "done"]);
    assert_eq!(
        bytemuck::cast_slice::<u8, u32>(&rb.get_mapped_range(..).unwrap()),
        &[2, 4, 6, 8]
    );
}

#[test]
fn unmap_before_completion_aborts_the_mapping() {
    let c = host_thread_ctx();
    let rb = readback_buffer(&c.device, 16);
    let (cb, dst) = doubling_work(&c);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&dst, 0, &rb, 0, 16);
    // Hold the mapping back behind a host callback until the unmap.
    let (release, held) = mpsc::channel::<()>();
    c.queue
        .submit_host_callback(move || held.recv_timeout(TIMEOUT).unwrap());
    c.queue.submit([cb, enc.finish()]);
    let (tx, rx) = mpsc::channel::<Result<(), BufferAsyncError>>();
    rb.map_async(MapMode::Read, .., move |r| tx.send(r).unwrap());
    rb.unmap();
    let aborted = rx.try_recv().expect("an abort runs the callback at once");
    assert_eq!(aborted, Err(BufferAsyncError::Unmapped));
    release.send(()).unwrap();
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    assert!(rx.try_recv().is_err(), "the callback ran once");
    assert_eq!(rb.map_state(), MapStateKind::Unmapped);
}

/// tests/kernels/<target>/fault_at.co stores to an address no allocation
/// covers; the map callback behind it gets an error, the work-done
/// callback runs, and the device goes on.
#[test]
fn after_a_gpu_fault_map_callbacks_get_an_error_and_work_done_runs() {
    let c = host_thread_ctx();
    let module = code_object_module(
        &c.device,
        "fault_at",
        Cow::Owned(test_kernel("fault_at")),
        [64, 1, 1],
    );
    let fault = expect_valid(&c.device, || auto_pipeline(&c.device, &module, "fault_at"));
    let rb = readback_buffer(&c.device, 16);
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&fault);
        let mut immediates = 0x1040u64.to_le_bytes().to_vec();
        immediates.extend(7u32.to_le_bytes());
        pass.set_immediates(0, &immediates);
        pass.dispatch_workgroups(1, 1, 1);
    }
    enc.clear_buffer(&rb, 0, None);
    c.queue.submit([enc.finish()]);
    let (tx, rx) = mpsc::channel::<Result<(), BufferAsyncError>>();
    let t = tx.clone();
    rb.map_async(MapMode::Read, .., move |r| t.send(r).unwrap());
    c.queue
        .on_submitted_work_done(move || tx.send(Ok(())).unwrap());
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let fault_report = scope.pop_now().expect("the fault is reported");
    assert!(
        is_queue_fault(&fault_report, Some("fault_at")),
        "{fault_report}"
    );
    let map = rx.try_recv().expect("the map callback ran");
    let err = map.expect_err("a dropped mapping is an error");
    assert!(matches!(err, BufferAsyncError::QueueFault { .. }), "{err}");
    assert_eq!(rx.try_recv(), Ok(Ok(())), "then the work-done callback");
    assert_eq!(rb.map_state(), MapStateKind::Unmapped);
    // The device goes on: the same buffer maps after new work.
    assert_eq!(read_words(&c, &storage_init(&c.device, &[5, 6])), [5, 6]);
}
