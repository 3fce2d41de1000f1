//! Compiles in a child process (isolated.rs): the same object as in
//! process, and a typed error, with this process going on, where libLLVM
//! loops or aborts.

use std::sync::Arc;
use std::time::{Duration, Instant};

use aqueduct_llvm::{IsolatedError, Llvm, LlvmError, Stage};

const LIMIT: Duration = Duration::from_secs(60);

fn llvm() -> Option<Arc<Llvm>> {
    Llvm::get(None).map_err(|e| eprintln!("skipped: {e}")).ok()
}

/// `sum(n)`: 0 + 1 + ... + (n - 1) + `k`, in a loop LLVM may vectorise.
fn sum_module(k: u32) -> String {
    format!(
        "define i32 @sum(i32 %n) {{
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i32 [ {k}, %entry ], [ %s1, %loop ]
  %s1 = add i32 %s, %i
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 %s1
}}
"
    )
}

/// Call `sum` of `object`, linked into this process.
fn run_sum(llvm: &Arc<Llvm>, object: &[u8], n: u32) -> u32 {
    let (linked, addresses) = llvm.link_host_object(object, &["sum"]).unwrap();
    // SAFETY: `sum` is defined above as `i32 (i32)` in the C convention; its
    // code lives while `linked` does.
    let sum = unsafe { std::mem::transmute::<usize, extern "C" fn(u32) -> u32>(addresses[0]) };
    let got = sum(n);
    drop(linked);
    got
}

#[test]
fn an_isolated_compile_gives_the_in_process_object() {
    let Some(llvm) = llvm() else { return };
    let target = llvm.host_target(2).unwrap();
    let ir = sum_module(7);
    let here = llvm.compile_object(&ir, "sum.ll", &target).unwrap();
    let there = llvm
        .compile_object_isolated(&ir, "sum.ll", &target, LIMIT)
        .unwrap();
    assert_eq!(here, there, "the child compiles as this process does");
    assert_eq!(run_sum(&llvm, &there, 1000), 7 + 999 * 1000 / 2);
}

#[test]
fn llvm_errors_keep_their_stage() {
    let Some(llvm) = llvm() else { return };
    let target = llvm.host_target(2).unwrap();
    let err = llvm
        .compile_object_isolated("define i32 @f( {", "bad.ll", &target, LIMIT)
        .unwrap_err();
    assert!(
        matches!(
            &err,
            IsolatedError::Llvm(LlvmError::Failed { stage: Stage::Parse, message })
                if message.contains("bad.ll")
        ),
        "{err:?}"
    );
}

#[test]
fn a_fatal_error_in_llvm_ends_only_the_child() {
    let Some(llvm) = llvm() else { return };
    let target = llvm.host_target(2).unwrap();
    // An AMDGPU intrinsic has no x86 instruction: instruction selection
    // calls report_fatal_error ("Cannot select"), which ends a process.
    let ir = "declare i32 @llvm.amdgcn.workitem.id.x()
define i32 @f() {
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  ret i32 %x
}
";
    let err = llvm
        .compile_object_isolated(ir, "foreign.ll", &target, LIMIT)
        .unwrap_err();
    match &err {
        IsolatedError::Crashed {
            fatal: Some(reason),
            status,
            ..
        } => {
            assert!(reason.contains("Cannot select"), "{reason}");
            assert_eq!(*status, Some(70), "the handler's exit status");
        }
        _ => panic!("{err:?}"),
    }
    // This process and its library go on.
    let object = llvm
        .compile_object_isolated(&sum_module(1), "sum.ll", &target, LIMIT)
        .unwrap();
    assert_eq!(run_sum(&llvm, &object, 4), 1 + 6);
}

#[test]
fn a_compile_that_never_ends_is_stopped() {
    let Some(llvm) = llvm() else { return };
    let target = llvm.host_target(2).unwrap();
    let ir = aqueduct_llvm::known_hangs::avx512bw_mask_interleave();
    let limit = Duration::from_secs(3);
    let start = Instant::now();
    match llvm.compile_object_isolated(&ir, "stuck.ll", &target, limit) {
        Err(IsolatedError::TimedOut { limit_ms }) => {
            assert_eq!(limit_ms, 3000);
            assert!(start.elapsed() >= limit);
            assert!(start.elapsed() < limit + Duration::from_secs(30));
        }
        Ok(_) => eprintln!("this libLLVM-19 terminates on the module"),
        Err(e) => panic!("{e:?}"),
    }
    let object = llvm
        .compile_object_isolated(&sum_module(2), "sum.ll", &target, LIMIT)
        .unwrap();
    assert_eq!(run_sum(&llvm, &object, 3), 2 + 3);
}

#[test]
fn threads_compile_in_children_while_others_link() {
    let Some(llvm) = llvm() else { return };
    let target = llvm.host_target(2).unwrap();
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let (llvm, target) = (llvm.clone(), target.clone());
            std::thread::spawn(move || {
                for round in 0..6u32 {
                    let k = t * 100 + round;
                    let ir = sum_module(k);
                    // Odd threads compile in process, so forks happen
                    // while other threads use the library.
                    let object = if t % 2 == 0 {
                        llvm.compile_object_isolated(&ir, "sum.ll", &target, LIMIT)
                            .unwrap()
                    } else {
                        llvm.compile_object(&ir, "sum.ll", &target).unwrap()
                    };
                    assert_eq!(run_sum(&llvm, &object, 10), k + 45);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn a_library_kept_busy_is_not_blamed_on_the_module() {
    let Some(llvm) = llvm() else { return };
    let target = llvm.host_target(2).unwrap();
    // Another thread compiles in process without a pause: a child is made
    // only while no thread is inside the library, so with a 1 ms limit
    // most attempts find it busy.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let busy = {
        let (llvm, target, stop) = (llvm.clone(), target.clone(), stop.clone());
        std::thread::spawn(move || {
            let ir: String = (0..40)
                .map(|k| sum_module(k).replace("@sum", &format!("@s{k}")))
                .collect();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                llvm.compile_object(&ir, "busy.ll", &target).unwrap();
            }
        })
    };
    let limit = Duration::from_millis(1);
    let mut found_busy = false;
    for _ in 0..200 {
        match llvm.compile_object_isolated(&sum_module(0), "sum.ll", &target, limit) {
            Err(IsolatedError::Busy { limit_ms }) => {
                assert_eq!(limit_ms, 1);
                found_busy = true;
                break;
            }
            // The gap between two compiles: the child ran, briefly.
            Ok(_) | Err(IsolatedError::TimedOut { .. }) => {}
            Err(e) => panic!("{e:?}"),
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    busy.join().unwrap();
    assert!(
        found_busy,
        "a compile in flight on another thread makes the library busy"
    );
}
