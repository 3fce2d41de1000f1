//! Host objects linked into this process with ORC's LLJIT (llvm-c/LLJIT.h,
//! llvm-c/Orc.h): an object compiled for this CPU (object.rs) is added to a
//! JITDylib of its own, so objects may define the same names, and its
//! functions are found by name. Dropping the [`LinkedObject`] frees its
//! code. External symbols an object needs (`memcpy`, say) resolve against
//! the process, as the dynamic loader would resolve them for a shared
//! object.
//!
//! One LLJIT per loaded library, made at the first use. Without concurrent
//! compile threads it links on the calling thread; the session itself is
//! thread-safe (llvm/ExecutionEngine/Orc/Core.h), so any thread may link.

use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::error::{LlvmError, Stage};
use crate::library::{Llvm, Ref, guard_exit, in_use, resolve, take_message};
use crate::object::ObjectTarget;

// llvm-c/Orc.h enums.
const LOOKUP_KIND_STATIC: c_int = 0;
const JITDYLIB_MATCH_ALL_SYMBOLS: c_int = 1;
const SYMBOL_REQUIRED: c_int = 0;

/// `LLVMOrcCJITDylibSearchOrderElement`.
#[repr(C)]
struct SearchOrderElement {
    jd: Ref,
    flags: c_int,
}

/// `LLVMOrcCLookupSetElement`.
#[repr(C)]
struct LookupSetElement {
    name: Ref,
    flags: c_int,
}

/// `LLVMOrcCSymbolMapPair`: a name and its `LLVMJITEvaluatedSymbol`.
#[repr(C)]
struct SymbolMapPair {
    name: Ref,
    address: u64,
    generic_flags: u8,
    target_flags: u8,
}

type ErrorReporter = unsafe extern "C" fn(*mut c_void, Ref);

thread_local! {
    /// What the session reported on this thread since the last lookup: why
    /// materialising failed (a missing symbol, say), which the lookup's own
    /// error does not say.
    static REPORTED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The session's error reporter: keeps the message for the lookup that
/// runs on this thread (the JIT links on the calling thread).
///
/// # Safety
/// `ctx` is the `MessageFns` leaked for the session's life in `HostJit::new`.
unsafe extern "C" fn report_error(ctx: *mut c_void, error: Ref) {
    // SAFETY: see above; the functions are the library's.
    let fns = unsafe { &*ctx.cast::<MessageFns>() };
    // SAFETY: the reporter owns the error; LLVMGetErrorMessage consumes it.
    let text = take_message(unsafe { (fns.0)(error) }, fns.1, "");
    REPORTED.with(|r| r.borrow_mut().push(text));
}

type LookupHandler = unsafe extern "C" fn(Ref, *const SymbolMapPair, usize, *mut c_void);

/// The ORC functions used, resolved at the first use.
struct JitApi {
    create_lljit: unsafe extern "C" fn(*mut Ref, Ref) -> Ref,
    execution_session: unsafe extern "C" fn(Ref) -> Ref,
    global_prefix: unsafe extern "C" fn(Ref) -> c_char,
    triple_string: unsafe extern "C" fn(Ref) -> *const c_char,
    create_bare_jitdylib: unsafe extern "C" fn(Ref, *const c_char) -> Ref,
    process_symbols_generator:
        unsafe extern "C" fn(*mut Ref, c_char, Option<unsafe extern "C" fn()>, *mut c_void) -> Ref,
    add_generator: unsafe extern "C" fn(Ref, Ref),
    add_object_file: unsafe extern "C" fn(Ref, Ref, Ref) -> Ref,
    clear_jitdylib: unsafe extern "C" fn(Ref) -> Ref,
    mangle_and_intern: unsafe extern "C" fn(Ref, *const c_char) -> Ref,
    lookup: unsafe extern "C" fn(
        Ref,
        c_int,
        *mut SearchOrderElement,
        usize,
        *mut LookupSetElement,
        usize,
        LookupHandler,
        *mut c_void,
    ),
    set_error_reporter: unsafe extern "C" fn(Ref, ErrorReporter, *mut c_void),
    host_cpu_name: unsafe extern "C" fn() -> *mut c_char,
    host_cpu_features: unsafe extern "C" fn() -> *mut c_char,
    default_triple: unsafe extern "C" fn() -> *mut c_char,
}

/// The process's JIT for one loaded library.
pub(crate) struct HostJit {
    api: JitApi,
    jit: Ref,
    session: Ref,
    prefix: c_char,
    /// What objects for this host are compiled for.
    target: ObjectTarget,
}

/// An object linked into this process; its code stays mapped while this
/// lives.
pub struct LinkedObject {
    llvm: Arc<Llvm>,
    jd: Ref,
}

// SAFETY: the JITDylib is only cleared, once, on drop; ORC's session locks
// its own state.
unsafe impl Send for LinkedObject {}
// SAFETY: `&LinkedObject` gives no access to the JITDylib.
unsafe impl Sync for LinkedObject {}

impl std::fmt::Debug for LinkedObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkedObject").finish_non_exhaustive()
    }
}

impl Drop for LinkedObject {
    fn drop(&mut self) {
        if let Some(Ok(host)) = self.llvm.host_jit.get() {
            let _in_use = in_use();
            self.llvm.clear(host, self.jd);
        }
    }
}

/// A consumed `LLVMErrorRef` as a typed error at `stage`.
fn error_at(llvm: &Llvm, stage: Stage, error: Ref) -> LlvmError {
    // SAFETY: LLVMGetErrorMessage consumes the (non-null) error.
    let msg = unsafe { (llvm.api.get_error_message)(error) };
    LlvmError::Failed {
        stage,
        message: take_message(msg, llvm.api.dispose_error_message, "unknown error"),
    }
}

/// Where a lookup's handler leaves its outcome: the addresses by the name
/// entries asked for, or LLVM's message.
type Outcome = (Mutex<Option<Result<Vec<(usize, u64)>, String>>>, Condvar);

/// The handler of `LLVMOrcExecutionSessionLookup`.
///
/// # Safety
/// `ctx` is an `Arc<(Outcome, MessageFns)>` turned into a raw pointer for
/// this call, its functions those of the library that runs the lookup.
unsafe extern "C" fn lookup_done(
    error: Ref,
    pairs: *const SymbolMapPair,
    count: usize,
    ctx: *mut c_void,
) {
    // SAFETY: `ctx` is the Arc handed to the lookup (see `lookup`), reclaimed
    // once here.
    let ctx = unsafe { Arc::from_raw(ctx.cast::<(Outcome, MessageFns)>()) };
    let ((slot, ready), fns) = (&ctx.0, &ctx.1);
    let outcome = if error.is_null() {
        // SAFETY: on success LLVM passes `count` pairs at `pairs`, valid for
        // this call.
        let pairs = unsafe { std::slice::from_raw_parts(pairs, count) };
        Ok(pairs.iter().map(|p| (p.name as usize, p.address)).collect())
    } else {
        // SAFETY: the handler owns the error; LLVMGetErrorMessage consumes it.
        let msg = unsafe { (fns.0)(error) };
        Err(take_message(msg, fns.1, "the lookup failed"))
    };
    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
    ready.notify_all();
}

/// LLVMGetErrorMessage and LLVMDisposeErrorMessage, for the handler.
type MessageFns = (
    unsafe extern "C" fn(Ref) -> *mut c_char,
    unsafe extern "C" fn(*mut c_char),
);

impl HostJit {
    fn new(llvm: &Llvm) -> Result<HostJit, LlvmError> {
        macro_rules! r {
            ($name:literal) => {
                // SAFETY: the field's type spells the C signature of LLVM-C's
                // function of that name (llvm-c/LLJIT.h, Orc.h, TargetMachine.h).
                unsafe { resolve(llvm, $name)? }
            };
        }
        let api = JitApi {
            create_lljit: r!("LLVMOrcCreateLLJIT"),
            execution_session: r!("LLVMOrcLLJITGetExecutionSession"),
            global_prefix: r!("LLVMOrcLLJITGetGlobalPrefix"),
            triple_string: r!("LLVMOrcLLJITGetTripleString"),
            create_bare_jitdylib: r!("LLVMOrcExecutionSessionCreateBareJITDylib"),
            process_symbols_generator: r!("LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess"),
            add_generator: r!("LLVMOrcJITDylibAddGenerator"),
            add_object_file: r!("LLVMOrcLLJITAddObjectFile"),
            clear_jitdylib: r!("LLVMOrcJITDylibClear"),
            mangle_and_intern: r!("LLVMOrcLLJITMangleAndIntern"),
            lookup: r!("LLVMOrcExecutionSessionLookup"),
            set_error_reporter: r!("LLVMOrcExecutionSessionSetErrorReporter"),
            host_cpu_name: r!("LLVMGetHostCPUName"),
            host_cpu_features: r!("LLVMGetHostCPUFeatures"),
            default_triple: r!("LLVMGetDefaultTargetTriple"),
        };
        let owned = |p: *mut c_char| take_message(p, llvm.api.dispose_message, "");
        // SAFETY: these return strings LLVM allocated, freed by take_message.
        let default_triple = owned(unsafe { (api.default_triple)() });
        // The JIT's target machine builder looks the host target up.
        llvm.initialise_target(&default_triple)?;
        let mut jit = std::ptr::null_mut();
        // SAFETY: a null builder asks for the defaults (the host, in this
        // process); the out-pointer is valid.
        let error = unsafe { (api.create_lljit)(&mut jit, std::ptr::null_mut()) };
        if !error.is_null() {
            return Err(error_at(llvm, Stage::Jit, error));
        }
        // SAFETY: `jit` is live for the process's life (never disposed: the
        // library is never unloaded, and linked code may run until exit).
        let (session, prefix, triple) = unsafe {
            let triple = std::ffi::CStr::from_ptr((api.triple_string)(jit));
            (
                (api.execution_session)(jit),
                (api.global_prefix)(jit),
                triple.to_string_lossy().into_owned(),
            )
        };
        // SAFETY: as above.
        let (cpu, features) = unsafe {
            (
                owned((api.host_cpu_name)()),
                owned((api.host_cpu_features)()),
            )
        };
        llvm.initialise_target(&triple)?;
        let fns: &'static MessageFns = Box::leak(Box::new((
            llvm.api.get_error_message,
            llvm.api.dispose_error_message,
        )));
        // SAFETY: the session is live; the context lives for the process.
        unsafe {
            (api.set_error_reporter)(
                session,
                report_error,
                (fns as *const MessageFns).cast_mut().cast(),
            )
        };
        let target = ObjectTarget {
            triple,
            cpu,
            features,
            opt_level: 2,
        };
        Ok(HostJit {
            api,
            jit,
            session,
            prefix,
            target,
        })
    }
}

impl Llvm {
    fn host_jit(&self) -> Result<&HostJit, LlvmError> {
        self.host_jit
            .get_or_init(|| HostJit::new(self))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// What code for this host is compiled for, at `opt_level`: this CPU
    /// and every feature it has, as `-march=native` asks.
    pub fn host_target(&self, opt_level: u8) -> Result<ObjectTarget, LlvmError> {
        let _in_use = in_use();
        let mut target = self.host_jit()?.target.clone();
        target.opt_level = opt_level;
        Ok(target)
    }

    /// Link `object` (compiled for [`Llvm::host_target`]) into this process
    /// and find its functions `names`: their addresses, in `names`' order.
    pub fn link_host_object(
        self: &Arc<Self>,
        object: &[u8],
        names: &[&str],
    ) -> Result<(LinkedObject, Vec<usize>), LlvmError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        static LINKED: std::sync::Once = std::sync::Once::new();
        let _in_use = in_use();
        let host = self.host_jit()?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dylib = CString::new(format!("aqueduct-object-{n}")).expect("no NUL");
        // SAFETY: the session is live; the name is copied.
        let jd = unsafe { (host.api.create_bare_jitdylib)(host.session, dylib.as_ptr()) };
        match self.add_and_find(host, jd, &dylib, object, names) {
            Ok(addresses) => {
                guard_exit(&LINKED);
                let linked = LinkedObject {
                    llvm: self.clone(),
                    jd,
                };
                Ok((linked, addresses))
            }
            Err(e) => {
                self.clear(host, jd);
                Err(e)
            }
        }
    }

    /// Add `object` to the empty `jd` and find `names` in it.
    fn add_and_find(
        &self,
        host: &HostJit,
        jd: Ref,
        dylib: &CString,
        object: &[u8],
        names: &[&str],
    ) -> Result<Vec<usize>, LlvmError> {
        let api = &host.api;
        let mut generator = std::ptr::null_mut();
        // SAFETY: the out-pointer is valid; no filter.
        let error = unsafe {
            (api.process_symbols_generator)(&mut generator, host.prefix, None, std::ptr::null_mut())
        };
        if !error.is_null() {
            return Err(error_at(self, Stage::Jit, error));
        }
        // SAFETY: the JITDylib takes ownership of the generator.
        unsafe { (api.add_generator)(jd, generator) };
        // SAFETY: the range is `object`'s bytes, copied; the name is
        // NUL-terminated. LLVMOrcLLJITAddObjectFile takes the buffer.
        let error = unsafe {
            let buffer = (self.api.buffer_from_range_copy)(
                object.as_ptr().cast(),
                object.len(),
                dylib.as_ptr(),
            );
            (api.add_object_file)(host.jit, jd, buffer)
        };
        if !error.is_null() {
            return Err(error_at(self, Stage::Link, error));
        }
        self.lookup(host, jd, names)
    }

    /// Free what `jd` holds (its code and symbols); the caller holds
    /// [`in_use`].
    fn clear(&self, host: &HostJit, jd: Ref) {
        // SAFETY: nothing of `jd` runs: a failed link handed out no address,
        // and whoever holds an address of a linked object holds the object.
        let error = unsafe { (host.api.clear_jitdylib)(jd) };
        if !error.is_null() {
            let e = error_at(self, Stage::Link, error);
            tracing::warn!("freeing a linked object: {e}");
        }
    }

    /// The addresses of `names` in `jd`, linking it if not yet linked.
    fn lookup(&self, host: &HostJit, jd: Ref, names: &[&str]) -> Result<Vec<usize>, LlvmError> {
        let api = &host.api;
        let mut set = Vec::with_capacity(names.len());
        for name in names {
            let c = CString::new(*name).map_err(|_| LlvmError::Failed {
                stage: Stage::Lookup,
                message: format!("a NUL in {name:?}"),
            })?;
            // SAFETY: the JIT is live; the entry comes back retained, and the
            // lookup takes that reference over.
            let entry = unsafe { (api.mangle_and_intern)(host.jit, c.as_ptr()) };
            set.push(LookupSetElement {
                name: entry,
                flags: SYMBOL_REQUIRED,
            });
        }
        let wanted: Vec<usize> = set.iter().map(|e| e.name as usize).collect();
        let mut order = [SearchOrderElement {
            jd,
            flags: JITDYLIB_MATCH_ALL_SYMBOLS,
        }];
        let ctx: Arc<(Outcome, MessageFns)> = Arc::new((
            Default::default(),
            (self.api.get_error_message, self.api.dispose_error_message),
        ));
        let raw = Arc::into_raw(ctx.clone());
        // SAFETY: the session, JITDylib and entries are live; the arrays are
        // read during the call; the handler reclaims `raw` exactly once.
        unsafe {
            (api.lookup)(
                host.session,
                LOOKUP_KIND_STATIC,
                order.as_mut_ptr(),
                order.len(),
                set.as_mut_ptr(),
                set.len(),
                lookup_done,
                raw.cast_mut().cast(),
            )
        };
        let (slot, ready) = &ctx.0;
        let mut done = slot.lock().unwrap_or_else(|p| p.into_inner());
        while done.is_none() {
            done = ready.wait(done).unwrap_or_else(|p| p.into_inner());
        }
        let reported = REPORTED.with(|r| std::mem::take(&mut *r.borrow_mut()));
        let found = done
            .take()
            .expect("the loop waits for it")
            .map_err(|message| {
                let mut message = message;
                for why in reported {
                    message.push_str(": ");
                    message.push_str(&why);
                }
                LlvmError::Failed {
                    stage: Stage::Lookup,
                    message,
                }
            })?;
        wanted
            .iter()
            .zip(names)
            .map(|(entry, name)| {
                found
                    .iter()
                    .find(|(n, _)| n == entry)
                    .map(|&(_, address)| address as usize)
                    .filter(|&a| a != 0)
                    .ok_or_else(|| LlvmError::Failed {
                        stage: Stage::Lookup,
                        message: format!("no function {name} in the object"),
                    })
            })
            .collect()
    }
}
