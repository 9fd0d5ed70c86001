; tests/sim/ir_kernels.ll — LLVM IR kernels of the kind flyc emits (compiled by
; tests/sim/run.sh with llc-22 for gfx950): preloaded (inreg) kernel arguments,
; buffer loads straight to LDS, structured buffer loads with index range
; checking, scheduling hints and priorities.
target triple = "amdgcn-amd-amdhsa"

; out[i] = i * a + b with a, b and out preloaded into SGPRs
define amdgpu_kernel void @ir_preload(ptr addrspace(1) inreg %o, i32 inreg %a, i32 inreg %b) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %m = mul i32 %id, %a
  %s = add i32 %m, %b
  %p = getelementptr i32, ptr addrspace(1) %o, i32 %id
  store i32 %s, ptr addrspace(1) %p
  ret void
}

@lds = internal addrspace(3) global [64 x i32] poison, align 16

; one wave: in[] -> LDS by buffer.load.lds, then out[i] = lds[63 - i];
; and out[64 + i] = struct buffer load of record i (stride 8, 30 records, 4 bytes at offset 4;
; records 30.. are out of range and read 0)
define amdgpu_kernel void @ir_buffer_lds(ptr addrspace(1) %o, ptr addrspace(1) %in) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 0, i64 256, i32 131072)
  %voff = shl i32 %id, 2
  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %r, ptr addrspace(3) @lds, i32 4, i32 %voff, i32 0, i32 0, i32 0)
  call void @llvm.amdgcn.s.waitcnt(i32 0)
  call void @llvm.amdgcn.s.setprio(i16 2)
  call void @llvm.amdgcn.sched.group.barrier(i32 8, i32 1, i32 0)
  call void @llvm.amdgcn.s.barrier()
  %j = sub i32 63, %id
  %lp = getelementptr i32, ptr addrspace(3) @lds, i32 %j
  %v = load i32, ptr addrspace(3) %lp
  %op = getelementptr i32, ptr addrspace(1) %o, i32 %id
  store i32 %v, ptr addrspace(1) %op
  %rs = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 8, i64 30, i32 131072)
  %w = call i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8) %rs, i32 %id, i32 4, i32 0, i32 0)
  %i2 = add i32 %id, 64
  %op2 = getelementptr i32, ptr addrspace(1) %o, i32 %i2
  store i32 %w, ptr addrspace(1) %op2
  call void @llvm.amdgcn.s.setprio(i16 0)
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)
declare i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32, i32)
declare void @llvm.amdgcn.s.waitcnt(i32)
declare void @llvm.amdgcn.s.setprio(i16)
declare void @llvm.amdgcn.sched.group.barrier(i32, i32, i32)
declare void @llvm.amdgcn.s.barrier()

; typed buffer access with a 32_32_32_32 resource (DATA_FORMAT 14: word3 = 14 << 15):
; out[4i..4i+3] = in[4i..4i+3] + 1.0, through buffer_load_format_xyzw / buffer_store_format_xyzw
define amdgpu_kernel void @ir_buffer_format(ptr addrspace(1) %o, ptr addrspace(1) %in) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %ri = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 0, i64 1024, i32 458752)
  %ro = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %o, i16 0, i64 1024, i32 458752)
  %off = shl i32 %id, 4
  %v = call <4 x float> @llvm.amdgcn.raw.ptr.buffer.load.format.v4f32(ptr addrspace(8) %ri, i32 %off, i32 0, i32 0)
  %w = fadd <4 x float> %v, <float 1.0, float 1.0, float 1.0, float 1.0>
  call void @llvm.amdgcn.raw.ptr.buffer.store.format.v4f32(<4 x float> %w, ptr addrspace(8) %ro, i32 %off, i32 0, i32 0)
  ret void
}
declare <4 x float> @llvm.amdgcn.raw.ptr.buffer.load.format.v4f32(ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.format.v4f32(<4 x float>, ptr addrspace(8), i32, i32, i32)
attributes #0 = { "amdgpu-no-implicitarg-ptr" "amdgpu-no-dispatch-ptr" "amdgpu-no-queue-ptr" "amdgpu-flat-work-group-size"="1,256" }
