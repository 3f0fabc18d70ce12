"""The process-wide MLIR context. Creating one costs about 10 ms, so there is only one."""

_context = None


def mlir_context():
    global _context
    if _context is None:
        from mlir import ir

        _context = ir.Context()
    return _context
