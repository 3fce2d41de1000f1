//! Which XCC (accelerator complex die) of a multi-XCC agent runs each
//! workgroup of a dispatch, and so what `s_getreg_b32 hwreg(HW_REG_XCC_ID)`
//! reads in its waves.
//!
//! On GC 9.4.3 (gfx942) KFD gives an AQL queue one MQD per XCC of its
//! partition, and the command processor of every one of those XCCs walks
//! the same packets, each taking its share of a dispatch's workgroups.
//! Linux `kfd_mqd_manager_v9.c`, `init_mqd_v9_4_3`: every XCC's MQD gets
//! `compute_tg_chunk_size = 1` and `compute_current_logic_xcc_id =
//! (start + xcc) % num_xcc`, where `start` is the device queue manager's
//! `current_logical_xcc_start`, taken and incremented once per queue. The
//! workgroups, in dispatch order (x fastest, then y, then z), go in chunks
//! of `compute_tg_chunk_size` round-robin over the logical XCC ids: chunk
//! `c` runs on the XCC whose logical id is `c % num_xcc` (AMD's MI300X
//! workload-tuning guide describes the same round-robin over XCDs). The
//! XCC of logical id `l` is XCC `(l - start) mod num_xcc` of the partition.
//!
//! The computation happens once per workgroup, before its waves start; a
//! single-XCC agent (gfx1100, gfx90a) always gets XCC 0 with no arithmetic.

/// How a queue's command processors share a dispatch's workgroups among the
/// XCCs of its agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XccSpread {
    /// XCCs of the agent's partition (1: no spreading).
    xccs: u32,
    /// Workgroups per chunk (the MQD's `compute_tg_chunk_size`, at least 1).
    chunk: u32,
    /// The logical XCC id of the partition's first XCC (the queue's
    /// `current_logical_xcc_start`, reduced modulo `xccs`).
    start: u32,
}

impl Default for XccSpread {
    fn default() -> Self {
        XccSpread::ONE
    }
}

impl XccSpread {
    /// A single-XCC agent: every workgroup runs on XCC 0.
    pub const ONE: XccSpread = XccSpread {
        xccs: 1,
        chunk: 1,
        start: 0,
    };

    /// The spread of an AQL queue whose MQDs KFD initialised with chunks of
    /// `chunk` workgroups and logical ids starting at `start` (taken modulo
    /// `xccs`) over `xccs` XCCs. Zero XCCs or a zero chunk count as one.
    pub fn new(xccs: u32, chunk: u32, start: u32) -> XccSpread {
        let xccs = xccs.max(1);
        XccSpread {
            xccs,
            chunk: chunk.max(1),
            start: start % xccs,
        }
    }

    /// XCCs the workgroups spread over.
    pub fn xccs(&self) -> u32 {
        self.xccs
    }

    /// The XCC (0-based within the partition) that runs the workgroup with
    /// linear index `index` in dispatch order.
    #[inline]
    pub fn xcc_of(&self, index: u64) -> u32 {
        if self.xccs == 1 {
            return 0;
        }
        let n = u64::from(self.xccs);
        let logical = (index / u64::from(self.chunk)) % n;
        ((logical + n - u64::from(self.start)) % n) as u32
    }

    /// [`XccSpread::xcc_of`] for workgroup `id` of a grid of `counts`
    /// workgroups per dimension.
    #[inline]
    pub fn xcc_of_workgroup(&self, id: [u32; 3], counts: [u32; 3]) -> u32 {
        if self.xccs == 1 {
            return 0;
        }
        let [x, y, z] = id.map(u64::from);
        let [cx, cy, _] = counts.map(u64::from);
        self.xcc_of(x + cx * (y + cy * z))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_xcc_is_always_zero() {
        for i in [0u64, 1, 7, 1 << 40] {
            assert_eq!(XccSpread::ONE.xcc_of(i), 0);
        }
        assert_eq!(XccSpread::new(0, 0, 5), XccSpread::ONE);
    }

    #[test]
    fn chunks_rotate_from_the_queue_start() {
        // start 0: workgroup i on XCC i % 8.
        let s = XccSpread::new(8, 1, 0);
        let got: Vec<u32> = (0..10).map(|i| s.xcc_of(i)).collect();
        assert_eq!(got, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
        // start 3: XCC 0 has logical id 3, so workgroup 3 runs there and
        // workgroup 0 (logical 0) on XCC 5.
        let s = XccSpread::new(8, 1, 11);
        let got: Vec<u32> = (0..9).map(|i| s.xcc_of(i)).collect();
        assert_eq!(got, [5, 6, 7, 0, 1, 2, 3, 4, 5]);
        // Chunks of 2 workgroups.
        let s = XccSpread::new(4, 2, 1);
        let got: Vec<u32> = (0..10).map(|i| s.xcc_of(i)).collect();
        assert_eq!(got, [3, 3, 0, 0, 1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn workgroup_ids_count_x_fastest() {
        let s = XccSpread::new(8, 1, 0);
        let counts = [3, 5, 2];
        assert_eq!(s.xcc_of_workgroup([2, 0, 0], counts), 2);
        assert_eq!(s.xcc_of_workgroup([0, 1, 0], counts), 3);
        // 1 + 3 * (4 + 5 * 1) = 28.
        assert_eq!(s.xcc_of_workgroup([1, 4, 1], counts), 28 % 8);
    }
}
