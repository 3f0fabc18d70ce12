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

syncthreads = Stub(
    "syncthreads",
    "syncthreads(): wait until every thread of the block has reached this point and the "
    "block's shared and global memory accesses made before it are visible to all of them.",
)


class MemoryNamespace(Stub):
    """shared, local and const: namespaces whose functions allocate arrays in a memory space."""

    def __init__(self, name, doc, functions):
        super().__init__(name, doc)
        for function, function_doc in functions.items():
            setattr(self, function, Stub(f"{name}.{function}", function_doc))


shared = MemoryNamespace(
    "shared",
    "Arrays in the block's shared memory.",
    {
        "array": "array(shape, dtype, alignment=None): a C-layout array in shared memory, one per "
        "block and call site; shape 0 makes it use the launch's dynamic shared memory.",
    },
)
local = MemoryNamespace(
    "local",
    "Arrays private to each thread.",
    {"array": "array(shape, dtype, alignment=None): a C-layout array private to the thread."},
)
const = MemoryNamespace(
    "const",
    "Arrays in constant memory.",
    {"array_like": "array_like(ndarray): a copy of a module-level NumPy array in constant memory."},
)

_ALL = {
    s.__name__: s
    for s in (threadIdx, blockIdx, blockDim, gridDim, grid, gridsize, syncthreads, shared, local, const)
}
_ALL.update({f.__name__: f for f in (shared.array, local.array, const.array_like)})


def _stub_by_name(name):
    return _ALL[name]
