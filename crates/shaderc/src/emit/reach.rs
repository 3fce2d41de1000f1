//! Which helper functions the chosen entry points reach through calls:
//! only those are emitted, so a helper that only another stage's entry
//! point calls (a fragment shader's derivatives, say) never stops a
//! compute kernel from compiling.

use naga::{Block, Handle, Statement};

/// `reached[i]`: whether function `i` of `module` is called, directly or
/// not, by one of the entry points at `entries`.
pub(crate) fn reached_functions(module: &naga::Module, entries: &[usize]) -> Vec<bool> {
    let mut reached = vec![false; module.functions.len()];
    let mut stack: Vec<Handle<naga::Function>> = Vec::new();
    for &index in entries {
        calls_in(&module.entry_points[index].function.body, &mut stack);
    }
    while let Some(f) = stack.pop() {
        if !std::mem::replace(&mut reached[f.index()], true) {
            calls_in(&module.functions[f].body, &mut stack);
        }
    }
    reached
}

/// Push every function `block` calls (at any depth) onto `out`.
fn calls_in(block: &Block, out: &mut Vec<Handle<naga::Function>>) {
    for stmt in block.iter() {
        match *stmt {
            Statement::Call { function, .. } => out.push(function),
            Statement::Block(ref b) => calls_in(b, out),
            Statement::If {
                ref accept,
                ref reject,
                ..
            } => {
                calls_in(accept, out);
                calls_in(reject, out);
            }
            Statement::Switch { ref cases, .. } => {
                for case in cases {
                    calls_in(&case.body, out);
                }
            }
            Statement::Loop {
                ref body,
                ref continuing,
                ..
            } => {
                calls_in(body, out);
                calls_in(continuing, out);
            }
            _ => {}
        }
    }
}
