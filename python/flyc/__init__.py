"""flyc: FlyDSL kernels for PyTorch users — the operator library (docs/ops.md).

    import torch, flyc
    c = flyc.ops.mm(a, b)                  # torch tensors; CPU ones run on the simulator
    flyc.ops.supported("mm", a, b)         # (bool, reason), launches nothing
    flyc.torch.enable()                    # torch.mm / a @ b take flyc's kernels when they qualify
    flyc.torch.stats()                     # {"mm": {"taken": n, "declined": n}}

flyc.Unsupported (a subclass of flyrt.Unsupported) is raised, with the reason, for a call
no kernel computes yet; fall back to another implementation. flyc.configure() chooses
the device, the kernel library and the tuning database (defaults: FLY_DEVICE,
FLYC_KERNEL_DIR or the library beside libflyrt, FLYC_TUNING_DB).

flyc.torch is imported on first use (it needs torch; flyc.ops also takes numpy arrays).
"""

from ._lib import Unsupported, configure, context, version
from . import ops

__all__ = ["ops", "torch", "Unsupported", "configure", "context", "version"]
__version__ = version


def __getattr__(name):
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError("module 'flyc' has no attribute %r" % name)
