; tests/sim/bufoob.ll — buffer range checking under a resource the test chooses
; (tests/sim/bufoob.py compiles it with llc-22 for gfx950 and gfx1201 and runs
; it with several word3 values, strides and num_records against its model).
; 64 lanes (two waves on gfx1201); every load and store goes through
; rsrc(in, stride, nrec, w3) (loads) or rsrc(st, stride, nrec, w3) (stores):
;   o[l]             = raw load b32 at voffset 4l
;   o[64 + l]        = struct load b32 of record l/4 at voffset 4(l%4)
;   o[128 + 4l .. 3] = raw load b128 at voffset 12l (each dword checked)
;   o[384 + l]       = raw load b32 at voffset 4l, soffset %so
;   st: raw store b32 of l + 1 at voffset 4l; struct store b32 of l + 1001 of
;       record l/4 at voffset 256 + 4(l%4); raw store b32 of l + 2001 at
;       voffset 4l, soffset %so + 496
; (soffset counts toward the bounds check, as the instruction offset does)
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k_bufoob(ptr addrspace(1) %o, ptr addrspace(1) %in, ptr addrspace(1) %st,
                                    i32 %stride, i32 %nrec, i32 %w3, i32 %so) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %s16 = trunc i32 %stride to i16
  %n64 = zext i32 %nrec to i64
  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 %s16, i64 %n64, i32 %w3)
  %w = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %st, i16 %s16, i64 %n64, i32 %w3)
  %v4 = shl i32 %id, 2
  %a = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %r, i32 %v4, i32 0, i32 0)
  %rec = lshr i32 %id, 2
  %q = and i32 %id, 3
  %qo = shl i32 %q, 2
  %b = call i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8) %r, i32 %rec, i32 %qo, i32 0, i32 0)
  %v12 = mul i32 %id, 12
  %c = call <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8) %r, i32 %v12, i32 0, i32 0)
  %pa = getelementptr i32, ptr addrspace(1) %o, i32 %id
  store i32 %a, ptr addrspace(1) %pa
  %i64 = add i32 %id, 64
  %pb = getelementptr i32, ptr addrspace(1) %o, i32 %i64
  store i32 %b, ptr addrspace(1) %pb
  %i128 = add i32 %v4, 128
  %pc = getelementptr i32, ptr addrspace(1) %o, i32 %i128
  store <4 x i32> %c, ptr addrspace(1) %pc, align 4
  %x = add i32 %id, 1
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %x, ptr addrspace(8) %w, i32 %v4, i32 0, i32 0)
  %y = add i32 %id, 1001
  %qs = add i32 %qo, 256
  call void @llvm.amdgcn.struct.ptr.buffer.store.i32(i32 %y, ptr addrspace(8) %w, i32 %rec, i32 %qs, i32 0, i32 0)
  %d = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %r, i32 %v4, i32 %so, i32 0)
  %i384 = add i32 %id, 384
  %pd = getelementptr i32, ptr addrspace(1) %o, i32 %i384
  store i32 %d, ptr addrspace(1) %pd
  %z = add i32 %id, 2001
  %so2 = add i32 %so, 496
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %z, ptr addrspace(8) %w, i32 %v4, i32 %so2, i32 0)
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
declare <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8), i32, i32, i32)
declare i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.struct.ptr.buffer.store.i32(i32, ptr addrspace(8), i32, i32, i32, i32)
