//! A first compile and link on the thread that finds the first block hot,
//! before any block goes to the background thread.
//!
//! Why: libLLVM constructs function-local statics during its first compile
//! for a target and its first link, and `exit` destroys them in the reverse
//! order of construction, so before the exit guard registered after them
//! (aqueduct-llvm `library.rs`: `guard_exit`). A process that exits while
//! the background thread is in that first compile destroys state the
//! compile is using (SIGSEGV in instruction selection). Done here, that
//! compile happens on a gfxsim worker, which its device joins before it
//! goes, so the process's main thread does not exit during it. Blocks
//! compile in child processes (compile.rs), each a copy of this one, so
//! what this compile constructs is there already and not built again in
//! every child. The module
//! uses every intrinsic the block emitters declare, vector loads, stores,
//! gathers and scatters, float and integer arithmetic, a call through a
//! pointer and a switch, so later compiles rarely meet a code path of
//! LLVM's that constructs more.

use std::sync::Once;

use super::compile;

/// The module's one function (never called: only compiled and linked).
const FUNCTION: &str = "warm_up";

/// Its body, after the block emitters' declarations (`emit.rs`, `global.rs`).
const BODY: &str = r#"
define i32 @warm_up(ptr %p, ptr %call) {
entry:
  %pf = getelementptr i8, ptr %p, i64 128
  %pd = getelementptr i8, ptr %p, i64 256
  %pp = getelementptr i8, ptr %p, i64 512
  %a = load <32 x i32>, ptr %p, align 4
  %b = load <32 x i32>, ptr %pf, align 4
  %f = load <32 x float>, ptr %pf, align 4
  %d = load <32 x double>, ptr %pd, align 8
  %ptrs = load <32 x ptr>, ptr %pp, align 8
  %m = icmp ult <32 x i32> %a, %b
  %add = add <32 x i32> %a, %b
  %mul = mul <32 x i32> %add, %b
  %shl = shl <32 x i32> %mul, splat (i32 3)
  %lshr = lshr <32 x i32> %shl, %b
  %smax = call <32 x i32> @llvm.smax.v32i32(<32 x i32> %lshr, <32 x i32> %a)
  %smin = call <32 x i32> @llvm.smin.v32i32(<32 x i32> %smax, <32 x i32> %b)
  %umax = call <32 x i32> @llvm.umax.v32i32(<32 x i32> %smin, <32 x i32> %a)
  %umin = call <32 x i32> @llvm.umin.v32i32(<32 x i32> %umax, <32 x i32> %b)
  %sel = select <32 x i1> %m, <32 x i32> %umin, <32 x i32> %a
  %fma = call <32 x float> @llvm.fma.v32f32(<32 x float> %f, <32 x float> %f, <32 x float> %f)
  %sq = call <32 x float> @llvm.sqrt.v32f32(<32 x float> %fma)
  %rn = call <32 x float> @llvm.roundeven.v32f32(<32 x float> %sq)
  %fd = fdiv <32 x float> %rn, %f
  %fc = fcmp olt <32 x float> %fd, %f
  %fi = fptosi <32 x float> %fd to <32 x i32>
  %if = uitofp <32 x i32> %sel to <32 x float>
  %dq = call <32 x double> @llvm.sqrt.v32f64(<32 x double> %d)
  %dt = fptrunc <32 x double> %dq to <32 x float>
  %fs = fadd <32 x float> %if, %dt
  %fsb = bitcast <32 x float> %fs to <32 x i32>
  %x = xor <32 x i32> %fsb, %fi
  %sh = shufflevector <32 x i32> %x, <32 x i32> %a, <32 x i32> <i32 1, i32 0, i32 3, i32 2, i32 5, i32 4, i32 7, i32 6, i32 9, i32 8, i32 11, i32 10, i32 13, i32 12, i32 15, i32 14, i32 17, i32 16, i32 19, i32 18, i32 21, i32 20, i32 23, i32 22, i32 25, i32 24, i32 27, i32 26, i32 29, i32 28, i32 31, i32 30>
  %g = call <32 x i32> @llvm.masked.gather.v32i32.v32p0(<32 x ptr> %ptrs, i32 4, <32 x i1> %fc, <32 x i32> %sh)
  call void @llvm.masked.scatter.v32i32.v32p0(<32 x i32> %g, <32 x ptr> %ptrs, i32 4, <32 x i1> %m)
  %least = call i32 @llvm.vector.reduce.umin.v32i32(<32 x i32> %g)
  %lo = zext i32 %least to i64
  %hi = call i64 @llvm.uadd.sat.i64(i64 %lo, i64 7)
  %all = call i1 @llvm.vector.reduce.and.v32i1(<32 x i1> %m)
  %any = call i1 @llvm.vector.reduce.or.v32i1(<32 x i1> %fc)
  %r = call i32 @llvm.vector.reduce.umax.v32i32(<32 x i32> %g)
  %bits = bitcast <32 x i1> %m to i32
  %tz = call i32 @llvm.cttz.i32(i32 %bits, i1 false)
  %sa = call {i32, i1} @llvm.sadd.with.overflow.i32(i32 %r, i32 %tz)
  %sav = extractvalue {i32, i1} %sa, 0
  %sao = extractvalue {i32, i1} %sa, 1
  %ss = call {i32, i1} @llvm.ssub.with.overflow.i32(i32 %sav, i32 %tz)
  %ssv = extractvalue {i32, i1} %ss, 0
  %smx = call i32 @llvm.smax.i32(i32 %ssv, i32 %tz)
  %smn = call i32 @llvm.smin.i32(i32 %smx, i32 %sav)
  %umx = call i32 @llvm.umax.i32(i32 %smn, i32 %r)
  %umn = call i32 @llvm.umin.i32(i32 %umx, i32 %tz)
  %lo32 = trunc i64 %lo to i32
  %hi32 = trunc i64 %hi to i32
  %s1 = add i32 %umn, %lo32
  %s2 = udiv i32 %s1, %hi32
  %ok = and i1 %all, %any
  %e = call i1 @llvm.expect.i1(i1 %ok, i1 false)
  br i1 %e, label %call_out, label %pick
call_out:
  %c = call i32 %call(ptr %p, i32 %s2)
  br label %pick
pick:
  %v = phi i32 [ %s2, %entry ], [ %c, %call_out ]
  store <32 x i32> %g, ptr %p, align 4
  switch i32 %v, label %done [ i32 0, label %zero
                               i32 1, label %one
                               i32 2, label %two ]
zero:
  ret i32 7
one:
  ret i32 8
two:
  ret i32 9
done:
  %o = zext i1 %sao to i32
  ret i32 %o
}
"#;

/// The whole module: the emitters' declarations, then [`BODY`].
fn module() -> String {
    let mut ir = String::from(super::emit::DECLARATIONS);
    ir.push_str(super::global::DECLARATIONS);
    ir.push_str(super::lds::DECLARATIONS);
    ir.push_str(super::scratch::DECLARATIONS);
    ir.push_str(BODY);
    ir
}

/// Compile and link the warm-up module once per process, on this thread
/// and in this process (bypassing the disk cache: a cached object would
/// skip the compile).
/// A failure is logged; the blocks then fail or succeed on their own.
pub(crate) fn warm_up() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Err(e) = compile::compile_in_process(&module(), &[FUNCTION]) {
            tracing::debug!("the translator's warm-up did not compile: {e}");
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_warm_up_module_compiles_and_links() {
        if !super::compile::available() {
            eprintln!("skipped: libLLVM-19 does not load here");
            return;
        }
        let (_object, addresses) =
            super::compile::compile_in_process(&super::module(), &[super::FUNCTION])
                .expect("the warm-up module compiles");
        assert_eq!(addresses.len(), 1);
        assert_ne!(addresses[0], 0);
    }
}
