"""How the loops of GPU ufuncs spread over the grid: the code generator makes them
(codegen/passes/parallel_loops.py), the ufunc objects size the grid by it (cuda/ufunc_api.py).
Plain data, so that ``from cumlir import cuda`` imports no intrinsics for it."""

# iterations of an elementwise loop one thread runs at a time
ELEMENTS_PER_THREAD = 4
