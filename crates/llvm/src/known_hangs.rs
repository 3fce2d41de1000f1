//! Modules on which libLLVM-19's code generator does not terminate, for
//! tests of what guards against it (the exit guard's bound: library.rs,
//! `EXIT_WAIT`).

/// A module on which the x86 DAG combiner loops for ever when the target
/// has AVX512BW: two 32-lane rows made from lane masks (`<32 x i1>`, legal
/// in mask registers with AVX512BW), interleaved and stored. Found in a
/// translated block and reduced with llvm-reduce; the same class of loop
/// as llvm-project issue 123333. Function `stuck(ptr, i32, <32 x i1>)`.
pub fn avx512bw_mask_interleave() -> String {
    let lanes: Vec<String> = (0..32)
        .map(|l| format!("i32 {l}, i32 {}", 32 + l))
        .collect();
    format!(
        "define void @stuck(ptr %p, i32 %e, <32 x i1> %k) {{
  %x = load i32, ptr %p, align 4
  %xe = or i32 %x, %e
  %me = bitcast i32 %e to <32 x i1>
  %mxe = bitcast i32 %xe to <32 x i1>
  %a = zext <32 x i1> %mxe to <32 x i32>
  %mx = bitcast i32 %x to <32 x i1>
  %nk = xor <32 x i1> %mx, %k
  %n = select <32 x i1> %nk, <32 x i1> %me, <32 x i1> zeroinitializer
  %b = zext <32 x i1> %n to <32 x i32>
  %ab = shufflevector <32 x i32> %a, <32 x i32> %b, <64 x i32> <{}>
  store <64 x i32> %ab, ptr %p, align 1
  ret void
}}
",
        lanes.join(", ")
    )
}
