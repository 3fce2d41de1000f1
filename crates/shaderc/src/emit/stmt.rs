//! Statements and structured control flow → LLVM basic blocks.
//!
//! if → two arms and a merge block; switch → an LLVM `switch` with one
//! block per case (fallthrough branches to the next case's block); loop →
//! header / body / continuing / exit blocks, with `break if` as the
//! conditional back edge. Break and continue targets live on stacks.

use naga::{Block, Statement, SwitchValue};

use super::func::{FnEmitter, Value};
use crate::error::{EmitResult, UnsupportedKind, unsupported, unsupported_as};

impl FnEmitter<'_> {
    pub(crate) fn block(&mut self, block: &Block) -> EmitResult<()> {
        for (stmt, span) in block.span_iter() {
            self.statement(stmt, *span)?;
        }
        Ok(())
    }

    fn statement(&mut self, stmt: &Statement, span: naga::Span) -> EmitResult<()> {
        match *stmt {
            Statement::Emit(ref range) => {
                for h in range.clone() {
                    if self.values[h.index()].is_none() {
                        let v = self.eval(h)?;
                        self.values[h.index()] = Some(v);
                    }
                }
            }
            Statement::Block(ref b) => self.block(b)?,
            Statement::If {
                condition,
                ref accept,
                ref reject,
            } => {
                let c = self.val(condition)?;
                let then = self.label("then");
                let other = self.label("else");
                let end = self.label("endif");
                self.terminate(&format!("br i1 {}, label %{then}, label %{other}", c.v));
                self.start_block(&then);
                self.block(accept)?;
                self.br_if_open(&end);
                self.start_block(&other);
                self.block(reject)?;
                self.br_if_open(&end);
                self.start_block(&end);
            }
            Statement::Switch {
                selector,
                ref cases,
            } => {
                let sel = self.val(selector)?;
                let end = self.label("endswitch");
                let labels: Vec<String> = cases.iter().map(|_| self.label("case")).collect();
                let mut default = end.clone();
                let mut arms = Vec::new();
                for (case, label) in cases.iter().zip(&labels) {
                    match case.value {
                        SwitchValue::I32(v) => arms.push(format!("{} {v}, label %{label}", sel.ty)),
                        SwitchValue::U32(v) => {
                            arms.push(format!("{} {}, label %{label}", sel.ty, v as i32))
                        }
                        SwitchValue::Default => default = label.clone(),
                    }
                }
                self.terminate(&format!(
                    "switch {}, label %{default} [ {} ]",
                    sel.typed(),
                    arms.join(" ")
                ));
                self.breaks.push(end.clone());
                for (i, case) in cases.iter().enumerate() {
                    self.start_block(&labels[i]);
                    self.block(&case.body)?;
                    let next = if case.fall_through {
                        labels.get(i + 1).unwrap_or(&end).clone()
                    } else {
                        end.clone()
                    };
                    self.br_if_open(&next);
                }
                self.breaks.pop();
                self.start_block(&end);
            }
            Statement::Loop {
                ref body,
                ref continuing,
                break_if,
            } => {
                let head = self.label("loop");
                let cont = self.label("continuing");
                let end = self.label("endloop");
                self.terminate(&format!("br label %{head}"));
                self.start_block(&head);
                self.breaks.push(end.clone());
                self.continues.push(cont.clone());
                self.block(body)?;
                self.br_if_open(&cont);
                self.start_block(&cont);
                self.block(continuing)?;
                match break_if {
                    Some(c) => {
                        let c = self.val(c)?;
                        self.terminate(&format!("br i1 {}, label %{end}, label %{head}", c.v));
                    }
                    None => self.br_if_open(&head),
                }
                self.breaks.pop();
                self.continues.pop();
                self.start_block(&end);
            }
            Statement::Break => {
                let Some(target) = self.breaks.last().cloned() else {
                    return unsupported("break outside a loop or switch", span);
                };
                self.terminate(&format!("br label %{target}"));
            }
            Statement::Continue => {
                let Some(target) = self.continues.last().cloned() else {
                    return unsupported("continue outside a loop", span);
                };
                self.terminate(&format!("br label %{target}"));
            }
            Statement::Return { value } => match (value, self.ret_ty.clone()) {
                (Some(v), Some(_)) => {
                    let v = self.val(v)?;
                    self.terminate(&format!("ret {}", v.typed()));
                }
                (None, None) => self.terminate("ret void"),
                _ => return unsupported("a return value in a compute entry point", span),
            },
            Statement::Kill => {
                return unsupported_as(
                    UnsupportedKind::Discard,
                    "discard (fragment shaders only)",
                    span,
                );
            }
            Statement::ControlBarrier(flags) => self.control_barrier(flags),
            Statement::MemoryBarrier(flags) => self.memory_barrier(flags),
            Statement::Store { pointer, value } => {
                let p = self.ptr(pointer)?;
                let pointee = self.pointee_of(pointer)?;
                let v = self.val(value)?;
                self.store_value(&p, pointee, &v, span)?;
            }
            Statement::Atomic {
                pointer,
                ref fun,
                value,
                result,
            } => self.atomic(pointer, fun, value, result, span)?,
            Statement::WorkGroupUniformLoad { pointer, result } => {
                self.workgroup_uniform_load(pointer, result, span)?;
            }
            Statement::Call {
                function,
                ref arguments,
                result,
            } => {
                let mut args = Vec::new();
                for &a in arguments {
                    match self.value(a)? {
                        Value::Val(v) => args.push(v.typed()),
                        Value::Ptr(p) => args.push(format!("ptr addrspace({}) {}", p.space, p.v)),
                    }
                }
                args.extend(self.hidden_args());
                let callee = &self.m.module.functions[function];
                let call = format!(
                    "@{}({})",
                    self.m.symbol(&format!("f.{}", function.index())),
                    args.join(", ")
                );
                match (result, &callee.result) {
                    (Some(r), Some(res)) => {
                        let ty = self.m.lowered_ty_of(res.ty, span)?;
                        let v = self.defv(&ty, &format!("call {ty} {call}"));
                        self.values[r.index()] = Some(Value::Val(v));
                    }
                    (None, Some(res)) => {
                        let ty = self.m.lowered_ty_of(res.ty, span)?;
                        self.inst(&format!("call {ty} {call}"));
                    }
                    _ => self.inst(&format!("call void {call}")),
                }
            }
            Statement::ImageStore {
                image,
                coordinate,
                array_index,
                value,
            } => self.image_store(image, coordinate, array_index, value, span)?,
            Statement::ImageAtomic {
                image,
                coordinate,
                array_index,
                fun,
                value,
            } => self.image_atomic(image, coordinate, array_index, fun, value, span)?,
            Statement::RayQuery { .. } | Statement::RayPipelineFunction(_) => {
                return unsupported_as(UnsupportedKind::RayQueries, "ray tracing", span);
            }
            Statement::SubgroupBallot { result, predicate } => {
                self.subgroup_ballot(result, predicate)?
            }
            Statement::SubgroupGather {
                ref mode,
                argument,
                result,
            } => self.subgroup_gather(mode, argument, result)?,
            Statement::SubgroupCollectiveOperation {
                op,
                collective_op,
                argument,
                result,
            } => self.subgroup_collective(op, collective_op, argument, result, span)?,
            Statement::CooperativeStore { target, ref data } => {
                self.coop_store(target, data, span)?
            }
        }
        Ok(())
    }
}
