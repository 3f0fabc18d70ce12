"""The one lock of the compiler's frontend: numba's typing and cumlir's lowering.

Numba's type inference keeps process-wide state (the typing context's registries and
caches, the dispatchers being typed, the target in use), cumlir's installers fill the
typing and lowering registries once from the operation modules, and device functions are
typed on demand while their callers are typed or lowered. None of it may be entered by
two threads at once, so the ``typed`` and ``mlir`` stages, and everything that types a
device function or installs declarations, hold this lock. It is re-entrant: lowering
types device functions, typing installs declarations. The stages after ``mlir`` (MLIR
passes, code generation, linking) run outside it, each thread in its own MLIR context
(mlir_context.py), limited only by what of them holds Python's GIL.
"""

import threading

FRONTEND_LOCK = threading.RLock()
