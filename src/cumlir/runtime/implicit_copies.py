"""Numba-CUDA's performance warning for a host array copied to the device implicitly
(a NumPy argument of a launch, ``auto_device``)."""

from __future__ import annotations

import os
import sys
import types
import warnings


class ImplicitCopyWarning(UserWarning):
    """The implicit copy's warning in a process that has not loaded numba (every kernel it
    launched came from the disk cache, which needs no numba): warning with numba's class
    would load it."""


def warn_of_the_copy() -> None:
    """Numba-CUDA's performance warning for a host array copied around a launch, unless
    NUMBA_CUDA_WARN_ON_IMPLICIT_COPY=0 or NUMBA_DISABLE_PERFORMANCE_WARNINGS=1 (or their
    CUMLIR_ spellings)."""
    for name, quiet in (("WARN_ON_IMPLICIT_COPY", "0"), ("DISABLE_PERFORMANCE_WARNINGS", "1")):
        setting = os.environ.get(
            f"CUMLIR_{name}", os.environ.get(f"NUMBA_CUDA_{name}", os.environ.get(f"NUMBA_{name}"))
        )
        if setting == quiet:
            return
    warnings.warn(
        "Host array used in CUDA kernel will incur copy overhead to/from device: copy it once with "
        "cuda.to_device, or use a mapped or managed array",
        _category(),
        stacklevel=_callers_level(),
    )


def _category() -> type[Warning]:
    errors = sys.modules.get("numba.core.errors")  # numba's NumbaPerformanceWarning where numba is loaded
    return errors.NumbaPerformanceWarning if errors is not None else ImplicitCopyWarning


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # cumlir's folder


def _callers_level() -> int:
    """The stack level of the first frame outside cumlir: the line that launched."""
    frame: types.FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
