//! IR text to a relocatable object, the way `clang-19 -x ir -target T
//! -mcpu=C -O<n> -c` does: parse, give the module the target's triple and
//! data layout, run the `default<On>` pipeline with clang's tuning for that
//! level, emit an object at the matching codegen level.
//!
//! Every compile has its own `LLVMContext`. Target machines are reused
//! through a pool, one compile at a time each: the AMDGPU target machine
//! caches subtargets in a map without a lock, so a machine is not shared
//! between threads at once.

use std::collections::{HashMap, HashSet};
use std::ffi::{CString, c_int};
use std::sync::Mutex;

use crate::error::{LlvmError, Stage};
use crate::library::{Context, Llvm, Module, Ref, guard_exit_for, in_use, resolve, take_message};

// LLVM-C enums (llvm-c/TargetMachine.h).
const LLVM_RELOC_PIC: c_int = 2;
const LLVM_CODE_MODEL_DEFAULT: c_int = 0;
const LLVM_OBJECT_FILE: c_int = 1;
// llvm-c/Analysis.h: return a status and a message, do not abort.
const LLVM_RETURN_STATUS_ACTION: c_int = 2;

/// What an object is compiled for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectTarget {
    /// The target triple (`amdgcn-amd-amdhsa`, `x86_64-pc-linux-gnu`).
    pub triple: String,
    /// The processor (`gfx1100`, `znver4`).
    pub cpu: String,
    /// Target features (`+avx2,-avx512f,...`), empty for the processor's own.
    pub features: String,
    /// The optimisation level, 0 to 3.
    pub opt_level: u8,
}

impl ObjectTarget {
    /// An AMD GPU of processor `gfx` for the HSA runtime, as
    /// `-target amdgcn-amd-amdhsa -mcpu=<gfx>` compiles for it.
    pub fn amdgpu(gfx: &str, opt_level: u8) -> Self {
        ObjectTarget {
            triple: "amdgcn-amd-amdhsa".to_owned(),
            cpu: gfx.to_owned(),
            features: String::new(),
            opt_level,
        }
    }
}

/// Target machines not in use, per target; and the targets initialised.
#[derive(Default)]
pub(crate) struct Machines {
    idle: Mutex<HashMap<ObjectTarget, Vec<TargetMachine>>>,
    initialised: Mutex<HashSet<&'static str>>,
}

/// An owned `LLVMTargetMachineRef`.
pub(crate) struct TargetMachine(Ref);

/// The LLVM target (its registry name) that compiles for `triple`.
fn target_name(triple: &str) -> Option<&'static str> {
    let arch = triple.split('-').next()?;
    Some(match arch {
        "amdgcn" => "AMDGPU",
        "x86_64" | "i386" | "i686" => "X86",
        "aarch64" | "arm64" => "AArch64",
        _ => return None,
    })
}

impl Llvm {
    /// Register the LLVM target that compiles for `triple` (once).
    pub(crate) fn initialise_target(&self, triple: &str) -> Result<(), LlvmError> {
        let name = target_name(triple).ok_or_else(|| LlvmError::Failed {
            stage: Stage::TargetMachine,
            message: format!("no LLVM target is set up here for {triple}"),
        })?;
        let mut done = self
            .machines
            .initialised
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if done.contains(name) {
            return Ok(());
        }
        for part in ["TargetInfo", "Target", "TargetMC", "AsmPrinter"] {
            // SAFETY: LLVMInitialize<T><Part> takes no arguments and returns
            // nothing (llvm-c/Target.h); it registers into LLVM's registry.
            let init: unsafe extern "C" fn() =
                unsafe { resolve(self, &format!("LLVMInitialize{name}{part}"))? };
            // SAFETY: as above; running one twice is harmless.
            unsafe { init() };
        }
        done.insert(name);
        Ok(())
    }

    pub(crate) fn take_machine(&self, target: &ObjectTarget) -> Result<TargetMachine, LlvmError> {
        if let Some(tm) = self
            .machines
            .idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(target)
            .and_then(Vec::pop)
        {
            return Ok(tm);
        }
        self.initialise_target(&target.triple)?;
        let no_machine = |why: String| LlvmError::Failed {
            stage: Stage::TargetMachine,
            message: why,
        };
        let c = |s: &str| CString::new(s).map_err(|_| no_machine(format!("a NUL in {s:?}")));
        let (triple, cpu, features) = (c(&target.triple)?, c(&target.cpu)?, c(&target.features)?);
        let api = &self.api;
        let mut llvm_target = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        // SAFETY: the triple is NUL-terminated; both out-pointers are valid.
        if unsafe { (api.get_target_from_triple)(triple.as_ptr(), &mut llvm_target, &mut msg) } != 0
        {
            return Err(no_machine(take_message(
                msg,
                api.dispose_message,
                "no such target",
            )));
        }
        // SAFETY: `llvm_target` came from LLVMGetTargetFromTriple; the strings
        // are NUL-terminated; the enums are LLVM-C's values. clang compiles
        // for amdhsa, and shared objects, position-independent.
        let tm = unsafe {
            (api.create_target_machine)(
                llvm_target,
                triple.as_ptr(),
                cpu.as_ptr(),
                features.as_ptr(),
                c_int::from(target.opt_level.min(3)),
                LLVM_RELOC_PIC,
                LLVM_CODE_MODEL_DEFAULT,
            )
        };
        if tm.is_null() {
            return Err(no_machine(format!(
                "no target machine for {} {}",
                target.triple, target.cpu
            )));
        }
        Ok(TargetMachine(tm))
    }

    pub(crate) fn put_machine(&self, target: &ObjectTarget, tm: TargetMachine) {
        self.machines
            .idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(target.clone())
            .or_default()
            .push(tm);
    }

    /// Compile IR text to a relocatable object for `target`; `file` names
    /// the IR in LLVM's diagnostics (clang names the `.ll`).
    pub fn compile_object(
        &self,
        ir: &str,
        file: &str,
        target: &ObjectTarget,
    ) -> Result<Vec<u8>, LlvmError> {
        let _in_use = in_use();
        let tm = self.take_machine(target)?;
        let result = self.compile_with(ir, file, &tm, target);
        // A machine that failed an emit is still sound: emission does not
        // leave state behind in it.
        self.put_machine(target, tm);
        guard_exit_for(&target.triple);
        result
    }

    pub(crate) fn compile_with(
        &self,
        ir: &str,
        file: &str,
        tm: &TargetMachine,
        target: &ObjectTarget,
    ) -> Result<Vec<u8>, LlvmError> {
        let api = &self.api;
        let failed = |stage, message| LlvmError::Failed { stage, message };
        // SAFETY: a fresh context, owned by `Context` and disposed on drop.
        let ctx = Context(unsafe { (api.context_create)() }, api.context_dispose);
        let name = CString::new(file).unwrap_or_else(|_| c"module.ll".to_owned());
        // SAFETY: the range is `ir`'s bytes, copied into the buffer; the name
        // is NUL-terminated.
        let buffer =
            unsafe { (api.buffer_from_range_copy)(ir.as_ptr().cast(), ir.len(), name.as_ptr()) };
        let mut module = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        // SAFETY: context and buffer are live; LLVMParseIRInContext takes
        // ownership of the buffer whether or not it succeeds.
        if unsafe { (api.parse_ir)(ctx.0, buffer, &mut module, &mut msg) } != 0 {
            let text = take_message(msg, api.dispose_message, "the IR does not parse");
            return Err(failed(Stage::Parse, text));
        }
        let module = Module(module, api.dispose_module);
        let mut msg = std::ptr::null_mut();
        // SAFETY: the module is live; the message is freed by take_message.
        if unsafe { (api.verify_module)(module.0, LLVM_RETURN_STATUS_ACTION, &mut msg) } != 0 {
            let text = take_message(msg, api.dispose_message, "the IR is invalid");
            return Err(failed(Stage::Verify, text));
        }
        if !msg.is_null() {
            take_message(msg, api.dispose_message, "");
        }
        // clang gives a module the target's triple (overriding the module's
        // own) and, where it has none, the target's data layout.
        let triple = CString::new(target.triple.as_str()).expect("checked by take_machine");
        // SAFETY: the target machine and module are live; the triple is
        // copied into the module; the layout is copied, then disposed.
        unsafe {
            (api.set_target)(module.0, triple.as_ptr());
            let layout = (api.create_data_layout)(tm.0);
            (api.set_data_layout)(module.0, layout);
            (api.dispose_target_data)(layout);
        }
        let opt_level = target.opt_level.min(3);
        // SAFETY: fresh options, disposed below; the setters take LLVMBool.
        let options = unsafe { (api.create_pass_options)() };
        // clang's tuning (CompilerInvocation, BackendUtil): loop unrolling
        // and interleaving from -O2 on, loop and SLP vectorisation likewise
        // (the driver passes -vectorize-loops -vectorize-slp at -O2/-O3).
        let above_o1 = c_int::from(opt_level >= 2);
        // SAFETY: `options` is live.
        unsafe {
            (api.pass_options_loop_unrolling)(options, above_o1);
            (api.pass_options_loop_interleaving)(options, above_o1);
            (api.pass_options_loop_vectorization)(options, above_o1);
            (api.pass_options_slp_vectorization)(options, above_o1);
        }
        let pipeline = CString::new(format!("default<O{opt_level}>")).expect("no NUL");
        // SAFETY: module, pipeline string, target machine and options are live.
        let error = unsafe { (api.run_passes)(module.0, pipeline.as_ptr(), tm.0, options) };
        // SAFETY: the options are not used after this.
        unsafe { (api.dispose_pass_options)(options) };
        if !error.is_null() {
            // SAFETY: LLVMGetErrorMessage consumes the error.
            let msg = unsafe { (api.get_error_message)(error) };
            let text = take_message(msg, api.dispose_error_message, "the passes failed");
            return Err(failed(Stage::Optimise, text));
        }
        let mut msg = std::ptr::null_mut();
        let mut out = std::ptr::null_mut();
        // SAFETY: target machine and module are live; the out-pointers are valid.
        let emit_failed =
            unsafe { (api.emit_to_buffer)(tm.0, module.0, LLVM_OBJECT_FILE, &mut msg, &mut out) };
        if emit_failed != 0 || out.is_null() {
            let text = take_message(msg, api.dispose_message, "emission failed");
            return Err(failed(Stage::Emit, text));
        }
        // SAFETY: `out` is a live buffer of `size` bytes at `start`; the bytes
        // are copied before it is disposed.
        let bytes = unsafe {
            let start = (api.buffer_start)(out);
            let size = (api.buffer_size)(out);
            let bytes = std::slice::from_raw_parts(start.cast::<u8>(), size).to_vec();
            (api.dispose_buffer)(out);
            bytes
        };
        drop(module);
        drop(ctx);
        Ok(bytes)
    }
}

impl Drop for Llvm {
    fn drop(&mut self) {
        let idle = std::mem::take(
            self.machines
                .idle
                .get_mut()
                .unwrap_or_else(|p| p.into_inner()),
        );
        for tm in idle.into_values().flatten() {
            // SAFETY: each pooled machine is owned by the pool and unused.
            unsafe { (self.api.dispose_target_machine)(tm.0) };
        }
    }
}
