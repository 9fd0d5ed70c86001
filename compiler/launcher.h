/*
 * launcher.h — generated launchers (`flyc --emit=launcher`).
 *
 * From a code object (raw, or a clang offload bundle) drv_emit_launcher writes
 * OUT_DIR/NAME.h and OUT_DIR/NAME.c: the code object embedded as a byte array and,
 * per kernel, a typed C entry point that loads the module through libflyrt's module
 * cache and launches the kernel, returning a flyrt_status (it never exits):
 *
 *   flyrt_status NAME_KERNEL(flyrt_device *dev, const flyrt_launch_config *cfg,
 *                            <one typed parameter per kernel argument>);
 *
 * Parameter types come from .flyc.meta when present (ptr -> flyrt_deviceptr, i32 ->
 * int32_t, u32 -> uint32_t, i64 -> int64_t, u64 -> uint64_t, f32 -> float, f16/bf16 ->
 * uint16_t bits), else from the AMDGPU note (buffers -> flyrt_deviceptr, 4/8-byte
 * values -> int32_t/int64_t, other sizes -> const void *). See docs/runtime.md.
 */
#ifndef FLYC_LAUNCHER_H
#define FLYC_LAUNCHER_H

#include <stddef.h>

/* Returns 0, or -1 with a message in err; never leaves a partial NAME.h or NAME.c.
 * basename must be a C identifier (it prefixes every generated name). */
int drv_emit_launcher(const void *codeobj, size_t size, const char *basename,
                      const char *out_dir, char *err, size_t errlen);

#endif
