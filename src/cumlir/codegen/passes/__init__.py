"""The MLIR passes of the ``optimized`` and ``llvm`` stages, whatever the code generator:
the pass pipelines (pipeline.py), the grid-stride loops of GPU ufuncs (parallel_loops.py)
and the marking of counted loops for unrolling (counted_loops.py)."""
