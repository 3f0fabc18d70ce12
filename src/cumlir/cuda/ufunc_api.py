"""GPU ufuncs: ``cuda.vectorize`` and ``cuda.guvectorize`` (Numba-CUDA's), NumPy-like objects
calling kernels made by ``ufunc_kernels`` (see docs/ufuncs.md)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ..pickling import picklable_function
from ..ufunc_geometry import ELEMENTS_PER_THREAD
from .decorators import function_or_signatures, python_function

THREADS = 256  # per block; the kernels' grid-stride loops take any grid
MAX_BLOCKS = 1 << 20

if TYPE_CHECKING:
    from typing import TypeAlias

    from numba.core import types

    from ..dispatcher import Dispatcher
    from ..options import Options
    from ..typing.signatures import SignatureLike
    from .reduce_api import Reduce

    # the signatures given to vectorize and guvectorize: one, or a list of them
    Signatures: TypeAlias = SignatureLike | list[SignatureLike] | tuple[SignatureLike, ...]

# numba's vectorize options that mean nothing for GPU ufuncs, accepted as Numba-CUDA does
_IGNORED = ("nopython", "identity")


def _check_target(target, what):
    if target not in ("cuda", "gpu"):
        raise ValueError(f"{what}(target={target!r}): cumlir compiles GPU ufuncs only; use target='cuda'")


def _kernel_options(what, options):
    from ..options import Options

    if options.pop("cache", False):
        raise TypeError(f"{what}: caching is not supported for GPU ufuncs")
    for name in _IGNORED:
        options.pop(name, None)
    return Options.from_keywords(what, options)


def _signature_list(sigs):
    if sigs is None:
        return []
    return list(sigs) if isinstance(sigs, (list, tuple)) else [sigs]


@overload
def vectorize(ftylist_or_function: Callable[..., Any], target: str = "cuda", **options: Any) -> UFunc: ...


@overload
def vectorize(
    ftylist_or_function: Signatures = (), target: str = "cuda", **options: Any
) -> Callable[[Callable[..., Any]], UFunc]: ...


def vectorize(
    ftylist_or_function: Callable[..., Any] | Signatures = (), target: str = "cuda", **options: Any
) -> UFunc | Callable[[Callable[..., Any]], UFunc]:
    """``@cuda.vectorize(["float32(float32, float32)", ...])``: a GPU ufunc of a scalar function,
    one kernel per signature; with no signatures (``@cuda.vectorize`` or ``cuda.vectorize()``)
    a kernel is compiled for each new tuple of input dtypes at the call."""
    _check_target(target, "vectorize")
    opts = _kernel_options("vectorize", dict(options))
    function = function_or_signatures(ftylist_or_function, "cuda.vectorize")
    if function is not None:
        return UFunc(function, [], opts)

    def decorate(pyfunc: Callable[..., Any]) -> UFunc:
        return UFunc(python_function(pyfunc, "cuda.vectorize"), _signature_list(ftylist_or_function), opts)

    return decorate


def guvectorize(
    ftylist: Signatures, layout: str, target: str = "cuda", **options: Any
) -> Callable[[Callable[..., Any]], GUFunc]:
    """``@cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")``:
    a generalized GPU ufunc; outputs are the last arguments, written by the function."""
    _check_target(target, "guvectorize")
    opts = _kernel_options("guvectorize", dict(options))
    sigs = _signature_list(ftylist)
    if not sigs:
        raise TypeError("guvectorize needs a list of signatures")

    def decorate(pyfunc: Callable[..., Any]) -> GUFunc:
        return GUFunc(python_function(pyfunc, "cuda.guvectorize"), sigs, layout, opts)

    return decorate


def _launch(dispatcher, args, nelem, stream, per_thread=1):
    """Launch enough threads for *nelem* iterations, *per_thread* to a thread."""
    threads = (nelem + per_thread - 1) // per_thread
    blocks = max(1, min((threads + THREADS - 1) // THREADS, MAX_BLOCKS))
    dispatcher[blocks, THREADS, stream](*args)


def _compile_kernel(pyfunc, options):
    from ..dispatcher import Dispatcher

    return Dispatcher(pyfunc, options=options)


class _GPUUfunc:
    """What vectorize and guvectorize objects share: NumPy's ufunc attributes over the
    signatures compiled so far (``self._loops``: input dtypes -> a tuple whose first member
    is the output dtypes)."""

    nin: int
    nout: int
    _dynamic = False  # whether a call with new input dtypes compiles a loop for them (vectorize without signatures)
    # each kind's own: a loop for new input dtypes, and the call once no container defers it
    _add: Callable[[Any], tuple[np.dtype, ...]]
    _call: Callable[[tuple[Any, ...], Any, object], Any]

    def __init__(self, pyfunc: Callable[..., Any], options: Options) -> None:
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.options = options
        self._loops: dict[tuple[np.dtype, ...], tuple[Any, ...]] = {}
        self._kernels: dict[Any, Dispatcher] = {}  # the kernels' dispatchers, by signature (and loop rank)
        # calls from many threads: a loop or a kernel is made once, under the lock; a call
        # finding it made reads the dictionaries only
        self._lock = threading.RLock()

    @property
    def nargs(self) -> int:
        return self.nin + self.nout

    @property
    def types(self) -> list[str]:
        from ..ufunc_kernels import type_code

        return [
            "".join(map(type_code, ins)) + "->" + "".join(map(type_code, loop[0])) for ins, loop in self._loops.items()
        ]

    @property
    def ntypes(self) -> int:
        return len(self._loops)

    def _resolve(self, operands: list[Any]) -> tuple[np.dtype, ...]:
        """The input dtypes of the loop that takes *operands* (each with ``dtype`` and
        ``scalar``): NumPy's choice under safe casting, or a new loop where compiled on demand."""
        from .. import ufunc_kernels as uk

        described = [(op.dtype, op.scalar) for op in operands]
        chosen = uk.choose_signature(list(self._loops), described)
        if chosen is None and self._dynamic:
            with self._lock:  # another thread may have added it meanwhile
                chosen = uk.choose_signature(list(self._loops), described)
                if chosen is None:
                    chosen = self._add(tuple(uk.from_dtype(op.dtype) for op in operands))
        if chosen is None:
            got = ", ".join(str(op.dtype) for op in operands)
            raise TypeError(
                f"ufunc {self.__name__}: no signature accepts inputs of dtypes ({got}) with safe casting; "
                f"signatures: {', '.join(self.types)}"
            )
        return chosen

    def _result_dtypes(self, described: list[tuple[np.dtype, Any]]) -> tuple[np.dtype, ...]:
        """The output dtypes of a call with operands described by (dtype, the value where it
        is a scalar, else None): what a container applying this ufunc chunk by chunk is told."""
        from types import SimpleNamespace

        operands = [SimpleNamespace(dtype=dtype, scalar=value) for dtype, value in described]
        return self._loops[self._resolve(operands)][0]

    def __call__(self, *args: Any, out: Any = None, stream: object = 0) -> Any:
        from ..runtime.driver import CudaDriverError
        from ..runtime.placement import launch_device, on_device
        from .ufunc_protocol import container, defer

        owner = container(args, out)
        if owner is not None:  # a Dask array, say: it applies this ufunc to its chunks
            return defer(self, owner, args, out, stream)
        with on_device(launch_device(self.__name__, (*args, out))):  # where the arrays are
            try:
                return self._call(args, out, stream)
            except CudaDriverError as e:
                e.doing(f"GPU ufunc {self.__name__}")
                raise


class UFunc(_GPUUfunc):
    """A GPU ufunc: ``f(*inputs, out=None, stream=0)`` with NumPy broadcasting."""

    nout = 1
    signature = None  # NumPy's: an elementwise ufunc has no core dimensions

    def __init__(self, pyfunc: Callable[..., Any], signatures: list[SignatureLike], options: Options) -> None:
        super().__init__(pyfunc, options)
        self.nin = pyfunc.__code__.co_argcount  # inspect costs milliseconds to import
        self._dynamic = not signatures
        # self._loops: input dtypes -> ((output dtype,), argument types, result type, core)
        self._reducer: Reduce | None = None  # the Reduce of reduce(), made on first use
        for sig in signatures:
            self._add(sig)

    def __repr__(self) -> str:
        return f"<cumlir GPU ufunc {self.__name__}>"

    def __reduce__(self):
        # the function, the options and a signature per loop compiled (given, or made at a
        # call of a ufunc without signatures): never the kernels
        signatures = []
        if self._loops:
            from numba.core.typing.templates import signature

            signatures = [signature(loop[2], *loop[1]) for loop in self._loops.values()]
        return _rebuild_ufunc, (picklable_function(self.py_func), signatures, self.options, self._dynamic)

    def _add(self, sig):
        from .. import ufunc_kernels as uk

        argtypes, return_type = uk.parse_signature(sig)
        if len(argtypes) != self.nin:
            raise TypeError(
                f"{self.__name__} takes {self.nin} arguments, but the signature {sig!r} has {len(argtypes)}"
            )
        core, result = uk.device_function(self.py_func, argtypes, return_type)
        ins = tuple(uk.to_dtype(t) for t in argtypes)
        self._loops[ins] = ((uk.to_dtype(result),), tuple(argtypes), result, core)
        return ins

    def kernel(self, input_dtypes: tuple[np.dtype, ...]) -> Dispatcher:
        """The kernel of the signature *input_dtypes*: a cuda.jit dispatcher taking the inputs
        (arrays of any layout and element type, or scalars) and the output array."""
        dispatcher = self._kernels.get(input_dtypes)
        if dispatcher is None:
            with self._lock:
                dispatcher = self._kernels.get(input_dtypes)
                if dispatcher is None:
                    from ..ufunc_kernels import elementwise_kernel

                    _, argtypes, result, core = self._loops[input_dtypes]
                    pyfunc = elementwise_kernel(self.py_func, core, argtypes, result)
                    dispatcher = self._kernels[input_dtypes] = _compile_kernel(pyfunc, self.options)
        return dispatcher

    def kernel_for(self, sig: SignatureLike) -> tuple[Callable[..., Any], list[types.Array]]:
        """(the kernel's Python function, its argument types) of the scalar signature *sig*
        for 1-d C-contiguous operands (what ``python -m cumlir --emit`` compiles)."""
        from numba.core import types

        from .. import ufunc_kernels as uk

        argtypes, _ = uk.parse_signature(sig)
        dtypes = tuple(uk.to_dtype(t) for t in argtypes)
        with self._lock:
            if dtypes not in self._loops:
                self._add(sig)
        result = self._loops[dtypes][2]
        arrays = [types.Array(t, 1, "C") for t in (*argtypes, result)]
        return self.kernel(dtypes).py_func, arrays

    def _launched_directly(self, args, out, stream):
        """The common call, 1-d device arrays of one length and of the dtypes of a signature
        writing into a device array of its result dtype, launched with the arrays as they are:
        nothing to broadcast, convert or copy. False, having done nothing, for any other call."""
        from ..runtime.ufunc_args import direct_type

        shape = getattr(out, "shape", None)
        if not direct_type(type(out)) or len(shape) != 1 or getattr(out, "_readonly", False):
            return False
        for a in args:
            if not direct_type(type(a)) or a.shape != shape:
                return False
        dtypes = tuple(a.dtype for a in args)
        loop = self._loops.get(dtypes)
        if loop is None or loop[0][0] != out.dtype:
            return False
        if shape[0]:
            _launch(self.kernel(dtypes), (*args, out), shape[0], stream, ELEMENTS_PER_THREAD)
        return True

    def reduce(self, arg: Any, stream: object = 0) -> Any:
        """The reduction of the 1-d array *arg* by this binary ufunc (Numba-CUDA's
        ``ufunc.reduce``): a tree of applications, so the function should be associative and
        commutative; a NumPy scalar."""
        from ..runtime import ufunc_args as ua
        from .reduce_api import Reduce

        if self.nin != 2:
            raise TypeError(f"ufunc {self.__name__}: reduce needs a binary ufunc, this one takes {self.nin} inputs")
        array = ua.operand(arg, 0)
        if array.kind == "scalar" or len(array.shape) != 1:
            raise TypeError(f"ufunc {self.__name__}: reduce takes a 1-d array, got shape {tuple(array.shape)}")
        if array.shape[0] == 0:
            raise TypeError("Reduction on an empty array.")
        self._resolve([array, array])  # a signature must take two of its elements
        with self._lock:
            if self._reducer is None:
                self._reducer = Reduce(self.py_func)
        zero = array.dtype.type(0)
        partials = self._reducer._reduce(ua.on_device(array, stream), array.shape[0], zero, stream, use_init=False)
        return self._reducer._first(partials, stream)

    def _call(self, args: tuple[Any, ...], out: Any, stream: object) -> Any:
        from ..runtime import ufunc_args as ua

        if len(args) == self.nin + 1 and out is None:
            args, out = args[:-1], args[-1]
        if len(args) != self.nin:
            raise TypeError(f"ufunc {self.__name__} takes {self.nin} inputs, got {len(args)}")
        if out is not None and self._launched_directly(args, out, stream):
            return out
        operands = [ua.operand(a, k) for k, a in enumerate(args)]
        input_dtypes = self._resolve(operands)
        result_dtype = self._loops[input_dtypes][0][0]
        shape = ua.broadcast_shape([op.shape for op in operands])
        arrays = [op for op in operands if op.kind != "scalar"]
        if out is not None:
            shape = _output_shape(out, shape)
        device_out, host_out = ua.output(out, shape, result_dtype, stream, self.nin)
        run_shape = shape or (1,)  # 0-d calls run on one element
        kernel_args = []
        for op, dtype in zip(operands, input_dtypes):
            if op.kind == "scalar":
                kernel_args.append(np.dtype(dtype).type(op.value))
            else:
                view = ua.on_device(op, stream)
                if not view.shape:
                    view = view._view((1,), (0,))
                kernel_args.append(ua.broadcast_view(view, run_shape))
        target = device_out if shape else device_out._view((1,), (0,))
        kernel_args.append(target)
        positions = [k for k, a in enumerate(kernel_args) if k == len(kernel_args) - 1 or operands[k].kind != "scalar"]
        for k, view in zip(positions, ua.coalesce([kernel_args[k] for k in positions])):
            kernel_args[k] = view
        count = int(np.prod(run_shape))
        if count:
            _launch(self.kernel(input_dtypes), kernel_args, count, stream, ELEMENTS_PER_THREAD)
        any_device = any(op.kind == "device" for op in arrays)
        result = ua.finish(device_out, host_out, not any_device and out is None, stream)
        if out is not None:
            return out  # as NumPy: the array given, filled
        if not shape and not any_device:
            return result[()]
        return result


def _rebuild_ufunc(pyfunc, signatures, options, dynamic):
    """A UFunc unpickled: its loops typed again; one without signatures still compiles at calls."""
    ufunc = UFunc(pyfunc, signatures, options)
    ufunc._dynamic = dynamic
    return ufunc


def _output_shape(out, shape):
    """The shape of *out*, checked: the inputs' broadcast shape must broadcast to it (NumPy's rule)."""
    out_shape = tuple(getattr(out, "shape", np.shape(out)))
    try:
        fits = tuple(np.broadcast_shapes(shape, out_shape)) == out_shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"out has shape {out_shape}, which the inputs' broadcast shape {shape} does not broadcast to")
    return out_shape


class GUFunc(_GPUUfunc):
    """A generalized GPU ufunc: ``f(*inputs, [*outputs], out=None, stream=0)``; the leading
    (loop) axes of the operands broadcast, the trailing (core) axes follow the layout."""

    def __init__(
        self, pyfunc: Callable[..., Any], signatures: list[SignatureLike], layout: str, options: Options
    ) -> None:
        from ..ufunc_kernels import parse_layout

        super().__init__(pyfunc, options)
        self.layout = self.signature = layout
        self._core_in, self._core_out = parse_layout(layout)
        self.nin, self.nout = len(self._core_in), len(self._core_out)
        # self._loops: input dtypes -> (output dtypes, appended axes, core dispatcher)
        self._signatures = list(signatures)
        for sig in signatures:
            self._add(sig)

    def __repr__(self) -> str:
        return f"<cumlir generalized GPU ufunc {self.__name__} {self.layout}>"

    def __reduce__(self):
        # what guvectorize was given (its signatures are all it compiles), never the kernels
        return GUFunc, (picklable_function(self.py_func), self._signatures, self.layout, self.options)

    def _add(self, sig):
        from numba.core import types

        from .. import ufunc_kernels as uk
        from ..typing.frontend import DeviceDispatcher

        argtypes, _ = uk.parse_signature(sig)
        cores = self._core_in + self._core_out
        if len(argtypes) != len(cores):
            raise TypeError(
                f"the signature {sig!r} has {len(argtypes)} arguments, the layout {self.layout!r} {len(cores)}"
            )
        appended, passed = [], []
        for k, (ty, core) in enumerate(zip(argtypes, cores)):
            ndim = ty.ndim if isinstance(ty, types.Array) else 0
            if k >= self.nin and not isinstance(ty, types.Array):
                raise TypeError(f"{self.__name__}: output argument {k} must be an array in the signature, not {ty}")
            extra = not core and ndim == 1  # a () operand the function takes as a 1-element array
            if ndim != len(core) and not extra:
                raise TypeError(
                    f"{self.__name__}: argument {k} is {ty} in the signature but has {len(core)} core axes in the layout"
                )
            appended.append(extra)
            passed.append(types.Array(ty.dtype, ndim, "A") if ndim else ty)
        uk.device_function_checked(self.py_func, passed)
        dtypes = tuple(uk.to_dtype(t.dtype if isinstance(t, types.Array) else t) for t in argtypes)
        self._loops[dtypes[: self.nin]] = (
            dtypes[self.nin :],
            tuple(appended),
            DeviceDispatcher(self.py_func, self.options),
        )

    def kernel(self, input_dtypes: tuple[np.dtype, ...], nloop: int) -> Dispatcher:
        key = (input_dtypes, nloop)
        dispatcher = self._kernels.get(key)
        if dispatcher is None:
            with self._lock:
                dispatcher = self._kernels.get(key)
                if dispatcher is None:
                    from ..ufunc_kernels import gufunc_kernel

                    core = self._loops[input_dtypes][2]
                    pyfunc = gufunc_kernel(self.py_func, core, self.nargs, nloop)
                    dispatcher = self._kernels[key] = _compile_kernel(pyfunc, self.options)
        return dispatcher

    def kernel_for(self, sig: SignatureLike) -> tuple[Callable[..., Any], list[types.Array]]:
        """(the kernel's Python function, its argument types) of the signature *sig* (one of
        this gufunc's) with one loop axis (what ``python -m cumlir --emit`` compiles)."""
        from numba.core import types

        from .. import ufunc_kernels as uk

        argtypes, _ = uk.parse_signature(sig)
        dtypes = tuple(uk.to_dtype(t.dtype if isinstance(t, types.Array) else t) for t in argtypes)
        if dtypes[: self.nin] not in self._loops:
            raise ValueError(f"{self.__name__} has no signature {sig!r}; it has {', '.join(self.types)}")
        appended = self._loops[dtypes[: self.nin]][1]
        cores = self._core_in + self._core_out
        arrays = [
            types.Array(uk.from_dtype(d), 1 + len(core) + extra, "A") for d, core, extra in zip(dtypes, cores, appended)
        ]
        return self.kernel(dtypes[: self.nin], 1).py_func, arrays

    def _call(self, args: tuple[Any, ...], out: Any, stream: object) -> Any:
        from ..runtime import ufunc_args as ua

        outs = list(args[self.nin :])
        args = args[: self.nin]
        if out is not None:
            if outs:
                raise TypeError(f"{self.__name__}: outputs given both as arguments and as out=")
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(args) != self.nin or len(outs) not in (0, self.nout):
            raise TypeError(f"{self.__name__} takes {self.nin} inputs and optionally {self.nout} outputs")
        operands = [ua.operand(a, k) for k, a in enumerate(args)]
        input_dtypes = self._resolve(operands)
        output_dtypes, appended, _ = self._loops[input_dtypes]
        sizes: dict[str, int] = {}  # core dimension name -> its size
        loop_shapes: list[tuple[int, ...]] = []
        for k, (op, core) in enumerate(zip(operands, self._core_in)):
            loop_shapes.append(_bind_core(self.__name__, k, op.shape, core, sizes))
        out_ops = [ua.operand(o, self.nin + k) for k, o in enumerate(outs)]
        for k, (op, core) in enumerate(zip(out_ops, self._core_out)):
            if op.kind == "scalar":
                raise TypeError(f"{self.__name__}: output {k} must be an array")
            loop_shapes.append(_bind_core(self.__name__, self.nin + k, op.shape, core, sizes))
        loop = ua.broadcast_shape(loop_shapes, "the loop dimensions of the operands")
        for k, op in enumerate(out_ops):
            if tuple(op.shape[: len(loop)]) != loop or len(op.shape) != len(loop) + len(self._core_out[k]):
                raise ValueError(
                    f"{self.__name__}: output {k} has shape {op.shape}, but the loop dimensions are {loop}"
                )
        kernel_args = []
        for k, (op, dtype, core) in enumerate(zip(operands, input_dtypes, self._core_in)):
            if op.kind == "device" and op.dtype != dtype:
                raise TypeError(
                    f"{self.__name__}: argument {k} is a device array of dtype {op.dtype}; this signature takes {dtype}"
                )
            if op.kind != "device":
                op = ua.Operand("host", np.asarray(op.value, dtype=dtype), np.dtype(dtype))
            view = ua.on_device(op, stream)
            kernel_args.append(_kernel_view(view, loop, core, appended[k]))
        results, copies = [], []
        for k, (dtype, core) in enumerate(zip(output_dtypes, self._core_out)):
            shape = loop + tuple(sizes[name] for name in core)
            if out_ops:
                if out_ops[k].dtype != dtype:
                    raise TypeError(
                        f"{self.__name__}: output {k} has dtype {out_ops[k].dtype}; this signature writes {dtype}"
                    )
                device_out, host_out = ua.output(outs[k], shape, dtype, stream, self.nin + k)
            else:
                device_out, host_out = ua.output(None, shape, dtype, stream, self.nin + k)
            results.append(device_out)
            copies.append(host_out)
            kernel_args.append(_kernel_view(device_out, loop, core, appended[self.nin + k]))
        count = int(np.prod(loop)) if loop else 1
        if count:  # core axes of extent 0 still run the function once per loop position, as NumPy does
            _launch(self.kernel(input_dtypes, max(len(loop), 1)), kernel_args, count, stream)
        any_device = any(op.kind == "device" for op in operands) or any(op.kind == "device" for op in out_ops)
        to_host = not any_device and not out_ops
        finished = [ua.finish(r, h, to_host, stream) for r, h in zip(results, copies)]
        if to_host and not loop:  # no loop axes and scalar outputs: NumPy scalars, as NumPy gives
            finished = [f[()] if f.ndim == 0 else f for f in finished]
        if outs:
            finished = outs  # as NumPy: the arrays given, filled
        return finished[0] if self.nout == 1 else tuple(finished)


def _bind_core(name, index, shape, core, sizes):
    """Bind the core dimension names of argument *index* to the trailing extents of *shape*;
    its loop dimensions (the leading extents)."""
    if len(shape) < len(core):
        raise ValueError(
            f"{name}: argument {index} has {len(shape)} axes, its layout needs at least {len(core)} core axes"
        )
    loop_part = tuple(shape[: len(shape) - len(core)])
    for dim, extent in zip(core, shape[len(shape) - len(core) :]):
        if sizes.setdefault(dim, extent) != extent:
            raise ValueError(
                f"{name}: core dimension {dim} is {sizes[dim]} in an earlier argument but {extent} in argument {index}"
            )
    return loop_part


def _kernel_view(array, loop, core, appended):
    """*array* seen with the loop axes *loop* broadcast (at least one loop axis), its core axes
    kept, and a trailing axis of one element where the function takes a () operand as an array."""
    from ..runtime.ufunc_args import broadcast_view

    ncore = len(core)
    core_shape = tuple(array.shape[array.ndim - ncore :]) if ncore else ()
    core_strides = tuple(array.strides[array.ndim - ncore :]) if ncore else ()
    leading = array._view(tuple(array.shape[: array.ndim - ncore]), tuple(array.strides[: array.ndim - ncore]))
    run_loop = loop or (1,)
    if not leading.shape:
        leading = leading._view((1,), (0,))
    loop_view = broadcast_view(leading, run_loop)
    shape = tuple(loop_view.shape) + core_shape
    strides = tuple(loop_view.strides) + core_strides
    if appended:
        shape, strides = shape + (1,), strides + (array.itemsize,)
    return array._view(shape, strides)
