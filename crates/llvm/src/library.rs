//! Loading libLLVM-19 with `dlopen` at run time (never linked, so building
//! needs no LLVM development files) and resolving the C API functions used.
//! One library per directory, kept for the process's life.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{
    Arc, Mutex, Once, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError,
};
use std::time::{Duration, Instant};

use crate::error::LlvmError;
use crate::object::Machines;

// The dynamic loader's interface (glibc exports it from libc.so.6 since 2.34;
// Rust's std links libdl on older ones).
unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
    fn on_exit(handler: extern "C" fn(c_int, *mut c_void), arg: *mut c_void) -> c_int;
    fn _exit(status: c_int) -> !;
}

/// Held shared by every call into the library that may run while the
/// process exits (a compile on a background thread), and taken for good by
/// the exit handler: at `exit`, the library's static destructors tear its
/// state down, and a compile still running would then crash the exiting
/// process. So exit waits for the calls in flight, and later ones wait for
/// ever (their threads end with the process).
static IN_USE: RwLock<()> = RwLock::new(());
static EXITING: AtomicBool = AtomicBool::new(false);

/// How long exit waits for the calls in flight. A compile takes well under
/// a second; one still running after this is taken to be stuck (LLVM does
/// not terminate on some inputs), and the process ends at once with its
/// exit status, without the exit handlers whose destructors would crash it.
const EXIT_WAIT: Duration = Duration::from_secs(5);

extern "C" fn close_at_exit(status: c_int, _arg: *mut c_void) {
    if EXITING.swap(true, Ordering::AcqRel) {
        return;
    }
    match write_within(EXIT_WAIT) {
        Some(held) => std::mem::forget(held),
        None => {
            eprintln!(
                "aqueduct-llvm: a call into libLLVM-19 is still running {}s after \
                 the process began to exit; ending it without the remaining exit handlers",
                EXIT_WAIT.as_secs()
            );
            // SAFETY: ends the process; `exit` passed `status`.
            unsafe { _exit(status) }
        }
    }
}

/// [`IN_USE`] for writing, once the calls in flight have finished; None
/// when they have not within `limit`.
fn write_within(limit: Duration) -> Option<RwLockWriteGuard<'static, ()>> {
    let start = Instant::now();
    loop {
        match IN_USE.try_write() {
            Ok(held) => return Some(held),
            Err(TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(TryLockError::WouldBlock) if start.elapsed() < limit => {
                std::thread::sleep(Duration::from_micros(200));
            }
            Err(TryLockError::WouldBlock) => return None,
        }
    }
}

/// Register [`close_at_exit`] (again). Handlers run in the reverse order of
/// registration, the library's destructors among them: registering after
/// the library loads puts it before the destructors of its globals, and
/// registering once more after the first compile for each target triple
/// and after the first link puts it before those of the function-local
/// statics they constructed. A process that exits during one of those
/// first calls is not guarded against the statics that call is
/// constructing.
pub(crate) fn guard_exit(once: &'static Once) {
    once.call_once(register_exit_guard);
}

/// [`guard_exit`] once per distinct `key` (a target triple: each target's
/// code generator constructs statics of its own).
pub(crate) fn guard_exit_for(key: &str) {
    static GUARDED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut guarded = GUARDED.lock().unwrap_or_else(|p| p.into_inner());
    if !guarded.iter().any(|k| k == key) {
        guarded.push(key.to_owned());
        register_exit_guard();
    }
}

fn register_exit_guard() {
    // SAFETY: registers a plain function that ignores its argument; a
    // failure (no memory) only leaves the exit unguarded.
    if unsafe { on_exit(close_at_exit, std::ptr::null_mut()) } != 0 {
        tracing::warn!("LLVM calls are not guarded at exit");
    }
}

/// A call into the library may run while this guard lives (see [`IN_USE`]).
pub(crate) fn in_use() -> RwLockReadGuard<'static, ()> {
    // Once exit has begun, a new call waits for the process to end: exit
    // polls the lock, so without this new calls could keep it from ever
    // finding the lock free.
    while EXITING.load(Ordering::Acquire) {
        std::thread::park();
    }
    IN_USE.read().unwrap_or_else(|p| p.into_inner())
}

/// No other thread is inside the library while this guard lives: what a
/// `fork` needs, so that the child finds every lock of libLLVM free
/// (isolated.rs). None when the calls in flight do not finish within
/// `limit`.
pub(crate) fn quiesce(limit: Duration) -> Option<RwLockWriteGuard<'static, ()>> {
    // As in `in_use`: once exit has begun, wait for the process to end.
    while EXITING.load(Ordering::Acquire) {
        std::thread::park();
    }
    write_within(limit)
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

/// An LLVM-C object reference (`LLVMContextRef`, `LLVMModuleRef`, ...).
pub(crate) type Ref = *mut c_void;

/// The C API functions every use needs, resolved at load.
pub(crate) struct Api {
    pub(crate) context_create: unsafe extern "C" fn() -> Ref,
    pub(crate) context_dispose: unsafe extern "C" fn(Ref),
    pub(crate) buffer_from_range_copy:
        unsafe extern "C" fn(*const c_char, usize, *const c_char) -> Ref,
    pub(crate) parse_ir: unsafe extern "C" fn(Ref, Ref, *mut Ref, *mut *mut c_char) -> c_int,
    pub(crate) verify_module: unsafe extern "C" fn(Ref, c_int, *mut *mut c_char) -> c_int,
    pub(crate) dispose_module: unsafe extern "C" fn(Ref),
    pub(crate) dispose_message: unsafe extern "C" fn(*mut c_char),
    pub(crate) get_target_from_triple:
        unsafe extern "C" fn(*const c_char, *mut Ref, *mut *mut c_char) -> c_int,
    pub(crate) create_target_machine: unsafe extern "C" fn(
        Ref,
        *const c_char,
        *const c_char,
        *const c_char,
        c_int,
        c_int,
        c_int,
    ) -> Ref,
    pub(crate) dispose_target_machine: unsafe extern "C" fn(Ref),
    pub(crate) create_data_layout: unsafe extern "C" fn(Ref) -> Ref,
    pub(crate) set_data_layout: unsafe extern "C" fn(Ref, Ref),
    pub(crate) set_target: unsafe extern "C" fn(Ref, *const c_char),
    pub(crate) dispose_target_data: unsafe extern "C" fn(Ref),
    pub(crate) create_pass_options: unsafe extern "C" fn() -> Ref,
    pub(crate) pass_options_loop_vectorization: unsafe extern "C" fn(Ref, c_int),
    pub(crate) pass_options_slp_vectorization: unsafe extern "C" fn(Ref, c_int),
    pub(crate) pass_options_loop_unrolling: unsafe extern "C" fn(Ref, c_int),
    pub(crate) pass_options_loop_interleaving: unsafe extern "C" fn(Ref, c_int),
    pub(crate) dispose_pass_options: unsafe extern "C" fn(Ref),
    pub(crate) run_passes: unsafe extern "C" fn(Ref, *const c_char, Ref, Ref) -> Ref,
    pub(crate) get_error_message: unsafe extern "C" fn(Ref) -> *mut c_char,
    pub(crate) dispose_error_message: unsafe extern "C" fn(*mut c_char),
    pub(crate) emit_to_buffer:
        unsafe extern "C" fn(Ref, Ref, c_int, *mut *mut c_char, *mut Ref) -> c_int,
    pub(crate) buffer_start: unsafe extern "C" fn(Ref) -> *const c_char,
    pub(crate) buffer_size: unsafe extern "C" fn(Ref) -> usize,
    pub(crate) dispose_buffer: unsafe extern "C" fn(Ref),
    /// `LLVMInstallFatalErrorHandler`: its argument is an
    /// `LLVMFatalErrorHandler` (llvm-c/ErrorHandling.h).
    pub(crate) install_fatal_error_handler:
        unsafe extern "C" fn(unsafe extern "C" fn(*const c_char)),
}

/// A loaded libLLVM-19.
pub struct Llvm {
    handle: *mut c_void,
    pub(crate) api: Api,
    /// The library's file, as the loader found it.
    path: PathBuf,
    /// Target machines not in use, per target and level (object.rs).
    pub(crate) machines: Machines,
    /// The host JIT, made at its first use (host_jit.rs).
    pub(crate) host_jit: OnceLock<Result<crate::host_jit::HostJit, LlvmError>>,
}

// SAFETY: the library stays loaded for the process's life; target machines
// are used by one thread at a time (taken out of their pool under its
// lock); the ORC session is thread-safe (llvm/ExecutionEngine/Orc/Core.h).
unsafe impl Send for Llvm {}
// SAFETY: as above; the C API functions used are reentrant with distinct
// contexts, modules and target machines.
unsafe impl Sync for Llvm {}

impl std::fmt::Debug for Llvm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llvm")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

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
pub(crate) unsafe fn function_pointer<F: Copy>(address: *mut c_void) -> F {
    assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
    // SAFETY: same size (checked); the caller vouches for the signature.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&address) }
}

/// The libLLVM-19 file, found without loading it (a few `stat`s, so a
/// toolchain's identity costs no `dlopen`): `llvm_bin/../lib` when a
/// directory is given; else `LD_LIBRARY_PATH`, the multiarch and plain
/// system library directories, and LLVM's own `/usr/lib/llvm-19/lib`.
/// Canonical; None when not found there (the loader's search may still
/// find it). Looked up once per directory.
pub fn locate(llvm_bin: Option<&Path>) -> Option<PathBuf> {
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
pub(crate) fn take_message(
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

impl Llvm {
    /// The library for `llvm_bin` (its `../lib`), or the system's; loaded
    /// once per directory and kept for the process's life.
    pub fn get(llvm_bin: Option<&Path>) -> Result<Arc<Llvm>, LlvmError> {
        type Loaded = Mutex<HashMap<Option<PathBuf>, Arc<Llvm>>>;
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

    fn load(candidates: &[String]) -> Result<Llvm, LlvmError> {
        let mut reasons = Vec::new();
        let mut handle = std::ptr::null_mut();
        for name in candidates {
            let c = CString::new(name.as_str()).map_err(|_| LlvmError::Unavailable {
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
            return Err(LlvmError::Unavailable {
                library: candidates.join(", "),
                reason: reasons.join("; "),
            });
        }
        let symbol = |name: &str| raw_symbol(handle, name, &candidates.join(", "));
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
            set_target: resolve!("LLVMSetTarget"),
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
            install_fatal_error_handler: resolve!("LLVMInstallFatalErrorHandler"),
        };
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
        static LOADED: Once = Once::new();
        guard_exit(&LOADED);
        Ok(Llvm {
            handle,
            api,
            path,
            machines: Machines::default(),
            host_jit: OnceLock::new(),
        })
    }

    /// The loaded library's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The address of the library's function `name`.
    pub(crate) fn symbol(&self, name: &str) -> Result<*mut c_void, LlvmError> {
        raw_symbol(self.handle, name, &self.path.display().to_string())
    }
}

fn raw_symbol(handle: *mut c_void, name: &str, library: &str) -> Result<*mut c_void, LlvmError> {
    let c = CString::new(name).expect("symbol names have no NUL");
    // SAFETY: the handle is open for the process's life; `c` is NUL-terminated.
    let p = unsafe { dlsym(handle, c.as_ptr()) };
    if p.is_null() {
        Err(LlvmError::Unavailable {
            library: library.to_owned(),
            reason: format!("no symbol {name}"),
        })
    } else {
        Ok(p)
    }
}

/// Resolve `name` in `llvm` as a function pointer of type `F`.
///
/// # Safety
/// `F` is the `extern "C" fn` type of LLVM-C's function `name` (LLVM 19).
pub(crate) unsafe fn resolve<F: Copy>(llvm: &Llvm, name: &str) -> Result<F, LlvmError> {
    // SAFETY: the caller vouches for the signature.
    llvm.symbol(name).map(|p| unsafe { function_pointer(p) })
}

/// An owned `LLVMContextRef`.
pub(crate) struct Context(pub(crate) Ref, pub(crate) unsafe extern "C" fn(Ref));

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the context is owned here; its modules are disposed first
        // (a `Module` is dropped before its `Context`).
        unsafe { (self.1)(self.0) }
    }
}

/// An owned `LLVMModuleRef`.
pub(crate) struct Module(pub(crate) Ref, pub(crate) unsafe extern "C" fn(Ref));

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: the module is owned here and disposed once.
        unsafe { (self.1)(self.0) }
    }
}
