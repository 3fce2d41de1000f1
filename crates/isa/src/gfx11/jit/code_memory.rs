//! The owner of a translation's machine code: the Cranelift JIT module
//! that compiled it. The memory is freed when the owner drops, and every
//! holder of a function pointer into it also holds the owner (through
//! `Arc<Translation>`), so no translated function can run by then.

use cranelift_jit::JITModule;

/// The executable memory of one translated block.
pub(crate) struct CodeMemory {
    module: Option<JITModule>,
}

impl CodeMemory {
    /// Own `module`'s memory (its functions are finalized).
    pub(crate) fn new(module: JITModule) -> CodeMemory {
        CodeMemory {
            module: Some(module),
        }
    }
}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the function pointers into this module are held only
            // next to an `Arc` of the translation that owns this memory
            // (jit/tier.rs), and a wave runs a translation through a worker
            // that holds that `Arc`: the last one is gone, so nothing runs
            // or will run code from this memory.
            unsafe { module.free_memory() };
        }
    }
}

// SAFETY: after construction the module is only dropped (no `&self` method
// reaches it), so sharing a `CodeMemory` between threads shares nothing
// the JIT module keeps in its non-`Sync` symbol table.
unsafe impl Sync for CodeMemory {}

impl std::fmt::Debug for CodeMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeMemory").finish_non_exhaustive()
    }
}
