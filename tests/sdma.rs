//! Copies and fills on the SDMA engine: copy_buffer_to_buffer,
//! clear_buffer, write_buffer's staging copies and readbacks of at least
//! `SDMA_MIN_BYTES` go to the device's SDMA queue, ordered against
//! dispatches by signals (a copy waits for the dispatch that produced its
//! source, a dispatch for the copy or fill that produced its input), and
//! give the same bytes as the blit kernels `AQUEDUCT_ENABLE_SDMA=0` falls
//! back to. One test: it sets the environment variable between its two
//! devices, so no other test of this binary may read it meanwhile.

use aqueduct::*;
use aqueduct_test_harness::facade::*;

const DISPATCH: u16 = 2;
const BARRIER_AND: u16 = 3;
/// Words per buffer: 256 KiB, well above the SDMA threshold.
const WORDS: u32 = 64 * 1024;

struct Outcome {
    /// (role, packet type) of the copy command buffer's packets.
    copy_packets: Vec<(PacketRole, u16)>,
    /// write_buffer → dispatch → copy → dispatch, read back.
    chained: Vec<u32>,
    /// write_buffer, clear of its middle → dispatch, read back.
    cleared: Vec<u32>,
}

fn run(c: &Ctx) -> Outcome {
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "vector_copy");
    let bytes = u64::from(WORDS) * 4;
    let words: Vec<u32> = (0..WORDS)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x5a5a)
        .collect();
    let src = storage(&c.device, bytes);
    let mid = storage(&c.device, bytes);
    let dst = storage(&c.device, bytes);
    let out = storage(&c.device, bytes);
    let filled = storage(&c.device, bytes);
    let out2 = storage(&c.device, bytes);
    c.queue.write_buffer(&src, 0, bytemuck::cast_slice(&words));
    c.queue
        .write_buffer(&filled, 0, bytemuck::cast_slice(&words));
    let dispatch = |enc: &mut CommandEncoder, from: &Buffer, to: &Buffer| {
        let bg = bind_group(&c.device, &p, 0, &[from, to]);
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_immediates(0, &WORDS.to_le_bytes());
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(WORDS / 64, 1, 1);
    };
    let mut enc = c.device.create_command_encoder(&Default::default());
    dispatch(&mut enc, &src, &mid);
    enc.copy_buffer_to_buffer(&mid, 0, &dst, 0, bytes);
    dispatch(&mut enc, &dst, &out);
    enc.clear_buffer(&filled, 4096, Some(bytes - 8192));
    dispatch(&mut enc, &filled, &out2);
    let cb = enc.finish();
    let copy_packets = cb
        .debug_packets()
        .iter()
        .filter(|p| matches!(p.role, PacketRole::Copy | PacketRole::Clear))
        .map(|p| (p.role, p.packet_type))
        .collect();
    c.queue.submit([cb]);
    let chained = read_words(c, &out);
    assert_eq!(chained, words, "write_buffer → dispatch → copy → dispatch");
    Outcome {
        copy_packets,
        chained,
        cleared: read_words(c, &out2),
    }
}

#[test]
fn sdma_and_blit_kernels_give_the_same_bytes() {
    let with_sdma = run(&ctx());
    assert_eq!(
        with_sdma.copy_packets,
        [
            (PacketRole::Copy, BARRIER_AND),
            (PacketRole::Copy, BARRIER_AND),
            (PacketRole::Clear, BARRIER_AND),
            (PacketRole::Clear, BARRIER_AND),
        ],
        "the copy and the clear are SDMA gate and wait packets"
    );
    let cleared = &with_sdma.cleared;
    let n = WORDS as usize;
    assert!(
        cleared[1024..n - 1024].iter().all(|&w| w == 0),
        "cleared middle"
    );
    assert_ne!(cleared[..1024], [0; 1024], "the clear starts at its offset");
    assert_ne!(
        cleared[n - 1024..],
        [0; 1024],
        "the clear stops at its size"
    );

    // SAFETY: this binary's only test; no other thread reads the environment now.
    unsafe { std::env::set_var("AQUEDUCT_ENABLE_SDMA", "0") };
    let with_blits = run(&ctx());
    assert!(
        with_blits
            .copy_packets
            .iter()
            .all(|&(_, kind)| kind == DISPATCH),
        "AQUEDUCT_ENABLE_SDMA=0: blit kernels ({:?})",
        with_blits.copy_packets
    );
    assert_eq!(with_blits.chained, with_sdma.chained);
    assert_eq!(with_blits.cleared, with_sdma.cleared);
}
