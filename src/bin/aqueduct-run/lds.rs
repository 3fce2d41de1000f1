//! The LDS (group segment) of one dispatch: the kernel's static LDS, then
//! one block per `__local` pointer argument (`--arg NAME=local:BYTES`), then
//! HIP's `extern __shared__` bytes (`--dynamic-lds BYTES`). The AQL packet's
//! `group_segment_size` is the total and `hidden_dynamic_lds_size` all but
//! the static part, as the OpenCL runtime lays them out (ROCclr
//! `rocvirtual.cpp`, `VirtualGPU::submitKernelInternal`: each local argument
//! at the running size aligned to its pointee alignment).

use crate::error::RunError;

/// Where the dispatch's LDS goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LdsPlan {
    /// The LDS offset each local argument receives, in the order asked.
    pub offsets: Vec<u32>,
    /// `group_segment_size` of the AQL packet.
    pub total: u32,
    /// Bytes beyond the kernel's static LDS (`hidden_dynamic_lds_size`).
    pub dynamic: u32,
}

/// One `__local` argument's request: its size and pointee alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalRequest {
    pub bytes: u64,
    pub align: u32,
}

/// Place `locals` after `static_bytes`, then `dynamic_lds` bytes; an LDS
/// larger than `limit` (the agent's LDS size) is refused.
pub fn plan(
    kernel: &str,
    static_bytes: u32,
    locals: &[LocalRequest],
    dynamic_lds: u64,
    limit: u64,
) -> Result<LdsPlan, RunError> {
    let mut end = u64::from(static_bytes);
    let mut offsets = Vec::with_capacity(locals.len());
    for local in locals {
        let start = end.next_multiple_of(u64::from(local.align.max(1)));
        offsets.push(start);
        end = start.saturating_add(local.bytes);
    }
    let end = end.saturating_add(dynamic_lds);
    if end > limit {
        return Err(RunError::LdsTooLarge {
            kernel: kernel.to_string(),
            static_bytes,
            total: end,
            limit,
        });
    }
    // Below the limit (at most 64 KiB on every AMD GPU) everything fits in u32.
    let to_u32 = |v: u64| u32::try_from(v).expect("LDS bytes below the agent limit");
    Ok(LdsPlan {
        offsets: offsets.into_iter().map(to_u32).collect(),
        total: to_u32(end),
        dynamic: to_u32(end - u64::from(static_bytes)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locals_follow_the_static_lds_at_their_alignment() {
        let locals = [
            LocalRequest { bytes: 6, align: 4 },
            LocalRequest {
                bytes: 32,
                align: 16,
            },
        ];
        let p = plan("k", 10, &locals, 100, 65536).unwrap();
        assert_eq!(p.offsets, vec![12, 32]);
        assert_eq!(p.total, 164);
        assert_eq!(p.dynamic, 154);
    }

    #[test]
    fn past_the_limit_is_a_typed_error() {
        let err = plan("k", 1024, &[], 65536, 65536).unwrap_err();
        assert!(
            matches!(
                err,
                RunError::LdsTooLarge {
                    static_bytes: 1024,
                    total: 66560,
                    limit: 65536,
                    ..
                }
            ),
            "{err:?}"
        );
        // Exactly the limit fits.
        assert_eq!(plan("k", 0, &[], 65536, 65536).unwrap().total, 65536);
    }
}
