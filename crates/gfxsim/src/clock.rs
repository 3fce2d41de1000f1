//! GET_CLOCK_COUNTERS: the clocks KFD samples together so the runtime can
//! translate GPU timestamps into host time (Linux `kfd_chardev.c`,
//! `kfd_ioctl_get_clock_counters`).
//!
//! The GPU counter is the one the CP stamps `amd_signal_t.start_ts`/`end_ts`
//! with and `s_memrealtime`/`s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME` read
//! (on gfx11 the 100 MHz reference clock; `amdgpu_amdkfd_get_gpu_clock_counter`
//! returns it to KFD): gfxsim's realtime counter, `aqueduct_isa::realtime`.

use aqueduct_isa::realtime::realtime_ticks;
use aqueduct_kfd::uapi::GetClockCountersArgs;
use rustix::time::{ClockId, Timespec, clock_gettime};

/// Ticks per second KFD reports for `system_clock_counter`, which counts
/// nanoseconds: 1 GHz (`kfd_ioctl_get_clock_counters`).
pub const SYSTEM_CLOCK_FREQ: u64 = 1_000_000_000;

fn nanos(t: Timespec) -> u64 {
    (t.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(t.tv_nsec as u64)
}

/// Fill `args`'s outputs. `has_gpu`: whether the process has a device with
/// `args.gpu_id`; KFD answers a gpu_id it has no device for with a GPU
/// counter of 0 and success, not an error.
pub fn sample(args: &mut GetClockCountersArgs, has_gpu: bool) {
    args.gpu_clock_counter = if has_gpu { realtime_ticks() } else { 0 };
    // KFD reads `ktime_get_raw_ns()` and `ktime_get_boottime_ns()`.
    args.cpu_clock_counter = nanos(clock_gettime(ClockId::MonotonicRaw));
    args.system_clock_counter = nanos(clock_gettime(ClockId::Boottime));
    args.system_clock_freq = SYSTEM_CLOCK_FREQ;
}
