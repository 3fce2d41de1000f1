//! The MI300X's XCCs: KFD gives each gfx942 compute queue the next logical
//! XCC id of the device (`init_mqd_v9_4_3`: `current_logical_xcc_start`,
//! from 0, one per queue) and chunks of one workgroup go round-robin over
//! the logical ids, so workgroup `g` (x fastest) of a queue created `q`-th
//! runs on XCC `(g - q) mod 8`. kernels/gfx942/xcc_id.co stores what each
//! workgroup reads from HW_REG_XCC_ID; the host computes the assignment.

use super::{SENTINEL, gpu_of};
use aqueduct_gfxsim::SimPart;
use aqueduct_test_harness::hsa_sim::{Arg, read_u32};
use aqueduct_test_support::repo;

const XCCS: u32 = 8;

/// The XCC the documented rule gives workgroup `g` of the queue created
/// `queue`-th on the device.
fn xcc_of(g: u32, queue: u32) -> u32 {
    (g % XCCS + XCCS - queue % XCCS) % XCCS
}

#[test]
fn workgroups_spread_over_the_xccs_from_each_queues_start() {
    let gpu = gpu_of(SimPart::Mi300x);
    assert_eq!(gpu.agent.cwsr_sizes.map(|c| c.num_xcc), Some(XCCS));
    let program = gpu
        .load_bytes(&repo::kernel("gfx942/xcc_id.co"), "xcc_id")
        .expect("gfx942/xcc_id.co");
    // Nine queues: the ninth wraps to the first's logical start.
    let queues: Vec<_> = (0..9).map(|_| gpu.queue(64)).collect();
    // (workgroups per dimension, workgroup size): 1D past one round, then
    // 3D, whose workgroups count x fastest.
    let shapes: [([u32; 3], [u16; 3]); 2] = [([21, 1, 1], [64, 1, 1]), ([3, 5, 2], [4, 2, 1])];
    for (q, queue) in queues.iter().enumerate() {
        let q = q as u32;
        for (groups, wg) in shapes {
            let total = groups.iter().product::<u32>() as usize;
            let out = gpu.filled_u32(total + 1, SENTINEL);
            let grid = [0, 1, 2].map(|d| groups[d] * u32::from(wg[d]));
            let launch = gpu.launch(
                &program.kernel,
                &[
                    Arg::Ptr(out.gpu_va()),
                    Arg::U32(groups[0]),
                    Arg::U32(groups[1]),
                ],
                grid,
                wg,
            );
            gpu.run_on(queue, &launch)
                .unwrap_or_else(|e| panic!("queue {q} {groups:?}: {e}"));
            let mut want: Vec<u32> = (0..total as u32).map(|g| xcc_of(g, q)).collect();
            want.push(SENTINEL);
            assert_eq!(read_u32(&out, total + 1), want, "queue {q} {groups:?}");
        }
    }
}
