"""Objects that stand for CUDA intrinsics inside kernels.

They carry no behaviour on the host: the compiler recognises them by identity
(see ``cumlir.typing.cudadecl``) and lowers each use to MLIR.
"""


class Stub:
    """A name that only has a meaning inside a kernel or device function."""

    def __init__(self, name, doc):
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc

    def __repr__(self):
        return f"<cumlir.cuda.{self.__name__}>"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"cuda.{self.__name__} can only be used inside a function compiled with @cuda.jit"
        )

    def __reduce__(self):
        # Stubs are singletons: pickling refers to them by name.
        return (_stub_by_name, (self.__name__,))


class Dim3Stub(Stub):
    """threadIdx, blockIdx, blockDim and gridDim: .x, .y and .z are int32 in kernels."""

    def __getattr__(self, attr):
        if attr in ("x", "y", "z"):
            raise RuntimeError(
                f"cuda.{self.__name__}.{attr} can only be read inside a function compiled with @cuda.jit"
            )
        raise AttributeError(attr)


threadIdx = Dim3Stub("threadIdx", "The thread's index within its block.")
blockIdx = Dim3Stub("blockIdx", "The block's index within the grid.")
blockDim = Dim3Stub("blockDim", "The shape of a block, in threads.")
gridDim = Dim3Stub("gridDim", "The shape of the grid, in blocks.")

grid = Stub(
    "grid",
    "grid(ndim): the thread's absolute position in the grid; an int64 for ndim=1, "
    "else a tuple of ndim int64.",
)
gridsize = Stub(
    "gridsize",
    "gridsize(ndim): the grid's shape in threads; an int64 for ndim=1, else a tuple of ndim int64.",
)

_ALL = {s.__name__: s for s in (threadIdx, blockIdx, blockDim, gridDim, grid, gridsize)}


def _stub_by_name(name):
    return _ALL[name]
