; Image instructions as the AMDGPU backend emits them for gfx1100: a 2D load
; scaled and stored to a second image, the source's resinfo, and a 2D-array
; load with a mip level (four addresses, NSA). Each T# is an <8 x i32> kernel
; argument (32-byte aligned in the kernarg segment).
;
; image_ops(src@0, dst@32, layered@64, info@96, out@104):
;   dst[x, y] = 2 * src[x, y]            x = work-item id x, y = workgroup id x
;   info[0..4] = resinfo(src, level 0)   (every lane writes the same values)
;   out[y * 32 + x] = layered[x, y, layer y, level 0].x
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare <4 x float> @llvm.amdgcn.image.load.2d.v4f32.i32(i32 immarg, i32, i32, <8 x i32>, i32 immarg, i32 immarg)
declare void @llvm.amdgcn.image.store.2d.v4f32.i32(<4 x float>, i32 immarg, i32, i32, <8 x i32>, i32 immarg, i32 immarg)
declare <4 x i32> @llvm.amdgcn.image.getresinfo.2d.v4i32.i32(i32 immarg, i32, <8 x i32>, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.image.load.mip.2darray.f32.i32(i32 immarg, i32, i32, i32, i32, <8 x i32>, i32 immarg, i32 immarg)

define amdgpu_kernel void @image_ops(<8 x i32> %src, <8 x i32> %dst, <8 x i32> %layered,
                                     ptr addrspace(1) %info, ptr addrspace(1) %out) {
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = call i32 @llvm.amdgcn.workgroup.id.x()
  %v = call <4 x float> @llvm.amdgcn.image.load.2d.v4f32.i32(i32 15, i32 %x, i32 %y, <8 x i32> %src, i32 0, i32 0)
  %w = fmul <4 x float> %v, <float 2.0, float 2.0, float 2.0, float 2.0>
  call void @llvm.amdgcn.image.store.2d.v4f32.i32(<4 x float> %w, i32 15, i32 %x, i32 %y, <8 x i32> %dst, i32 0, i32 0)
  %r = call <4 x i32> @llvm.amdgcn.image.getresinfo.2d.v4i32.i32(i32 15, i32 0, <8 x i32> %src, i32 0, i32 0)
  store <4 x i32> %r, ptr addrspace(1) %info, align 16
  %l = call float @llvm.amdgcn.image.load.mip.2darray.f32.i32(i32 1, i32 %x, i32 %y, i32 %y, i32 0, <8 x i32> %layered, i32 0, i32 0)
  %row = mul i32 %y, 32
  %i = add i32 %row, %x
  %p = getelementptr float, ptr addrspace(1) %out, i32 %i
  store float %l, ptr addrspace(1) %p, align 4
  ret void
}
