//! LLVM in this process: libLLVM-19 opened with `dlopen` at run time (never
//! linked, so building needs no LLVM development files), its C API resolved
//! once, and IR text compiled to a relocatable AMDGPU object the way
//! `clang-19 -x ir -target amdgcn-amd-amdhsa -mcpu=<gfx> -O<n>
//! -mcode-object-version=5 -c` does: parse, set the target's data layout,
//! run the `default<On>` pipeline with clang's tuning for that level, emit
//! an object at the matching codegen level. A small kernel then costs a few
//! milliseconds instead of two process start-ups.
//!
//! Every compile has its own `LLVMContext`. Target machines are reused
//! through a pool, one compile at a time each: the AMDGPU target machine
//! caches subtargets in a map without a lock, so it is not shared between
//! threads at once.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{CompileError, LlvmStage};

// The dynamic loader's interface (glibc exports it from libc.so.6 since 2.34;
// Rust's std links libdl on older ones).
unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
}

/// glibc's `Dl_info` (dlfcn.h).
#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

/// Resolve every symbol at load time; keep LLVM's symbols out of the global
/// namespace (another LLVM in the process must not bind to them).
const RTLD_NOW: c_int = 2;
const RTLD_LOCAL: c_int = 0;

/// The library names tried, in order, when no directory is given: the
/// soname libllvm19 installs, then the development symlink.
const LIBRARY_NAMES: &[&str] = &["libLLVM.so.19.1", "libLLVM-19.so"];

type Ref = *mut c_void;

// LLVM-C enums (llvm-c/TargetMachine.h).
const LLVM_RELOC_PIC: c_int = 2;
const LLVM_CODE_MODEL_DEFAULT: c_int = 0;
const LLVM_OBJECT_FILE: c_int = 1;
// llvm-c/Analysis.h: return a status and a message, do not abort.
const LLVM_RETURN_STATUS_ACTION: c_int = 2;

const TRIPLE: &CStr = c"amdgcn-amd-amdhsa";

/// The C API functions used, resolved once.
struct Api {
    context_create: unsafe extern "C" fn() -> Ref,
    context_dispose: unsafe extern "C" fn(Ref),
    buffer_from_range_copy: unsafe extern "C" fn(*const c_char, usize, *const c_char) -> Ref,
    parse_ir: unsafe extern "C" fn(Ref, Ref, *mut Ref, *mut *mut c_char) -> c_int,
    verify_module: unsafe extern "C" fn(Ref, c_int, *mut *mut c_char) -> c_int,
    dispose_module: unsafe extern "C" fn(Ref),
    dispose_message: unsafe extern "C" fn(*mut c_char),
    get_target_from_triple:
        unsafe extern "C" fn(*const c_char, *mut Ref, *mut *mut c_char) -> c_int,
    create_target_machine: unsafe extern "C" fn(
        Ref,
        *const c_char,
        *const c_char,
        *const c_char,
        c_int,
        c_int,
        c_int,
    ) -> Ref,
    dispose_target_machine: unsafe extern "C" fn(Ref),
    create_data_layout: unsafe extern "C" fn(Ref) -> Ref,
    set_data_layout: unsafe extern "C" fn(Ref, Ref),
    dispose_target_data: unsafe extern "C" fn(Ref),
    create_pass_options: unsafe extern "C" fn() -> Ref,
    pass_options_loop_vectorization: unsafe extern "C" fn(Ref, c_int),
    pass_options_slp_vectorization: unsafe extern "C" fn(Ref, c_int),
    pass_options_loop_unrolling: unsafe extern "C" fn(Ref, c_int),
    pass_options_loop_interleaving: unsafe extern "C" fn(Ref, c_int),
    dispose_pass_options: unsafe extern "C" fn(Ref),
    run_passes: unsafe extern "C" fn(Ref, *const c_char, Ref, Ref) -> Ref,
    get_error_message: unsafe extern "C" fn(Ref) -> *mut c_char,
    dispose_error_message: unsafe extern "C" fn(*mut c_char),
    emit_to_buffer: unsafe extern "C" fn(Ref, Ref, c_int, *mut *mut c_char, *mut Ref) -> c_int,
    buffer_start: unsafe extern "C" fn(Ref) -> *const c_char,
    buffer_size: unsafe extern "C" fn(Ref) -> usize,
    dispose_buffer: unsafe extern "C" fn(Ref),
}

/// A loaded libLLVM-19 with the AMDGPU target initialised.
pub(crate) struct InProcessLlvm {
    api: Api,
    target: Ref,
    /// The library's file, as the loader found it.
    path: PathBuf,
    /// Idle target machines per (gfx target, optimisation level).
    machines: Mutex<HashMap<(String, u8), Vec<TargetMachine>>>,
}

// SAFETY: the library stays loaded for the process's life; `target` is an
// immutable registry entry; target machines are used by one thread at a time
// (taken out of the pool under its lock).
unsafe impl Send for InProcessLlvm {}
// SAFETY: as above; the C API functions used are reentrant with distinct
// contexts, modules and target machines.
unsafe impl Sync for InProcessLlvm {}

impl std::fmt::Debug for InProcessLlvm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessLlvm")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// An owned `LLVMTargetMachineRef`.
struct TargetMachine(Ref);

/// The loader's last error message.
fn loader_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string valid until the
    // next loader call on this thread; it is copied at once.
    unsafe {
        let e = dlerror();
        if e.is_null() {
            "unknown error".to_owned()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

/// `address` as a function pointer of type `F`.
///
/// # Safety
/// `F` is an `extern "C" fn` type matching the function at `address`.
unsafe fn function_pointer<F: Copy>(address: *mut c_void) -> F {
    assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
    // SAFETY: same size (checked); the caller vouches for the signature.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&address) }
}

/// The libLLVM-19 file, found without loading it (a few `stat`s, so a
/// toolchain's identity costs no `dlopen`): `llvm_bin/../lib` when a
/// directory is given; else `LD_LIBRARY_PATH`, the multiarch and plain
/// system library directories, and LLVM's own `/usr/lib/llvm-19/lib`.
/// Canonical; None when not found there (the loader's search may still
/// find it). Looked up once per directory: every cache key asks.
pub(crate) fn locate(llvm_bin: Option<&Path>) -> Option<PathBuf> {
    type Located = Mutex<HashMap<Option<PathBuf>, Option<PathBuf>>>;
    static LOCATED: OnceLock<Located> = OnceLock::new();
    let key = llvm_bin.map(Path::to_path_buf);
    let mut located = LOCATED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    located
        .entry(key)
        .or_insert_with(|| search(llvm_bin))
        .clone()
}

fn search(llvm_bin: Option<&Path>) -> Option<PathBuf> {
    let dirs: Vec<PathBuf> = match llvm_bin {
        Some(dir) => vec![dir.join("../lib")],
        None => {
            let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
                .map(|p| std::env::split_paths(&p).collect())
                .unwrap_or_default();
            let multiarch = format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH);
            for d in [&multiarch, "/usr/lib64", "/usr/lib", "/usr/lib/llvm-19/lib"] {
                dirs.push(PathBuf::from(d));
            }
            dirs
        }
    };
    dirs.iter()
        .flat_map(|d| LIBRARY_NAMES.iter().map(move |n| d.join(n)))
        .find(|p| p.is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
}

/// Take an LLVM-allocated message (freed with `dispose`), or `fallback`.
fn take_message(
    msg: *mut c_char,
    dispose: unsafe extern "C" fn(*mut c_char),
    fallback: &str,
) -> String {
    if msg.is_null() {
        return fallback.to_owned();
    }
    // SAFETY: LLVM hands out a NUL-terminated string it allocated; it is
    // copied, then freed once with the matching dispose function.
    unsafe {
        let text = CStr::from_ptr(msg).to_string_lossy().into_owned();
        dispose(msg);
        text
    }
}

impl InProcessLlvm {
    /// The library for `llvm_bin` (its `../lib`), or the system's; loaded
    /// once per directory and kept for the process's life.
    pub(crate) fn get(llvm_bin: Option<&Path>) -> Result<Arc<InProcessLlvm>, CompileError> {
        type Loaded = Mutex<HashMap<Option<PathBuf>, Arc<InProcessLlvm>>>;
        static LOADED: OnceLock<Loaded> = OnceLock::new();
        let loaded = LOADED.get_or_init(Default::default);
        let key = llvm_bin.map(Path::to_path_buf);
        let mut map = loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(llvm) = map.get(&key) {
            return Ok(llvm.clone());
        }
        // The file `locate` finds, so the library loaded is the one a
        // toolchain's identity names; else the loader's own search.
        let candidates: Vec<String> = match (locate(llvm_bin), llvm_bin) {
            (Some(file), _) => vec![file.display().to_string()],
            (None, Some(dir)) => LIBRARY_NAMES
                .iter()
                .map(|n| dir.join("../lib").join(n).display().to_string())
                .collect(),
            (None, None) => LIBRARY_NAMES.iter().map(|n| n.to_string()).collect(),
        };
        let llvm = Arc::new(Self::load(&candidates)?);
        map.insert(key, llvm.clone());
        Ok(llvm)
    }

    fn load(candidates: &[String]) -> Result<InProcessLlvm, CompileError> {
        let mut reasons = Vec::new();
        let mut handle = std::ptr::null_mut();
        for name in candidates {
            let c = CString::new(name.as_str()).map_err(|_| CompileError::LlvmUnavailable {
                library: name.clone(),
                reason: "a NUL in the path".into(),
            })?;
            // SAFETY: `c` is a NUL-terminated name; libLLVM's initialisers
            // only register its passes and options.
            handle = unsafe { dlopen(c.as_ptr(), RTLD_NOW | RTLD_LOCAL) };
            if !handle.is_null() {
                break;
            }
            reasons.push(loader_error());
        }
        if handle.is_null() {
            return Err(CompileError::LlvmUnavailable {
                library: candidates.join(", "),
                reason: reasons.join("; "),
            });
        }
        let symbol = |name: &str| -> Result<*mut c_void, CompileError> {
            let c = CString::new(name).expect("symbol names have no NUL");
            // SAFETY: the handle is open for the process's life; `c` is NUL-terminated.
            let p = unsafe { dlsym(handle, c.as_ptr()) };
            if p.is_null() {
                Err(CompileError::LlvmUnavailable {
                    library: candidates.join(", "),
                    reason: format!("no symbol {name}"),
                })
            } else {
                Ok(p)
            }
        };
        macro_rules! resolve {
            ($name:literal) => {
                // SAFETY: the symbol is the LLVM-C function of that name, whose
                // C signature the field's type spells (llvm-c headers, LLVM 19).
                unsafe { function_pointer(symbol($name)?) }
            };
        }
        let api = Api {
            context_create: resolve!("LLVMContextCreate"),
            context_dispose: resolve!("LLVMContextDispose"),
            buffer_from_range_copy: resolve!("LLVMCreateMemoryBufferWithMemoryRangeCopy"),
            parse_ir: resolve!("LLVMParseIRInContext"),
            verify_module: resolve!("LLVMVerifyModule"),
            dispose_module: resolve!("LLVMDisposeModule"),
            dispose_message: resolve!("LLVMDisposeMessage"),
            get_target_from_triple: resolve!("LLVMGetTargetFromTriple"),
            create_target_machine: resolve!("LLVMCreateTargetMachine"),
            dispose_target_machine: resolve!("LLVMDisposeTargetMachine"),
            create_data_layout: resolve!("LLVMCreateTargetDataLayout"),
            set_data_layout: resolve!("LLVMSetModuleDataLayout"),
            dispose_target_data: resolve!("LLVMDisposeTargetData"),
            create_pass_options: resolve!("LLVMCreatePassBuilderOptions"),
            pass_options_loop_vectorization: resolve!("LLVMPassBuilderOptionsSetLoopVectorization"),
            pass_options_slp_vectorization: resolve!("LLVMPassBuilderOptionsSetSLPVectorization"),
            pass_options_loop_unrolling: resolve!("LLVMPassBuilderOptionsSetLoopUnrolling"),
            pass_options_loop_interleaving: resolve!("LLVMPassBuilderOptionsSetLoopInterleaving"),
            dispose_pass_options: resolve!("LLVMDisposePassBuilderOptions"),
            run_passes: resolve!("LLVMRunPasses"),
            get_error_message: resolve!("LLVMGetErrorMessage"),
            dispose_error_message: resolve!("LLVMDisposeErrorMessage"),
            emit_to_buffer: resolve!("LLVMTargetMachineEmitToMemoryBuffer"),
            buffer_start: resolve!("LLVMGetBufferStart"),
            buffer_size: resolve!("LLVMGetBufferSize"),
            dispose_buffer: resolve!("LLVMDisposeMemoryBuffer"),
        };
        let init: [unsafe extern "C" fn(); 4] = [
            resolve!("LLVMInitializeAMDGPUTargetInfo"),
            resolve!("LLVMInitializeAMDGPUTarget"),
            resolve!("LLVMInitializeAMDGPUTargetMC"),
            resolve!("LLVMInitializeAMDGPUAsmPrinter"),
        ];
        for f in init {
            // SAFETY: the target initialisers take no arguments and may run
            // more than once (they register into LLVM's target registry).
            unsafe { f() };
        }
        let mut path = PathBuf::from(&candidates[0]);
        let mut info = DlInfo {
            dli_fname: std::ptr::null(),
            dli_fbase: std::ptr::null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: std::ptr::null_mut(),
        };
        // SAFETY: `info` is a valid Dl_info to fill; the address is a
        // function of the loaded library.
        if unsafe { dladdr(api.context_create as *const c_void, &mut info) } != 0
            && !info.dli_fname.is_null()
        {
            // SAFETY: dli_fname is the NUL-terminated path of the loaded object.
            let name = unsafe { CStr::from_ptr(info.dli_fname) };
            path = PathBuf::from(name.to_string_lossy().into_owned());
        }
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let mut target = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        // SAFETY: the triple is NUL-terminated; both out-pointers are valid.
        let failed =
            unsafe { (api.get_target_from_triple)(TRIPLE.as_ptr(), &mut target, &mut msg) };
        if failed != 0 {
            return Err(CompileError::LlvmUnavailable {
                library: path.display().to_string(),
                reason: take_message(msg, api.dispose_message, "no AMDGPU target"),
            });
        }
        Ok(InProcessLlvm {
            api,
            target,
            path,
            machines: Mutex::new(HashMap::new()),
        })
    }

    /// The loaded library's file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn take_machine(&self, cpu: &str, opt_level: u8) -> Result<TargetMachine, CompileError> {
        let key = (cpu.to_owned(), opt_level);
        if let Some(tm) = self
            .machines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&key)
            .and_then(Vec::pop)
        {
            return Ok(tm);
        }
        let c_cpu = CString::new(cpu).map_err(|_| CompileError::UnknownTarget(cpu.into()))?;
        // SAFETY: `target` came from LLVMGetTargetFromTriple; the strings are
        // NUL-terminated; the enums are LLVM-C's values. clang compiles for
        // amdhsa position-independent (`-mrelocation-model pic`).
        let tm = unsafe {
            (self.api.create_target_machine)(
                self.target,
                TRIPLE.as_ptr(),
                c_cpu.as_ptr(),
                c"".as_ptr(),
                c_int::from(opt_level.min(3)),
                LLVM_RELOC_PIC,
                LLVM_CODE_MODEL_DEFAULT,
            )
        };
        if tm.is_null() {
            return Err(CompileError::LlvmFailed {
                stage: LlvmStage::TargetMachine,
                message: format!("no target machine for {cpu}"),
            });
        }
        Ok(TargetMachine(tm))
    }

    fn put_machine(&self, cpu: &str, opt_level: u8, tm: TargetMachine) {
        self.machines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry((cpu.to_owned(), opt_level))
            .or_default()
            .push(tm);
    }

    /// Compile IR text to a relocatable object for `cpu` at `opt_level`;
    /// `file` names the IR in LLVM's diagnostics (clang names the `.ll`).
    pub(crate) fn compile(
        &self,
        ir: &str,
        file: &str,
        cpu: &str,
        opt_level: u8,
    ) -> Result<Vec<u8>, CompileError> {
        let opt_level = opt_level.min(3);
        let ir = with_code_object_version(ir);
        let tm = self.take_machine(cpu, opt_level)?;
        let result = self.compile_with(&ir, file, &tm, opt_level);
        // A machine that failed an emit is still sound: emission does not
        // leave state behind in it.
        self.put_machine(cpu, opt_level, tm);
        result
    }

    fn compile_with(
        &self,
        ir: &str,
        file: &str,
        tm: &TargetMachine,
        opt_level: u8,
    ) -> Result<Vec<u8>, CompileError> {
        let api = &self.api;
        // SAFETY: a fresh context, owned by `Context` and disposed on drop.
        let ctx = Context(unsafe { (api.context_create)() }, api.context_dispose);
        let name = CString::new(file).unwrap_or_else(|_| c"shader.ll".to_owned());
        // SAFETY: the range is `ir`'s bytes, copied into the buffer; the name
        // is NUL-terminated.
        let buffer =
            unsafe { (api.buffer_from_range_copy)(ir.as_ptr().cast(), ir.len(), name.as_ptr()) };
        let mut module = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        // SAFETY: context and buffer are live; LLVMParseIRInContext takes
        // ownership of the buffer whether or not it succeeds.
        if unsafe { (api.parse_ir)(ctx.0, buffer, &mut module, &mut msg) } != 0 {
            return Err(CompileError::LlvmFailed {
                stage: LlvmStage::Parse,
                message: take_message(msg, api.dispose_message, "the IR does not parse"),
            });
        }
        let module = Module(module, api.dispose_module);
        let mut msg = std::ptr::null_mut();
        // SAFETY: the module is live; the message is freed by take_message.
        if unsafe { (api.verify_module)(module.0, LLVM_RETURN_STATUS_ACTION, &mut msg) } != 0 {
            return Err(CompileError::LlvmFailed {
                stage: LlvmStage::Verify,
                message: take_message(msg, api.dispose_message, "the IR is invalid"),
            });
        }
        if !msg.is_null() {
            take_message(msg, api.dispose_message, "");
        }
        // clang gives an IR module without a data layout the target's.
        // SAFETY: the target machine and module are live; the layout is
        // copied into the module and then disposed.
        unsafe {
            let layout = (api.create_data_layout)(tm.0);
            (api.set_data_layout)(module.0, layout);
            (api.dispose_target_data)(layout);
        }
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
            return Err(CompileError::LlvmFailed {
                stage: LlvmStage::Optimise,
                message: take_message(msg, api.dispose_error_message, "the passes failed"),
            });
        }
        let mut msg = std::ptr::null_mut();
        let mut out = std::ptr::null_mut();
        // SAFETY: target machine and module are live; the out-pointers are valid.
        let failed =
            unsafe { (api.emit_to_buffer)(tm.0, module.0, LLVM_OBJECT_FILE, &mut msg, &mut out) };
        if failed != 0 || out.is_null() {
            return Err(CompileError::LlvmFailed {
                stage: LlvmStage::Emit,
                message: take_message(msg, api.dispose_message, "emission failed"),
            });
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

impl Drop for InProcessLlvm {
    fn drop(&mut self) {
        let machines = std::mem::take(self.machines.get_mut().unwrap_or_else(|p| p.into_inner()));
        for tm in machines.into_values().flatten() {
            // SAFETY: each pooled machine is owned by the pool and unused.
            unsafe { (self.api.dispose_target_machine)(tm.0) };
        }
    }
}

/// An owned `LLVMContextRef`.
struct Context(Ref, unsafe extern "C" fn(Ref));

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the context is owned here; its modules are disposed first
        // (`Module` is dropped before `Context` in `compile_with`).
        unsafe { (self.1)(self.0) }
    }
}

/// An owned `LLVMModuleRef`.
struct Module(Ref, unsafe extern "C" fn(Ref));

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: the module is owned here and disposed once.
        unsafe { (self.1)(self.0) }
    }
}

/// `ir` with the module flag clang's `-mcode-object-version=5` adds
/// (`amdhsa_code_object_version` = 500, AMDGPUUsage "Code Object V5
/// Metadata"), unless the IR already names a version. The emitter writes
/// no numbered metadata, so `!0` is free; otherwise the highest number + 1.
pub(crate) fn with_code_object_version(ir: &str) -> std::borrow::Cow<'_, str> {
    if ir.contains("amdhsa_code_object_version") {
        return ir.into();
    }
    let next = ir
        .lines()
        .filter_map(|l| l.strip_prefix('!'))
        .filter_map(|l| l.split(|c: char| !c.is_ascii_digit()).next())
        .filter_map(|n| n.parse::<u64>().ok())
        .max()
        .map_or(0, |n| n + 1);
    if ir.lines().any(|l| l.starts_with("!llvm.module.flags")) {
        // The emitter writes no module flags; a list from elsewhere is left
        // alone (LLVM 19's default code object version is 5 as well).
        return ir.into();
    }
    let mut out = String::with_capacity(ir.len() + 96);
    out.push_str(ir);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "!llvm.module.flags = !{{!{next}}}\n!{next} = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}\n"
    ));
    out.into()
}
