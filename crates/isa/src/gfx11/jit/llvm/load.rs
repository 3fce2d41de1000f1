//! Loading a compiled block library with the C library's dynamic loader
//! (`dlopen`, POSIX.1-2008): [`Library`] owns the handle and unloads it
//! when the last translation that points into it drops.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;

use super::LlvmError;

// The dynamic loader's interface (glibc exports it from libc.so.6 since 2.34;
// older ones link libdl, which Rust's std already pulls in on Linux).
unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlclose(handle: *mut c_void) -> c_int;
    fn dlerror() -> *mut c_char;
}

/// Resolve every symbol at load time (a missing one fails `dlopen`, not a call).
const RTLD_NOW: c_int = 2;

/// A loaded shared object.
#[derive(Debug)]
pub(crate) struct Library {
    handle: *mut c_void,
}

// SAFETY: a dlopen handle may be used and closed from any thread (POSIX
// dlopen/dlsym/dlclose are thread-safe).
unsafe impl Send for Library {}
// SAFETY: as above; `&Library` only looks symbols up.
unsafe impl Sync for Library {}

/// The loader's last error message.
fn last_error() -> String {
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

impl Library {
    /// Load the shared object at `path` (local symbols, resolved now).
    pub(crate) fn open(path: &Path) -> Result<Library, LlvmError> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| LlvmError::Load(format!("{}: a NUL in the path", path.display())))?;
        // SAFETY: `c` is a NUL-terminated path; the library has no
        // initialisers beyond the C runtime's (clang emits only functions).
        let handle = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
        if handle.is_null() {
            return Err(LlvmError::Load(last_error()));
        }
        Ok(Library { handle })
    }

    /// The address of function `name`.
    pub(crate) fn symbol(&self, name: &str) -> Result<*const c_void, LlvmError> {
        let c = CString::new(name).map_err(|_| LlvmError::Symbol(name.to_owned()))?;
        // SAFETY: the handle is open (closed only on drop); `c` is NUL-terminated.
        let p = unsafe { dlsym(self.handle, c.as_ptr()) };
        if p.is_null() {
            return Err(LlvmError::Symbol(name.to_owned()));
        }
        Ok(p.cast_const())
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: every function pointer into the library is held next to an
        // `Arc` of the translation that owns this library (jit/tier.rs), so
        // the last one is gone and no code of it runs or will run.
        unsafe { dlclose(self.handle) };
    }
}
