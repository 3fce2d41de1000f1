// Every storage atomic: add/sub/max/min/and/or/xor/exchange/compareExchangeWeak,
// atomicLoad/atomicStore; results checked after 64 invocations.
struct Counters {
    add: atomic<u32>, sub: atomic<u32>, umax: atomic<u32>, umin: atomic<u32>,
    and_: atomic<u32>, or_: atomic<u32>, xor_: atomic<u32>, xchg: atomic<u32>,
    smax: atomic<i32>, smin: atomic<i32>, cas: atomic<u32>, stored: atomic<u32>,
}
@group(0) @binding(0) var<storage, read_write> c: Counters;
@group(0) @binding(1) var<storage, read_write> old_adds: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    old_adds[i] = atomicAdd(&c.add, i + 1u);
    atomicSub(&c.sub, i);
    atomicMax(&c.umax, i * 7u);
    atomicMin(&c.umin, 1000u - i);
    atomicAnd(&c.and_, ~(1u << (i % 32u)) | 0x80000000u);
    atomicOr(&c.or_, 1u << (i % 32u));
    atomicXor(&c.xor_, i);
    atomicExchange(&c.xchg, 5u);
    atomicMax(&c.smax, i32(i) - 40);
    atomicMin(&c.smin, i32(i) - 40);
    // a CAS loop: every invocation increments by exactly 2
    loop {
        let old = atomicLoad(&c.cas);
        let r = atomicCompareExchangeWeak(&c.cas, old, old + 2u);
        if (r.exchanged) { break; }
    }
    if (i == 3u) { atomicStore(&c.stored, 0xabcdu); }
}
