//! A process that exits while other threads compile and link through the
//! library exits cleanly: libLLVM's static destructors run at `exit`, and
//! calls in flight must not run into them (library.rs, `IN_USE`).
//!
//! The test runs this binary again as a child that keeps two threads
//! compiling and linking and returns from `main` in the middle of that,
//! once the library has finished a first compile and link (what those
//! construct is guarded only from then on: library.rs, `guard_exit`).

use std::process::Command;
use std::time::Duration;

use aqueduct_llvm::Llvm;

const CHILD_ENV: &str = "AQUEDUCT_LLVM_EXIT_CHILD";

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
