//! The simulated GPU's REALTIME counter (what `s_sendmsg_rtn_b64
//! MSG_RTN_GET_REALTIME` returns). On RDNA3 it is a constant-rate 100 MHz
//! clock independent of the shader clock; gfxsim derives it from the host's
//! monotonic clock (one tick per 10 ns since the first read in this
//! process), so it never goes backwards and advances at 100 MHz of wall
//! time, shared by every wave, queue and device of the process.

use std::sync::OnceLock;
use std::time::Instant;

/// Ticks per second of [`realtime_ticks`] (100 MHz, as on gfx11 hardware).
pub const REALTIME_HZ: u64 = 100_000_000;

/// The current REALTIME counter value in ticks of 1 / [`REALTIME_HZ`] s.
pub fn realtime_ticks() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let nanos = EPOCH.get_or_init(Instant::now).elapsed().as_nanos();
    (nanos / (1_000_000_000 / REALTIME_HZ as u128)) as u64
}
