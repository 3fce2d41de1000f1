//! The AQL ring protocol under contention: 4 producers x 10k packets into
//! a 256-slot ring drained by a simulated packet processor. No packet may
//! be lost or doubled, every producer's packets arrive in its order, and
//! back-pressure must never let a producer overwrite an unconsumed slot.

use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aqueduct_hsa::queue::packet::{self, AqlPacket, PacketFence};
use aqueduct_hsa::queue::ring::{AqlRing, INVALID_HEADER_WORD};
use aqueduct_kfd::abi::{RawPacket, packet_type};

const SLOTS: u32 = 256;
const PRODUCERS: u64 = 4;
const PER_PRODUCER: u64 = 10_000;

struct HostRing {
    _slots: Vec<RawPacket>,
    _ids: Box<[AtomicU64; 2]>,
    ring: AqlRing,
}

fn host_ring() -> HostRing {
    let mut slots = vec![RawPacket::default(); SLOTS as usize];
    let ids = Box::new([AtomicU64::new(0), AtomicU64::new(0)]);
    // SAFETY: slots and ids are heap memory owned by HostRing for the ring's whole life.
    let ring = unsafe {
        AqlRing::from_raw_parts(
            NonNull::new(slots.as_mut_ptr()).unwrap(),
            SLOTS,
            NonNull::new(ids[0].as_ptr()).unwrap(),
            NonNull::new(ids[1].as_ptr()).unwrap(),
        )
        .unwrap()
    };
    ring.reset();
    HostRing {
        _slots: slots,
        _ids: ids,
        ring,
    }
}

#[test]
fn producers_never_lose_double_or_overwrite() {
    let host = Arc::new(host_ring());
    let overwrites = Arc::new(AtomicU64::new(0));

    let consumer = {
        let host = host.clone();
        std::thread::spawn(move || {
            let ring = &host.ring;
            let total = PRODUCERS * PER_PRODUCER;
            let mut next_seq = vec![0u64; PRODUCERS as usize];
            let mut seen = 0u64;
            while seen < total {
                let read = ring.read_id().load(Ordering::Relaxed);
                let word = ring.header(read).load(Ordering::Acquire);
                if word & 0xff == INVALID_HEADER_WORD {
                    std::hint::spin_loop();
                    continue;
                }
                // SAFETY: the slot was published (header not INVALID) and only the consumer reads it now.
                let p: RawPacket = unsafe { ring.slot_ptr(read).read_volatile() };
                let (producer, seq) = (p.0[1], p.0[2]);
                assert_eq!(word & 0xff, packet_type::BARRIER_AND as u32);
                assert_eq!(
                    p.0[7], read,
                    "packet carries the dispatch id it was reserved at"
                );
                assert_eq!(
                    seq, next_seq[producer as usize],
                    "producer {producer}'s packets in order"
                );
                next_seq[producer as usize] += 1;
                ring.header(read)
                    .store(INVALID_HEADER_WORD, Ordering::Relaxed);
                ring.read_id().store(read + 1, Ordering::Release);
                seen += 1;
            }
            next_seq
        })
    };

    let producers: Vec<_> = (0..PRODUCERS)
        .map(|producer| {
            let host = host.clone();
            let overwrites = overwrites.clone();
            std::thread::spawn(move || {
                let ring = &host.ring;
                for seq in 0..PER_PRODUCER {
                    let index = ring.reserve(1, &|| None).unwrap();
                    if ring.header(index).load(Ordering::Acquire) & 0xff != INVALID_HEADER_WORD {
                        overwrites.fetch_add(1, Ordering::Relaxed);
                    }
                    // A barrier-AND whose "dependency" words carry (producer, seq); slot 7 the id.
                    let mut raw = packet::nop(PacketFence::SYSTEM_ORDERED).to_raw();
                    raw.0[1] = producer;
                    raw.0[2] = seq;
                    raw.0[7] = index;
                    ring.publish(index, &raw);
                }
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    let next_seq = consumer.join().unwrap();
    assert_eq!(next_seq, vec![PER_PRODUCER; PRODUCERS as usize]);
    assert_eq!(
        overwrites.load(Ordering::Relaxed),
        0,
        "a producer found its slot still unconsumed"
    );
    assert_eq!(
        host.ring.write_id().load(Ordering::Relaxed),
        PRODUCERS * PER_PRODUCER
    );
    assert_eq!(
        host.ring.read_id().load(Ordering::Relaxed),
        PRODUCERS * PER_PRODUCER
    );
}

#[test]
fn batch_reservation_and_limits() {
    let host = host_ring();
    let ring = &host.ring;
    assert!(ring.reserve(0, &|| None).is_err());
    assert!(ring.reserve(SLOTS + 1, &|| None).is_err());
    assert_eq!(ring.reserve(SLOTS, &|| None).unwrap(), 0);
    // Full: the next reservation must wait; the abort hook ends the wait.
    let err = ring
        .reserve(1, &|| Some(aqueduct_hsa::HsaError::Timeout))
        .unwrap_err();
    assert!(matches!(err, aqueduct_hsa::HsaError::Timeout));
    // publish writes the body first and the header word last, in place.
    let p = packet::barrier_and(&[7], 9, PacketFence::SYSTEM_ORDERED)
        .unwrap()
        .to_raw();
    ring.publish(3, &p);
    // SAFETY: slot 3 is in bounds and no one else touches this ring.
    assert_eq!(unsafe { ring.slot_ptr(3).read() }, p);
    assert_eq!(
        ring.header(3 + SLOTS as u64).load(Ordering::Relaxed),
        0x1503,
        "ids wrap modulo the size"
    );
    ring.reset();
    assert_eq!(ring.header(3).load(Ordering::Relaxed), INVALID_HEADER_WORD);
    assert_eq!(ring.write_id().load(Ordering::Relaxed), 0);
}
