"""GPU ufuncs called on containers that implement NumPy's ``__array_ufunc__`` protocol: Dask
arrays, xarray objects and the like.

NumPy hands ``np.sin(dask_array)`` to the array's ``__array_ufunc__``, which applies the
ufunc to each chunk. A cumlir GPU ufunc is not a ``numpy.ufunc``, so it asks the container
itself: given such an operand it calls the operand's ``__array_ufunc__`` with a PerChunk of
itself, and the container applies that to its chunks (a Dask task graph, say), each call
then an ordinary GPU ufunc call on a chunk. Two details make chunks of CuPy arrays work:
the PerChunk returns a CuPy array where its inputs are CuPy arrays (a container joins
chunks of one kind), and Dask is told the result's dtypes, which it would otherwise learn
by calling the ufunc on small host arrays in the client (on the client's GPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# operands launched or read directly: never a container to defer to
_PLAIN = (np.ndarray, np.generic, int, float, complex, bool)


def container(args: tuple[Any, ...], out: Any) -> Any:
    """The first operand (or output) that implements ``__array_ufunc__`` and is not an array
    the GPU ufunc reads itself (NumPy's, CuPy's, any CUDA Array Interface object); or None."""
    outs = out if isinstance(out, tuple) else (out,)
    for value in (*args, *outs):
        if value is None or isinstance(value, _PLAIN):
            continue
        kind = type(value)
        if getattr(kind, "__array_ufunc__", None) is None or hasattr(kind, "__cuda_array_interface__"):
            continue
        return value
    return None


def defer(ufunc: Any, owner: Any, args: tuple[Any, ...], out: Any, stream: object) -> Any:
    """``ufunc(*args, out=out)`` done by *owner*'s ``__array_ufunc__`` with a PerChunk."""
    name = ufunc.__name__
    if stream:
        raise TypeError(
            f"ufunc {name}: stream= cannot be given with a {type(owner).__name__} operand, whose chunks are "
            "computed where and when it decides"
        )
    kwargs: dict[str, Any] = {}
    if out is not None:
        kwargs["out"] = out if isinstance(out, tuple) else (out,)
    if type(owner).__module__.split(".", 1)[0] == "dask":
        dtypes = ufunc._result_dtypes([_dtype_of(a, k, name) for k, a in enumerate(args)])
        if ufunc.signature is None:
            kwargs["dtype"] = dtypes[0]
        else:
            kwargs["output_dtypes"] = dtypes[0] if len(dtypes) == 1 else list(dtypes)
    result = owner.__array_ufunc__(PerChunk(ufunc), "__call__", *args, **kwargs)
    if result is NotImplemented:
        raise TypeError(f"ufunc {name}: a {type(owner).__name__} operand does not take GPU ufuncs")
    return result


def _dtype_of(value: Any, index: int, name: str) -> tuple[np.dtype, Any]:
    """(dtype, the value where it is a scalar, else None) of an operand, for choosing a loop."""
    if isinstance(value, (int, float, complex, bool, np.generic)):
        return np.asarray(value).dtype, value
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        raise TypeError(f"ufunc {name}: argument {index}, a {type(value).__name__}, has no dtype")
    return np.dtype(dtype), None


class PerChunk:
    """A GPU ufunc as a container applies it to one chunk: NumPy's ufunc attributes read
    through, and results of CuPy inputs given back as CuPy arrays (views of the results)."""

    def __init__(self, ufunc: Any) -> None:
        self.ufunc = ufunc

    def __getattr__(self, name: str) -> Any:
        if name == "ufunc" or name.startswith("__"):  # not set yet (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.ufunc, name)

    @property
    def __name__(self) -> str:
        return self.ufunc.__name__

    def __reduce__(self) -> tuple[Any, ...]:
        return PerChunk, (self.ufunc,)

    def __repr__(self) -> str:
        return f"<per-chunk {self.ufunc!r}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self.ufunc(*args, **kwargs)
        if "out" in kwargs or not any(type(a).__module__.startswith("cupy") for a in args):
            return result
        import cupy

        if isinstance(result, tuple):
            return tuple(cupy.asarray(r) for r in result)
        return cupy.asarray(result)
