"""``cuda.libdevicefuncs``: libdevice's routines as data, as Numba-CUDA's and numba-cuda-mlir's
modules of that name hold them: ``functions`` maps each routine's C name (``__nv_sinf``) to its
result type and its arguments, and ``create_signature`` gives the signature
``cuda.libdevice.<name>`` has (what libdevice writes through a pointer is returned instead).

The table is cumlir's (``cumlir/operations/cuda/libdevice.py``), so these are exactly the routines
``cuda.libdevice`` provides. libdevice's headers name the arguments; here they are named by
position (``x``, ``y``, ``z``), pointers ``out0``, ``out1``."""

import importlib
from collections import namedtuple
from typing import Any

arg = namedtuple("arg", ("name", "ty", "is_ptr"))

_POSITIONAL = ("x", "y", "z", "w")


def _table():
    return importlib.import_module("cumlir.operations.cuda.libdevice")


def _functions() -> dict[str, tuple[Any, list[arg]]]:
    from numba.core import types

    table = _table()
    letter_type = {letter: getattr(types, name) for letter, name in table.LETTERS.items()}
    functions = {}
    for name, (result, shape) in table.ROUTINES.items():
        args, read, written = [], 0, 0
        for letter, pointer in shape:
            if pointer:
                args.append(arg(f"out{written}", letter_type[letter], True))
                written += 1
            else:
                args.append(arg(_POSITIONAL[read], letter_type[letter], False))
                read += 1
        functions[f"__nv_{name}"] = (letter_type[result], args)
    return functions


def create_signature(retty: Any, args: list[arg]) -> Any:
    """The signature of the routine returning *retty* and taking *args* as kernels call it: the
    arguments it reads, and its result followed by what it writes (a tuple if several)."""
    from numba.core import types
    from numba.core.typing.templates import signature

    results = [] if retty == types.none else [retty]
    results += [a.ty for a in args if a.is_ptr]
    if not results:
        raise ValueError("a libdevice routine returns something or writes through a pointer")
    return signature(results[0] if len(results) == 1 else types.Tuple(results), *[a.ty for a in args if not a.is_ptr])


def __getattr__(name: str) -> Any:
    if name == "functions":  # built on first use: it loads numba's types
        value = globals()["functions"] = _functions()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
