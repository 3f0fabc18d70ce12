"""See cumlir.mlir.dialects."""

from ..mlir.dialects import __getattr__  # noqa: F401
