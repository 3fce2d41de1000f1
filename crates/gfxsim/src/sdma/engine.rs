//! The engine of one SDMA queue: a host thread ("gfxsim-sdma-N") that does
//! what an SDMA 6.0 engine does for a user queue.
//!
//! It sleeps until its doorbell is written, then executes the packets
//! between the read pointer and the write pointer the doorbell carries
//! (both byte offsets that only grow; the ring is addressed modulo its
//! size, so a packet may wrap). After each packet it stores the new read
//! pointer (a u64 at the queue's read-pointer address), which is how the
//! runtime learns that ring space is free (ROCr `BlitSdma::WaitFreeSpace`
//! reads it). A packet the write pointer does not cover yet waits.
//!
//! Packets (`packet.rs`): NOP; COPY_LINEAR and CONSTANT_FILL run natively,
//! a host `memmove`/fill per mapping, through the GPU's page table with
//! the same range and permission checks shader accesses get; FENCE stores
//! a dword; ATOMIC adds 64 bits (how ROCr decrements a completion
//! signal, `BlitSdma::BuildAtomicDecrementCommand`); TRAP raises the
//! interrupt whose 28-bit context is an event id (Linux
//! `kfd_int_process_v11.c`: SDMA trap → `kfd_signal_event_interrupt(pasid,
//! context_id0 & 0xfffffff, 28)`); POLL_REGMEM re-reads a memory dword
//! until its compare holds (ROCr `BuildPollCommand` waits for a dependency
//! signal this way), sleeping between reads for the poll interval or
//! until an event fires; TIMESTAMP GET_GLOBAL stores the GPU's realtime
//! counter. FENCE and ATOMIC wake the command processors waiting on
//! signals, as a compute completion does.
//!
//! Any other opcode, a reserved field value, an unaligned address or a
//! write pointer that is not a dword offset within one ring of the read
//! pointer is a queue error (`EC_QUEUE_PACKET_UNSUPPORTED` or
//! `EC_QUEUE_PACKET_RESERVED`); an access the page table refuses is a VM
//! fault: the MEMORY events get the fault (Linux `kfd_events.c`
//! `kfd_signal_vm_fault_event`, which an SDMA UTCL2 fault reaches too) and
//! the queue error is `EC_QUEUE_WAVE_MEMORY_VIOLATION`. Either is reported
//! through the queue's context-save header when it was given one, the
//! compute queues' path (`fault.rs`), and halts the queue: it executes
//! nothing more until destroyed. Bytes a faulting copy moved before the
//! fault stay written, as on hardware.
//!
//! The engine accesses memory itself, not through a CU: in strict
//! coherence mode it sees and writes memory, not a GPU's L2 copies.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use aqueduct_isa::realtime::realtime_ticks;
use aqueduct_isa::{Access, GpuMemory, MemoryFault};
use aqueduct_kfd::uapi::exception_code;

use super::packet::{self, op};
use crate::events::Events;
use crate::fault::{QueueError, deliver_memory_fault, report_queue_error};
use crate::gpu::Gpu;
use crate::memory::vm::VmView;
use crate::queue::QueueShared;
use crate::queue::validation::QueueConfig;

/// How long the engine sleeps between reads of a POLL_REGMEM's dword when
/// no event wakes it (the packet's own interval is in engine clocks,
/// which gfxsim has no model of).
const POLL_INTERVAL: Duration = Duration::from_micros(200);

/// The longest packet the engine executes, in dwords.
const MAX_PACKET_DWORDS: usize = 8;

/// What executing one packet did.
enum Step {
    Done,
    /// A POLL_REGMEM whose compare does not hold yet.
    Polling,
}

pub struct SdmaEngine {
    queue: Arc<QueueShared>,
    gpu: Arc<Gpu>,
    events: Arc<Events>,
    /// Byte offset of the next packet.
    rptr: u64,
}

fn fault(fault: MemoryFault, what: &str) -> QueueError {
    QueueError {
        code: exception_code::EC_QUEUE_WAVE_MEMORY_VIOLATION,
        detail: format!(
            "SDMA engine fault {what}: {:?} at address {:#x}",
            fault.access, fault.address
        ),
        fault: Some(fault),
    }
}

fn reserved(detail: String) -> QueueError {
    QueueError::packet(exception_code::EC_QUEUE_PACKET_RESERVED, detail)
}

/// `addr` must be a multiple of `align` for `what`.
fn aligned(addr: u64, align: u64, what: &str) -> Result<(), QueueError> {
    if addr.is_multiple_of(align) {
        Ok(())
    } else {
        Err(reserved(format!(
            "{what} address {addr:#x} is not {align}-byte aligned"
        )))
    }
}

impl SdmaEngine {
    pub fn new(queue: Arc<QueueShared>, gpu: Arc<Gpu>, events: Arc<Events>) -> Self {
        let config = queue.config();
        let rptr = gpu
            .vm
            .view()
            .atomic_u64(config.read_pointer, Access::Read)
            .map(|r| r.load(Ordering::Acquire))
            .unwrap_or(0);
        Self {
            queue,
            gpu,
            events,
            rptr,
        }
    }

    /// The thread body: runs until the queue is destroyed.
    pub fn run(mut self) {
        let wake = self.queue.wake.clone();
        loop {
            let seen = wake.seen();
            if self.queue.stopping() {
                break;
            }
            let mut polling = false;
            let config = self.queue.config();
            if !self.queue.is_halted() && config.is_active() {
                match self.drain(&config) {
                    Ok(p) => polling = p,
                    Err(error) => self.halt(&config, error),
                }
            }
            wake.set_wants_events(polling);
            if polling {
                wake.wait_past_for(seen, POLL_INTERVAL);
            } else {
                wake.wait_past(seen);
            }
        }
        tracing::trace!("gfxsim: SDMA queue {} stopped", self.queue.id);
    }

    fn halt(&self, config: &QueueConfig, error: QueueError) {
        tracing::debug!(
            "gfxsim: SDMA queue {} error at byte {:#x}: {}",
            self.queue.id,
            self.rptr,
            error.detail
        );
        self.queue.set_exception(&error.detail);
        self.queue.halted.store(true, Ordering::Release);
        if config.ctx_save_restore != 0 {
            report_queue_error(
                &self.events,
                &self.gpu.vm,
                self.gpu.gpu_id,
                config.ctx_save_restore,
                &error,
            );
        } else if let Some(f) = error.fault {
            deliver_memory_fault(&self.events, &self.gpu.vm, self.gpu.gpu_id, f);
        }
    }

    /// Execute packets up to the doorbell's write pointer; whether a
    /// POLL_REGMEM is waiting.
    fn drain(&mut self, config: &QueueConfig) -> Result<bool, QueueError> {
        let wptr = self.gpu.doorbells.value(self.queue.doorbell_index);
        if !wptr.is_multiple_of(4) {
            return Err(reserved(format!(
                "write pointer {wptr:#x} is not a dword offset"
            )));
        }
        while self.rptr != wptr {
            let pending = wptr.wrapping_sub(self.rptr);
            if pending > config.ring_size {
                return Err(reserved(format!(
                    "write pointer {wptr:#x} is more than a ring ({:#x} bytes) past the read \
                     pointer {:#x}",
                    config.ring_size, self.rptr
                )));
            }
            let view = self.gpu.vm.view();
            let header = self.ring_dword(&view, config, 0)?;
            let Some(len) = packet::length(header) else {
                return Err(QueueError::packet(
                    exception_code::EC_QUEUE_PACKET_UNSUPPORTED,
                    format!(
                        "SDMA packet at byte {:#x}: opcode {} sub-opcode {} is not supported",
                        self.rptr,
                        packet::opcode(header),
                        packet::sub_opcode(header)
                    ),
                ));
            };
            if u64::from(len) * 4 > pending {
                // The rest of the packet is not published yet.
                return Ok(false);
            }
            let mut dw = [0u32; MAX_PACKET_DWORDS];
            dw[0] = header;
            if packet::opcode(header) != op::NOP {
                for (i, d) in dw.iter_mut().enumerate().take(len as usize).skip(1) {
                    *d = self.ring_dword(&view, config, i as u64)?;
                }
            }
            match self.execute(&view, &dw[..len.min(MAX_PACKET_DWORDS as u32) as usize])? {
                Step::Polling => return Ok(true),
                Step::Done => {}
            }
            self.rptr = self.rptr.wrapping_add(u64::from(len) * 4);
            view.atomic_u64(config.read_pointer, Access::Write)
                .map_err(|f| fault(f, "writing the read pointer"))?
                .store(self.rptr, Ordering::Release);
        }
        Ok(false)
    }

    /// Dword `i` of the packet at the read pointer.
    fn ring_dword(
        &self,
        view: &VmView<'_>,
        config: &QueueConfig,
        i: u64,
    ) -> Result<u32, QueueError> {
        let offset = self.rptr.wrapping_add(i * 4) % config.ring_size;
        view.read::<u32>(config.ring_base + offset)
            .map_err(|f| fault(f, "reading the ring"))
    }

    /// The engine wrote `[addr, addr + len)` (the sanitizer's initcheck
    /// counts those bytes as written).
    fn wrote(&self, addr: u64, len: u64) {
        if let Some(s) = &self.gpu.sanitizer {
            s.note_device_write(addr, len);
        }
    }

    fn execute(&self, view: &VmView<'_>, dw: &[u32]) -> Result<Step, QueueError> {
        let header = dw[0];
        match packet::opcode(header) {
            op::NOP => {}
            op::COPY => {
                let bytes = u64::from(dw[1] & packet::COUNT_MASK) + 1;
                let src = packet::address(dw[3], dw[4]);
                let dst = packet::address(dw[5], dw[6]);
                copy(view, src, dst, bytes)?;
                self.wrote(dst, bytes);
            }
            op::CONST_FILL => {
                let dst = packet::address(dw[1], dw[2]);
                let bytes = u64::from(dw[4] & packet::COUNT_MASK) + 1;
                let pattern = match packet::fill_size(header) {
                    0 => [dw[3] as u8; 4],
                    2 => {
                        aligned(dst, 4, "CONSTANT_FILL")?;
                        if !bytes.is_multiple_of(4) {
                            return Err(reserved(format!(
                                "CONSTANT_FILL of dwords over {bytes} bytes"
                            )));
                        }
                        dw[3].to_le_bytes()
                    }
                    other => {
                        return Err(reserved(format!("CONSTANT_FILL fill size {other}")));
                    }
                };
                fill(view, dst, bytes, pattern)?;
                self.wrote(dst, bytes);
            }
            op::FENCE => {
                let addr = packet::address(dw[1], dw[2]);
                aligned(addr, 4, "FENCE")?;
                let p = view
                    .translate(addr, 4, Access::Write)
                    .map_err(|f| fault(f, "writing a fence"))?;
                // SAFETY: translate checked 4 writable bytes at p, and the address is 4-byte aligned.
                unsafe { std::sync::atomic::AtomicU32::from_ptr(p.cast::<u32>()) }
                    .store(dw[3], Ordering::Release);
                self.wrote(addr, 4);
                self.events.notify_listeners();
            }
            op::ATOMIC => {
                let operation = packet::atomic_operation(header);
                if operation != packet::ATOMIC_ADD64 {
                    return Err(QueueError::packet(
                        exception_code::EC_QUEUE_PACKET_UNSUPPORTED,
                        format!("SDMA ATOMIC operation {operation} is not supported"),
                    ));
                }
                let addr = packet::address(dw[1], dw[2]);
                aligned(addr, 8, "ATOMIC")?;
                let value = packet::address(dw[3], dw[4]);
                view.atomic_u64(addr, Access::Atomic)
                    .map_err(|f| fault(f, "in an atomic"))?
                    .fetch_add(value, Ordering::AcqRel);
                self.wrote(addr, 8);
                self.events.notify_listeners();
            }
            op::TRAP => {
                self.events.interrupt(dw[1] & 0x0fff_ffff);
            }
            op::POLL_REGMEM => {
                if !packet::poll_memory(header) {
                    return Err(QueueError::packet(
                        exception_code::EC_QUEUE_PACKET_UNSUPPORTED,
                        "SDMA POLL_REGMEM of a register is not supported",
                    ));
                }
                let func = packet::poll_function(header);
                let addr = packet::address(dw[1], dw[2]);
                aligned(addr, 4, "POLL_REGMEM")?;
                let value: u32 = view
                    .read(addr)
                    .map_err(|f| fault(f, "reading a polled dword"))?;
                match packet::poll_holds(func, value & dw[4], dw[3]) {
                    Some(true) => {}
                    Some(false) => return Ok(Step::Polling),
                    None => return Err(reserved(format!("POLL_REGMEM function {func}"))),
                }
            }
            op::TIMESTAMP => {
                let addr = packet::address(dw[1], dw[2]);
                aligned(addr, 8, "TIMESTAMP")?;
                view.atomic_u64(addr, Access::Write)
                    .map_err(|f| fault(f, "writing a timestamp"))?
                    .store(realtime_ticks(), Ordering::Release);
                self.wrote(addr, 8);
            }
            // `packet::length` admitted only the opcodes above.
            other => unreachable!("SDMA opcode {other} passed the length check"),
        }
        Ok(Step::Done)
    }
}

/// The bytes from `addr` to the end of its mapping, at most `len`: the
/// most one host pointer covers.
fn span(
    view: &VmView<'_>,
    addr: u64,
    len: u64,
    access: Access,
) -> Result<(*mut u8, u64), MemoryFault> {
    let n = view
        .find(addr)
        .map(|m| (m.end - addr).min(len))
        .ok_or(MemoryFault {
            address: addr,
            access,
        })?;
    Ok((view.translate(addr, n, access)?, n))
}

/// COPY_LINEAR: `len` bytes from `src` to `dst`, a mapping at a time.
fn copy(view: &VmView<'_>, mut src: u64, mut dst: u64, mut len: u64) -> Result<(), QueueError> {
    while len > 0 {
        let (from, a) =
            span(view, src, len, Access::Read).map_err(|f| fault(f, "reading a copy's source"))?;
        let (to, b) = span(view, dst, len, Access::Write)
            .map_err(|f| fault(f, "writing a copy's destination"))?;
        let n = a.min(b);
        // SAFETY: translate checked n readable bytes at `from` and n writable bytes at `to`, each in one live mapping; `copy` allows overlap.
        unsafe { std::ptr::copy(from, to, n as usize) };
        src += n;
        dst += n;
        len -= n;
    }
    Ok(())
}

/// CONSTANT_FILL: `len` bytes at `dst` with `pattern` repeated, a mapping at a time.
fn fill(view: &VmView<'_>, mut dst: u64, mut len: u64, pattern: [u8; 4]) -> Result<(), QueueError> {
    while len > 0 {
        let (to, n) = span(view, dst, len, Access::Write)
            .map_err(|f| fault(f, "writing a fill's destination"))?;
        // SAFETY: translate checked n writable bytes at `to` in one live mapping.
        let bytes = unsafe { std::slice::from_raw_parts_mut(to, n as usize) };
        // A dword pattern starts dword aligned and mappings end on pages,
        // so every span starts at the pattern's first byte.
        for chunk in bytes.chunks_mut(4) {
            chunk.copy_from_slice(&pattern[..chunk.len()]);
        }
        dst += n;
        len -= n;
    }
    Ok(())
}
