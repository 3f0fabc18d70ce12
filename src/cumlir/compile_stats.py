"""Where compile time goes: the stages' timings of one kernel signature, as
``kernel.compile_stats`` gives them and ``CUMLIR_COMPILE_STATS=1`` prints them."""

import os
from collections.abc import Mapping
from typing import Any

# compiler stage -> the figure it adds to
FIGURE_OF_STAGE = {
    "typed": "frontend",
    "mlir": "lowering",
    "optimized": "passes",
    "llvm": "passes",
    "codegen": "codegen",
    "cubin": "link",
}
# the figures in pipeline order, with the label printed for each
LABELS = {
    "frontend": "frontend (typing)",
    "lowering": "lowering (MLIR build)",
    "passes": "MLIR passes",
    "codegen": "codegen (PTX/LTO-IR)",
    "link": "link",
    "cache_read": "cache read",
    "cache_write": "cache write",
    "load": "load",
}


def requested() -> bool:
    """Whether ``CUMLIR_COMPILE_STATS`` asks for the table."""
    return os.environ.get("CUMLIR_COMPILE_STATS", "").strip().lower() in ("1", "true", "yes", "on")


def table(title: str, stats: Mapping[str, Any]) -> str:
    """The figures of *stats* (seconds, and the cache's verdict) as lines of text."""
    lines = [f"cumlir compile stats: {title}"]
    total = 0.0
    for figure, label in LABELS.items():
        seconds = stats.get(figure)
        if seconds is not None:
            total += seconds
            lines.append(f"  {label:<24}{seconds * 1e3:10.2f} ms")
    lines.append(f"  {'total':<24}{total * 1e3:10.2f} ms")
    if "cache" in stats:
        lines.append(f"  {'cache':<24}{stats['cache']:>13}")
    return "\n".join(lines)
