//! Subgroups: WGSL's subgroup builtins and operations over AMDGPU waves.
//!
//! A subgroup is a wave: 32 lanes on gfx10+/gfx11+ targets (wave32), 64 on
//! gfx9 (wave64). The IR is the same for every target: the subgroup size is
//! `llvm.amdgcn.wavefrontsize` (a per-target constant after codegen), the
//! lane id is `mbcnt_hi(-1, mbcnt_lo(-1, 0))` (LLVM drops the hi half on
//! wave32) and ballots are `llvm.amdgcn.ballot.i64` (zero upper word on
//! wave32).
//!
//! Lowering, chosen so that only the active lanes take part (WGSL's rule
//! in divergent control flow) and results are deterministic:
//! - collective operations (reductions, inclusive/exclusive scans,
//!   all/any) walk the active lanes in ascending order with a scalar loop
//!   over the ballot of the active lanes: `readlane` of each lane's value,
//!   combined into the accumulator (for scans, only by lanes above it).
//!   Float sums and products therefore add in lane order.
//! - broadcasts: `readfirstlane` / `readlane`;
//! - shuffles (plain, xor, up, down, quad broadcast and swaps): the source
//!   lane's value through `ds_bpermute` (address = lane * 4; the hardware
//!   wraps the lane index modulo the wave size, so an out-of-range lane
//!   never faults; WGSL leaves that result indeterminate).
//!
//! The cross-lane intrinsics move 32 bits: wider and narrower values (and
//! vectors) travel as i32 words.

use naga::{
    CollectiveOperation, Expression, GatherMode, Handle, ScalarKind, SubgroupOperation, TypeInner,
};

use super::func::{FnEmitter, Val, Value};
use super::types::split_vector;
use crate::error::{EmitResult, unsupported};

impl FnEmitter<'_> {
    /// The lane index of this invocation in its wave.
    pub(crate) fn lane_id(&mut self) -> String {
        self.m
            .declare("declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)".into());
        self.m
            .declare("declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)".into());
        let lo = self.def("call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)");
        self.def(&format!("call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 {lo})"))
    }

    /// The wave size of the target (32 or 64).
    pub(crate) fn wave_size(&mut self) -> String {
        self.m
            .declare("declare i32 @llvm.amdgcn.wavefrontsize()".into());
        self.def("call i32 @llvm.amdgcn.wavefrontsize()")
    }

    /// The i64 ballot of `pred` (an i1 operand text) over the active lanes.
    fn ballot(&mut self, pred: &str) -> String {
        self.m
            .declare("declare i64 @llvm.amdgcn.ballot.i64(i1)".into());
        self.def(&format!("call i64 @llvm.amdgcn.ballot.i64(i1 {pred})"))
    }

    /// A scalar value as one i32 word or two (64-bit types).
    fn scalar_words(&mut self, ty: &str, v: &str) -> Vec<String> {
        match ty {
            "i32" => vec![v.to_string()],
            "float" => vec![self.def(&format!("bitcast float {v} to i32"))],
            "i1" => vec![self.def(&format!("zext i1 {v} to i32"))],
            "i16" => vec![self.def(&format!("zext i16 {v} to i32"))],
            "half" => {
                let s = self.def(&format!("bitcast half {v} to i16"));
                vec![self.def(&format!("zext i16 {s} to i32"))]
            }
            _ => {
                // i64 / double
                let pair = self.def(&format!("bitcast {ty} {v} to <2 x i32>"));
                (0..2)
                    .map(|i| self.def(&format!("extractelement <2 x i32> {pair}, i32 {i}")))
                    .collect()
            }
        }
    }

    fn scalar_from_words(&mut self, ty: &str, words: &[String]) -> String {
        match ty {
            "i32" => words[0].clone(),
            "float" => self.def(&format!("bitcast i32 {} to float", words[0])),
            "i1" => self.def(&format!("trunc i32 {} to i1", words[0])),
            "i16" => self.def(&format!("trunc i32 {} to i16", words[0])),
            "half" => {
                let s = self.def(&format!("trunc i32 {} to i16", words[0]));
                self.def(&format!("bitcast i16 {s} to half"))
            }
            _ => {
                let a = self.def(&format!(
                    "insertelement <2 x i32> poison, i32 {}, i32 0",
                    words[0]
                ));
                let b = self.def(&format!(
                    "insertelement <2 x i32> {a}, i32 {}, i32 1",
                    words[1]
                ));
                self.def(&format!("bitcast <2 x i32> {b} to {ty}"))
            }
        }
    }

    /// Apply the 32-bit cross-lane operation `op` (word → result word) to
    /// every word of `v` (a scalar or a vector).
    fn cross_lane(&mut self, v: &Val, op: &mut dyn FnMut(&mut Self, &str) -> String) -> Val {
        let (elem, n) = split_vector(&v.ty);
        let mut one = |e: &mut Self, x: &str| {
            let words = e.scalar_words(&elem, x);
            let moved: Vec<String> = words.iter().map(|w| op(e, w)).collect();
            e.scalar_from_words(&elem, &moved)
        };
        match n {
            None => {
                let r = one(self, &v.v);
                Val::new(&v.ty, r)
            }
            Some(n) => {
                let mut acc = "poison".to_string();
                for i in 0..n {
                    let x = self.def(&format!("extractelement {}, i32 {i}", v.typed()));
                    let r = one(self, &x);
                    acc = self.def(&format!(
                        "insertelement {} {acc}, {elem} {r}, i32 {i}",
                        v.ty
                    ));
                }
                Val::new(&v.ty, acc)
            }
        }
    }

    /// `v` as read from lane `lane` (a wave-uniform i32 operand).
    fn read_lane(&mut self, v: &Val, lane: &str) -> Val {
        self.m
            .declare("declare i32 @llvm.amdgcn.readlane.i32(i32, i32)".into());
        let lane = lane.to_string();
        self.cross_lane(v, &mut |e, w| {
            e.def(&format!(
                "call i32 @llvm.amdgcn.readlane.i32(i32 {w}, i32 {lane})"
            ))
        })
    }

    /// `v` as read from the first active lane.
    fn read_first_lane(&mut self, v: &Val) -> Val {
        self.m
            .declare("declare i32 @llvm.amdgcn.readfirstlane.i32(i32)".into());
        self.cross_lane(v, &mut |e, w| {
            e.def(&format!("call i32 @llvm.amdgcn.readfirstlane.i32(i32 {w})"))
        })
    }

    /// `v` as held by lane `src` (a per-lane i32 operand), via ds_bpermute.
    fn permute_from(&mut self, v: &Val, src: &str) -> Val {
        self.m
            .declare("declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)".into());
        let addr = self.def(&format!("shl i32 {src}, 2"));
        self.cross_lane(v, &mut |e, w| {
            e.def(&format!(
                "call i32 @llvm.amdgcn.ds.bpermute(i32 {addr}, i32 {w})"
            ))
        })
    }

    pub(crate) fn subgroup_ballot(
        &mut self,
        result: Handle<Expression>,
        predicate: Option<Handle<Expression>>,
    ) -> EmitResult<()> {
        let pred = match predicate {
            Some(p) => self.val(p)?.v,
            None => "true".into(),
        };
        let mask = self.ballot(&pred);
        let lo = self.def(&format!("trunc i64 {mask} to i32"));
        let shifted = self.def(&format!("lshr i64 {mask}, 32"));
        let hi = self.def(&format!("trunc i64 {shifted} to i32"));
        let a = self.def(&format!(
            "insertelement <4 x i32> zeroinitializer, i32 {lo}, i32 0"
        ));
        let b = self.def(&format!("insertelement <4 x i32> {a}, i32 {hi}, i32 1"));
        self.values[result.index()] = Some(Value::Val(Val::new("<4 x i32>", b)));
        Ok(())
    }

    pub(crate) fn subgroup_gather(
        &mut self,
        mode: &GatherMode,
        argument: Handle<Expression>,
        result: Handle<Expression>,
    ) -> EmitResult<()> {
        let v = self.val(argument)?;
        let r = match *mode {
            GatherMode::BroadcastFirst => self.read_first_lane(&v),
            GatherMode::Broadcast(id) => {
                let id = self.val(id)?;
                // A non-constant id must still be wave-uniform for readlane.
                self.m
                    .declare("declare i32 @llvm.amdgcn.readfirstlane.i32(i32)".into());
                let lane = self.def(&format!(
                    "call i32 @llvm.amdgcn.readfirstlane.i32(i32 {})",
                    id.v
                ));
                self.read_lane(&v, &lane)
            }
            GatherMode::Shuffle(id) => {
                let id = self.val(id)?;
                self.permute_from(&v, &id.v)
            }
            GatherMode::ShuffleXor(mask) => {
                let mask = self.val(mask)?;
                let me = self.lane_id();
                let src = self.def(&format!("xor i32 {me}, {}", mask.v));
                self.permute_from(&v, &src)
            }
            GatherMode::ShuffleUp(delta) => {
                let delta = self.val(delta)?;
                let me = self.lane_id();
                let src = self.def(&format!("sub i32 {me}, {}", delta.v));
                self.permute_from(&v, &src)
            }
            GatherMode::ShuffleDown(delta) => {
                let delta = self.val(delta)?;
                let me = self.lane_id();
                let src = self.def(&format!("add i32 {me}, {}", delta.v));
                self.permute_from(&v, &src)
            }
            GatherMode::QuadBroadcast(id) => {
                let id = self.val(id)?;
                let me = self.lane_id();
                let base = self.def(&format!("and i32 {me}, -4"));
                let within = self.def(&format!("and i32 {}, 3", id.v));
                let src = self.def(&format!("or i32 {base}, {within}"));
                self.permute_from(&v, &src)
            }
            GatherMode::QuadSwap(direction) => {
                let flip = match direction {
                    naga::Direction::X => 1,
                    naga::Direction::Y => 2,
                    naga::Direction::Diagonal => 3,
                };
                let me = self.lane_id();
                let src = self.def(&format!("xor i32 {me}, {flip}"));
                self.permute_from(&v, &src)
            }
        };
        self.values[result.index()] = Some(Value::Val(r));
        Ok(())
    }

    /// `a op b` for a subgroup operation on values of scalar kind `kind`.
    fn subgroup_combine(
        &mut self,
        op: SubgroupOperation,
        kind: ScalarKind,
        a: &Val,
        b: &Val,
    ) -> Val {
        let float = kind == ScalarKind::Float;
        let ty = a.ty.clone();
        let inst = match op {
            SubgroupOperation::Add if float => "fadd",
            SubgroupOperation::Add => "add",
            SubgroupOperation::Mul if float => "fmul",
            SubgroupOperation::Mul => "mul",
            SubgroupOperation::And | SubgroupOperation::All => "and",
            SubgroupOperation::Or | SubgroupOperation::Any => "or",
            SubgroupOperation::Xor => "xor",
            SubgroupOperation::Min | SubgroupOperation::Max => {
                let name = match (op, kind) {
                    (SubgroupOperation::Min, ScalarKind::Float) => "minnum",
                    (SubgroupOperation::Max, ScalarKind::Float) => "maxnum",
                    (SubgroupOperation::Min, ScalarKind::Sint) => "smin",
                    (SubgroupOperation::Max, ScalarKind::Sint) => "smax",
                    (SubgroupOperation::Min, _) => "umin",
                    _ => "umax",
                };
                return self.call_intrinsic(name, &ty, &[a, b]);
            }
        };
        self.defv(&ty, &format!("{inst} {ty} {}, {}", a.v, b.v))
    }

    /// The identity of `op` for values of LLVM type `ty` (scalar kind `kind`).
    fn subgroup_identity(op: SubgroupOperation, kind: ScalarKind, ty: &str) -> String {
        let (elem, _) = split_vector(ty);
        let bits = match elem.as_str() {
            "i64" | "double" => 64,
            "i16" | "half" => 16,
            "i1" => 1,
            _ => 32,
        };
        let scalar = match (op, kind) {
            (SubgroupOperation::Add | SubgroupOperation::Or | SubgroupOperation::Xor, _)
            | (SubgroupOperation::Any, _) => {
                return super::expr::splat_const(
                    ty,
                    if kind == ScalarKind::Float {
                        "0.0"
                    } else if elem == "i1" {
                        "false"
                    } else {
                        "0"
                    },
                );
            }
            (SubgroupOperation::Mul, ScalarKind::Float) => return Self::fconst(ty, 1.0),
            (SubgroupOperation::Mul, _) => "1".to_string(),
            (SubgroupOperation::And | SubgroupOperation::All, _) => {
                if elem == "i1" {
                    "true".into()
                } else {
                    "-1".into()
                }
            }
            (SubgroupOperation::Min, ScalarKind::Float) => {
                return Self::fconst(ty, f64::INFINITY);
            }
            (SubgroupOperation::Max, ScalarKind::Float) => {
                return Self::fconst(ty, f64::NEG_INFINITY);
            }
            (SubgroupOperation::Min, ScalarKind::Sint) => ((1i128 << (bits - 1)) - 1).to_string(),
            (SubgroupOperation::Max, ScalarKind::Sint) => (-(1i128 << (bits - 1))).to_string(),
            (SubgroupOperation::Min, _) => "-1".into(),
            (SubgroupOperation::Max, _) => "0".into(),
        };
        super::expr::splat_const(ty, &scalar)
    }

    pub(crate) fn subgroup_collective(
        &mut self,
        op: SubgroupOperation,
        collective: CollectiveOperation,
        argument: Handle<Expression>,
        result: Handle<Expression>,
        span: naga::Span,
    ) -> EmitResult<()> {
        let v = self.val(argument)?;
        let kind = match *self.inner_of(argument) {
            TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => s.kind,
            _ => return unsupported("a subgroup operation on a non-numeric value", span),
        };
        // all/any of a bool: compare ballots, no loop needed.
        if matches!(op, SubgroupOperation::All | SubgroupOperation::Any) && v.ty == "i1" {
            let active = self.ballot("true");
            let set = self.ballot(&v.v);
            let r = match op {
                SubgroupOperation::All => self.def(&format!("icmp eq i64 {set}, {active}")),
                _ => self.def(&format!("icmp ne i64 {set}, 0")),
            };
            self.values[result.index()] = Some(Value::Val(Val::new("i1", r)));
            return Ok(());
        }
        let ty = v.ty.clone();
        let me = match collective {
            CollectiveOperation::Reduce => None,
            _ => Some(self.lane_id()),
        };
        let mask_slot = self.alloca_bytes(8, 8);
        let acc_bytes = match split_vector(&ty) {
            (_, Some(n)) => 8 * n,
            _ => 8,
        };
        let acc_slot = self.alloca_bytes(acc_bytes, 8);
        let active = self.ballot("true");
        self.inst(&format!(
            "store i64 {active}, ptr addrspace(5) {mask_slot}, align 8"
        ));
        let identity = Self::subgroup_identity(op, kind, &ty);
        self.inst(&format!(
            "store {ty} {identity}, ptr addrspace(5) {acc_slot}, align 8"
        ));
        self.m.declare("declare i64 @llvm.cttz.i64(i64, i1)".into());
        let body = self.label("sg.lanes");
        let end = self.label("sg.done");
        self.terminate(&format!("br label %{body}"));
        self.start_block(&body);
        let mask = self.def(&format!("load i64, ptr addrspace(5) {mask_slot}, align 8"));
        let lane64 = self.def(&format!("call i64 @llvm.cttz.i64(i64 {mask}, i1 true)"));
        let lane = self.def(&format!("trunc i64 {lane64} to i32"));
        let x = self.read_lane(&v, &lane);
        let acc = Val::new(
            &ty,
            self.def(&format!("load {ty}, ptr addrspace(5) {acc_slot}, align 8")),
        );
        let combined = self.subgroup_combine(op, kind, &acc, &x);
        let next = match &me {
            None => combined,
            Some(me) => {
                let cond = match collective {
                    CollectiveOperation::InclusiveScan => "ule",
                    _ => "ult",
                };
                let take = self.def(&format!("icmp {cond} i32 {lane}, {me}"));
                let take = match split_vector(&ty) {
                    (_, Some(n)) => self.splat(&Val::new("i1", take), n).v,
                    _ => take,
                };
                let cty = super::expr::bool_ty_like(&ty);
                self.defv(
                    &ty,
                    &format!("select {cty} {take}, {ty} {}, {ty} {}", combined.v, acc.v),
                )
            }
        };
        self.inst(&format!(
            "store {ty} {}, ptr addrspace(5) {acc_slot}, align 8",
            next.v
        ));
        let less = self.def(&format!("sub i64 {mask}, 1"));
        let rest = self.def(&format!("and i64 {mask}, {less}"));
        self.inst(&format!(
            "store i64 {rest}, ptr addrspace(5) {mask_slot}, align 8"
        ));
        let done = self.def(&format!("icmp eq i64 {rest}, 0"));
        self.terminate(&format!("br i1 {done}, label %{end}, label %{body}"));
        self.start_block(&end);
        let r = self.def(&format!("load {ty}, ptr addrspace(5) {acc_slot}, align 8"));
        self.values[result.index()] = Some(Value::Val(Val::new(&ty, r)));
        Ok(())
    }
}

/// Whether entry point `index` (or a function it calls) uses a subgroup
/// builtin, operation or barrier.
pub(crate) fn entry_uses_subgroups(module: &naga::Module, index: usize) -> bool {
    let ep = &module.entry_points[index];
    let builtin_uses = |arg: &naga::FunctionArgument| -> bool {
        let is_sg = |b: &naga::Binding| {
            matches!(
                b,
                naga::Binding::BuiltIn(
                    naga::BuiltIn::SubgroupSize
                        | naga::BuiltIn::SubgroupInvocationId
                        | naga::BuiltIn::SubgroupId
                        | naga::BuiltIn::NumSubgroups
                )
            )
        };
        if arg.binding.as_ref().is_some_and(is_sg) {
            return true;
        }
        match module.types[arg.ty].inner {
            TypeInner::Struct { ref members, .. } => members
                .iter()
                .any(|m| m.binding.as_ref().is_some_and(is_sg)),
            _ => false,
        }
    };
    if ep.function.arguments.iter().any(builtin_uses) {
        return true;
    }
    let mut seen = vec![false; module.functions.len()];
    block_uses_subgroups(module, &ep.function.body, &mut seen)
}

fn block_uses_subgroups(module: &naga::Module, block: &naga::Block, seen: &mut [bool]) -> bool {
    use naga::Statement as S;
    block.iter().any(|stmt| match *stmt {
        S::SubgroupBallot { .. }
        | S::SubgroupGather { .. }
        | S::SubgroupCollectiveOperation { .. } => true,
        S::ControlBarrier(b) | S::MemoryBarrier(b) => b.contains(naga::Barrier::SUB_GROUP),
        S::Block(ref b) => block_uses_subgroups(module, b, seen),
        S::If {
            ref accept,
            ref reject,
            ..
        } => {
            block_uses_subgroups(module, accept, seen) || block_uses_subgroups(module, reject, seen)
        }
        S::Switch { ref cases, .. } => cases
            .iter()
            .any(|c| block_uses_subgroups(module, &c.body, seen)),
        S::Loop {
            ref body,
            ref continuing,
            ..
        } => {
            block_uses_subgroups(module, body, seen)
                || block_uses_subgroups(module, continuing, seen)
        }
        S::Call { function, .. } => {
            if seen[function.index()] {
                return false;
            }
            seen[function.index()] = true;
            block_uses_subgroups(module, &module.functions[function].body, seen)
        }
        _ => false,
    })
}
