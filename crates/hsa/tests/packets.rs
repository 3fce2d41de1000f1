//! AQL packet builders produce exactly the bytes hsa.h defines.

use aqueduct_hsa::queue::packet::{self, AqlPacket, KernelDispatch, PacketFence};
use aqueduct_hsa::{HsaError, PacketError};
use aqueduct_kfd::abi::{FenceScope, packet_type};

#[test]
fn dispatch_packet_bytes() {
    let mut d = KernelDispatch::new(
        0x7f00_1234_5640,
        0x7f00_0000_1010,
        [1000, 1, 1],
        [256, 1, 1],
    );
    d.group_segment_size = 0x400;
    d.private_segment_size = 0x10;
    d.completion_signal = 0x1122_3344_5566_7780;
    let p = d.to_packet().unwrap();
    let bytes: [u8; 64] = bytemuck::cast(p.to_raw());
    #[rustfmt::skip]
    let expected: [u8; 64] = [
        0x02, 0x15,             // header: KERNEL_DISPATCH | barrier | acq SYSTEM | rel SYSTEM = 0x1502
        0x01, 0x00,             // setup: 1 dimension
        0x00, 0x01, 0x01, 0x00, 0x01, 0x00, // workgroup 256 x 1 x 1
        0x00, 0x00,             // reserved0
        0xe8, 0x03, 0x00, 0x00, // grid_x 1000
        0x01, 0x00, 0x00, 0x00, // grid_y 1
        0x01, 0x00, 0x00, 0x00, // grid_z 1
        0x10, 0x00, 0x00, 0x00, // private_segment_size
        0x00, 0x04, 0x00, 0x00, // group_segment_size
        0x40, 0x56, 0x34, 0x12, 0x00, 0x7f, 0x00, 0x00, // kernel_object
        0x10, 0x10, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00, // kernarg_address
        0, 0, 0, 0, 0, 0, 0, 0, // reserved2
        0x80, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, // completion_signal
    ];
    assert_eq!(bytes, expected);
    assert_eq!(packet::header_word(&p.to_raw()), 0x0001_1502);
}

#[test]
fn dispatch_dimensions_from_sizes() {
    let d2 = KernelDispatch::new(0x1000, 0, [64, 8, 1], [8, 8, 1])
        .to_packet()
        .unwrap();
    assert_eq!(d2.setup, 2);
    let d3 = KernelDispatch::new(0x1000, 0, [4, 4, 4], [4, 4, 4])
        .to_packet()
        .unwrap();
    assert_eq!(d3.setup, 3);
}

#[test]
fn dispatch_validation() {
    let ok = KernelDispatch::new(0x1000, 0x2000, [64, 1, 1], [64, 1, 1]);
    let cases = [
        (
            KernelDispatch {
                kernel_object: 0,
                ..ok
            },
            PacketError::KernelObject { address: 0 },
        ),
        (
            KernelDispatch {
                kernel_object: 0x1010,
                ..ok
            },
            PacketError::KernelObject { address: 0x1010 },
        ),
        (
            KernelDispatch {
                kernarg_address: 0x2008,
                ..ok
            },
            PacketError::KernargAddress { address: 0x2008 },
        ),
        (
            KernelDispatch {
                grid_size: [0, 1, 1],
                ..ok
            },
            PacketError::ZeroSize {
                grid: 0,
                workgroup: 64,
                dimension: 0,
            },
        ),
        (
            KernelDispatch {
                workgroup_size: [1024, 2, 1],
                dimensions: 2,
                ..ok
            },
            PacketError::WorkgroupTooLarge {
                items: 2048,
                limit: 1024,
            },
        ),
        (
            KernelDispatch {
                dimensions: 4,
                ..ok
            },
            PacketError::Dimensions { dimensions: 4 },
        ),
        (
            // 1-D with y > 1
            KernelDispatch {
                grid_size: [64, 2, 1],
                ..ok
            },
            PacketError::UnusedDimension {
                dimensions: 1,
                dimension: 1,
            },
        ),
    ];
    for (c, expected) in cases {
        match c.to_packet() {
            Err(HsaError::Packet(e)) => assert_eq!(e, expected, "{c:?}"),
            other => panic!("{c:?} should be rejected, got {other:?}"),
        }
    }
}

#[test]
fn barrier_and_or_bytes() {
    let fence = PacketFence {
        barrier: true,
        acquire: FenceScope::Agent,
        release: FenceScope::System,
    };
    let and = packet::barrier_and(&[0x1000, 0x2040], 0xabc0, fence).unwrap();
    let bytes: [u8; 64] = bytemuck::cast(and.to_raw());
    let mut expected = [0u8; 64];
    // 3 | 1<<8 | 1<<9 | 2<<11 = 0x1303
    expected[0] = 0x03;
    expected[1] = 0x13;
    expected[8..16].copy_from_slice(&0x1000u64.to_le_bytes());
    expected[16..24].copy_from_slice(&0x2040u64.to_le_bytes());
    expected[56..64].copy_from_slice(&0xabc0u64.to_le_bytes());
    assert_eq!(bytes, expected);

    let or = packet::barrier_or(&[1, 2, 3, 4, 5], 0, PacketFence::AGENT_UNORDERED).unwrap();
    let bytes: [u8; 64] = bytemuck::cast(or.to_raw());
    assert_eq!(&bytes[0..8], &[0x05, 0x0a, 0, 0, 0, 0, 0, 0]); // 5 | 1<<9 | 1<<11
    for i in 0..5 {
        assert_eq!(
            u64::from_le_bytes(bytes[8 + i * 8..16 + i * 8].try_into().unwrap()),
            i as u64 + 1
        );
    }
    assert_eq!(&bytes[48..64], &[0u8; 16]);

    assert!(matches!(
        packet::barrier_and(&[1; 6], 0, fence),
        Err(HsaError::Packet(PacketError::BarrierDependencies {
            count: 6,
            limit: 5
        }))
    ));
    assert!(matches!(
        packet::barrier_or(&[1; 6], 0, fence),
        Err(HsaError::Packet(PacketError::BarrierDependencies {
            count: 6,
            limit: 5
        }))
    ));
    assert_eq!(
        packet::nop(PacketFence::SYSTEM_ORDERED).header,
        packet_type::BARRIER_AND | 0x1500
    );
}
