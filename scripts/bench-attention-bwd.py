#!/usr/bin/python3
"""scripts/bench-attention-bwd.py [BUILD] [--quick] — attention_backward's kernels
(stdlib/ops/attention_bwd.fly; docs/ops.md "Attention backward") in make bench:

(the kernels' VGPRs, spills, LDS and occupancy: scripts/bench-resources.py, with every
other kernel of the library) modelled rows: the timing model's µs of one call (its three launches, MI355X, 8 sampled
workgroups per launch, timing only) at B = 1, H = 16, D = 128, causal and not, S = 4096
and 16384 (--quick: 1024), and D = 512 at S = 1024, bf16, with TFLOPS = the backward's 2.5 x 4·S²·D·H FLOP (x 1/2 causal)
over the modelled time — the model's figures, not measurements."""
import os
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
build = os.path.abspath(args[0] if args else os.path.join(top, "build"))
quick = "--quick" in sys.argv

os.environ["FLYRT_LIB"] = os.path.join(build, "libflyrt.so")
sys.path.insert(0, os.path.join(top, "python"))
import torch  # noqa: E402
import flyc  # noqa: E402

H = 16
# D = 512 at S = 1024 only: a modelled call of S = 4096 takes a minute of simulation
for S, D in (((1024, 128),) if quick else ((4096, 128), (16384, 128), (1024, 512))):
    for causal in (False, True):
        x = torch.randn(1, H, S, D).to(torch.bfloat16)
        lse = torch.zeros(1, H, S)
        with flyc.ops.timing(sample=8, timing_only=True) as t:
            flyc.ops.attention_backward(x, x, x, x, x, lse, causal=causal)
        flop = 2.5 * 4 * S * S * D * H * (0.5 if causal else 1.0)
        print("attention_backward bf16 B1 H%d S%d D%d %-6s %10.1f us  %6.1f TFLOPS (modelled, %d launches)"
              % (H, S, D, "causal" if causal else "full", t["total_us"], flop / t["total_us"] / 1e6,
                 t["total_launches"]))
