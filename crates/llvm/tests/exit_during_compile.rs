//! A process that exits while other threads compile and link through the
//! library exits cleanly: libLLVM's static destructors run at `exit`, and
//! calls in flight must not run into them (library.rs, `IN_USE`).
//!
//! The test runs this binary again as a child that keeps two threads
//! compiling and linking and returns from `main` in the middle of that,
//! once the library has finished a first compile and link (what those
//! construct is guarded only from then on: library.rs, `guard_exit`).
//!
//! A compile that never ends does not hold the exit for ever: the process
//! ends with its own exit status a few seconds later (library.rs,
//! `EXIT_WAIT`).

use std::process::Command;
use std::time::Duration;

use aqueduct_llvm::Llvm;

const CHILD_ENV: &str = "AQUEDUCT_LLVM_EXIT_CHILD";
const STUCK_CHILD_ENV: &str = "AQUEDUCT_LLVM_STUCK_CHILD";

/// What the stuck child prints when its compile is still running at exit.
const STILL_COMPILING: &str = "the compile is still running";

/// A module big enough that a compile takes a while.
fn busy_module() -> String {
    let mut ir = String::new();
    for f in 0..40 {
        ir.push_str(&format!(
            "define <16 x float> @f{f}(<16 x float> %x) {{\n  %a = fmul <16 x float> %x, %x\n"
        ));
        let mut last = "%a".to_owned();
        for k in 0..30 {
            ir.push_str(&format!(
                "  %b{k} = fadd <16 x float> {last}, %x\n  %c{k} = fdiv <16 x float> %b{k}, %a\n"
            ));
            last = format!("%c{k}");
        }
        ir.push_str(&format!("  ret <16 x float> {last}\n}}\n"));
    }
    ir
}

fn child() {
    let llvm = Llvm::get(None).expect("the parent checked the library");
    let target = llvm.host_target(2).unwrap();
    let ir = busy_module();
    let (compiled, rounds_done) = std::sync::mpsc::channel();
    for _ in 0..2 {
        let (llvm, target, ir) = (llvm.clone(), target.clone(), ir.clone());
        let compiled = compiled.clone();
        std::thread::spawn(move || {
            loop {
                let object = llvm.compile_object(&ir, "busy.ll", &target).unwrap();
                let linked = llvm.link_host_object(&object, &["f0", "f39"]).unwrap();
                drop(linked);
                let _ = compiled.send(());
            }
        });
    }
    // The guard covers what the library's first compile and first link
    // construct once they are done (library.rs, `guard_exit`): on a loaded
    // machine they can take longer than any fixed wait, so wait for two
    // finished rounds of compiling and linking.
    for _ in 0..2 {
        rounds_done
            .recv_timeout(Duration::from_secs(120))
            .expect("a first compile and link finish");
    }
    // Return while both threads are inside the library.
    std::thread::sleep(Duration::from_millis(50));
}

/// Start a compile of a module libLLVM-19 loops on (on AVX512BW hosts)
/// and exit with status 3 while it runs (or after it, where this library
/// terminates on it).
fn stuck_child() {
    let llvm = Llvm::get(None).expect("the parent checked the library");
    let target = llvm.host_target(2).unwrap();
    // A first compile and link, so the exit guard is in place.
    let object = llvm
        .compile_object(&busy_module(), "busy.ll", &target)
        .unwrap();
    drop(llvm.link_host_object(&object, &["f0"]).unwrap());
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let finished = done.clone();
    std::thread::spawn(move || {
        let ir = aqueduct_llvm::known_hangs::avx512bw_mask_interleave();
        let _ = llvm.compile_object(&ir, "stuck.ll", &target);
        finished.store(true, std::sync::atomic::Ordering::Release);
    });
    std::thread::sleep(Duration::from_secs(2));
    if !done.load(std::sync::atomic::Ordering::Acquire) {
        println!("{STILL_COMPILING}");
    }
    std::process::exit(3);
}

#[test]
fn a_compile_that_never_ends_does_not_hold_the_exit() {
    if std::env::var_os(STUCK_CHILD_ENV).is_some() {
        return stuck_child();
    }
    if let Err(e) = Llvm::get(None) {
        eprintln!("skipped: {e}");
        return;
    }
    let start = std::time::Instant::now();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_compile_that_never_ends_does_not_hold_the_exit",
            "--nocapture",
        ])
        .env(STUCK_CHILD_ENV, "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    if stdout.contains(STILL_COMPILING) {
        assert!(stderr.contains("still running"), "{stderr}");
        assert!(start.elapsed() < Duration::from_secs(60));
    } else {
        eprintln!("this libLLVM-19 terminates on the module: only the exit status is checked");
    }
}

#[test]
fn exiting_while_compiling_is_clean() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return child();
    }
    if let Err(e) = Llvm::get(None) {
        eprintln!("skipped: {e}");
        return;
    }
    let me = std::env::current_exe().unwrap();
    for run in 0..8 {
        let out = Command::new(&me)
            .args(["--exact", "exiting_while_compiling_is_clean", "--nocapture"])
            .env(CHILD_ENV, "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "run {run}: the child exited with {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
