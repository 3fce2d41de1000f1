//! Compiling and linking through the loaded libLLVM-19: host objects run
//! in this process, objects with the same names live side by side, and bad
//! input comes back as typed errors.

use std::sync::Arc;

use aqueduct_llvm::{Llvm, LlvmError, ObjectTarget, Stage};

/// The system's library, or None (with the reason printed) where it is not
/// installed.
fn llvm() -> Option<Arc<Llvm>> {
    match Llvm::get(None) {
        Ok(llvm) => Some(llvm),
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

const ADD: &str = "define i32 @f(i32 %a, i32 %b) {\n  %s = add i32 %a, %b\n  ret i32 %s\n}\n";
const MUL: &str = "define i32 @f(i32 %a, i32 %b) {\n  %s = mul i32 %a, %b\n  ret i32 %s\n}\n";

type BinaryFn = unsafe extern "C" fn(i32, i32) -> i32;

fn link(llvm: &Arc<Llvm>, ir: &str) -> (aqueduct_llvm::LinkedObject, BinaryFn) {
    let target = llvm.host_target(2).expect("a host target");
    let object = llvm.compile_object(ir, "t.ll", &target).expect("compiles");
    let (linked, addresses) = llvm.link_host_object(&object, &["f"]).expect("links");
    // SAFETY: `f` is defined above as `i32 (i32, i32)` in the C convention.
    let f = unsafe { std::mem::transmute::<usize, BinaryFn>(addresses[0]) };
    (linked, f)
}

#[test]
fn host_objects_run_and_may_share_names() {
    let Some(llvm) = llvm() else { return };
    let (add_object, add) = link(&llvm, ADD);
    let (mul_object, mul) = link(&llvm, MUL);
    // SAFETY: both objects are alive.
    unsafe {
        assert_eq!(add(20, 22), 42);
        assert_eq!(mul(6, 7), 42);
    }
    drop(add_object);
    // SAFETY: the multiplying object is still alive.
    assert_eq!(unsafe { mul(-3, 5) }, -15);
    drop(mul_object);
}

#[test]
fn objects_call_the_process_s_own_functions() {
    let Some(llvm) = llvm() else { return };
    // A copy large and variable enough that LLVM calls memcpy.
    let ir = "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
              define void @copy(ptr %d, ptr %s, i64 %n) {\n\
              call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)\n\
              ret void\n}\n";
    let target = llvm.host_target(2).unwrap();
    let object = llvm.compile_object(ir, "copy.ll", &target).unwrap();
    let (_linked, addresses) = llvm.link_host_object(&object, &["copy"]).unwrap();
    type CopyFn = unsafe extern "C" fn(*mut u8, *const u8, u64);
    // SAFETY: `copy` has that signature.
    let copy = unsafe { std::mem::transmute::<usize, CopyFn>(addresses[0]) };
    let src: Vec<u8> = (0..=255).collect();
    let mut dst = vec![0u8; 256];
    // SAFETY: both buffers hold 256 bytes.
    unsafe { copy(dst.as_mut_ptr(), src.as_ptr(), 256) };
    assert_eq!(dst, src);
}

#[test]
fn bad_input_is_a_typed_error() {
    let Some(llvm) = llvm() else { return };
    let target = llvm.host_target(2).unwrap();
    let parse = llvm.compile_object("define i32 @f( {", "bad.ll", &target);
    assert!(
        matches!(
            parse,
            Err(LlvmError::Failed {
                stage: Stage::Parse,
                ..
            })
        ),
        "{parse:?}"
    );
    let object = llvm.compile_object(ADD, "t.ll", &target).unwrap();
    let missing = llvm.link_host_object(&object, &["g"]);
    assert!(
        matches!(
            &missing,
            Err(LlvmError::Failed {
                stage: Stage::Lookup,
                ..
            })
        ),
        "{missing:?}"
    );
    let undefined = "declare i32 @no_such_function_anywhere(i32)\n\
                     define i32 @f(i32 %a) {\n\
                     %r = call i32 @no_such_function_anywhere(i32 %a)\n  ret i32 %r\n}\n";
    let object = llvm.compile_object(undefined, "u.ll", &target).unwrap();
    let unresolved = llvm.link_host_object(&object, &["f"]);
    match unresolved {
        Err(LlvmError::Failed {
            stage: Stage::Lookup,
            message,
        }) => {
            assert!(message.contains("no_such_function_anywhere"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    let garbage = llvm.link_host_object(b"not an object", &["f"]);
    assert!(
        matches!(garbage, Err(LlvmError::Failed { .. })),
        "{garbage:?}"
    );
    let unknown = ObjectTarget {
        triple: "mips-unknown-linux".into(),
        ..target
    };
    let refused = llvm.compile_object(ADD, "t.ll", &unknown);
    assert!(
        matches!(
            refused,
            Err(LlvmError::Failed {
                stage: Stage::TargetMachine,
                ..
            })
        ),
        "{refused:?}"
    );
}

#[test]
fn amdgpu_objects_are_elf_for_the_gpu() {
    let Some(llvm) = llvm() else { return };
    let ir = "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n\
              store i32 7, ptr addrspace(1) %p\n  ret void\n}\n";
    let object = llvm
        .compile_object(ir, "k.ll", &ObjectTarget::amdgpu("gfx1100", 2))
        .unwrap();
    assert_eq!(&object[..4], b"\x7fELF");
    // e_machine EM_AMDGPU (224), ELF64 little-endian.
    assert_eq!(u16::from_le_bytes([object[18], object[19]]), 224);
}
