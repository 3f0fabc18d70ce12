"""Agreement with numba-cuda across the whole GPU tier (a pytest plugin).

Loaded with ``-p tests.agreement`` on a GPU machine where numba-cuda is installed, it
repeats every kernel launch the tests make (``kernel[grid, block](...)``) under
numba-cuda, on copies of the arguments taken before cumlir's launch, and compares what
each left in the arrays: integers and booleans bit for bit, floats within the rounding
FMA contraction allows (both contract ``a * b + c``, not always the same pairs), NaN where
NaN. A difference fails the test that launched the kernel, naming the argument and
the first differing element.

A launch is compared only where both sides are defined by the same source: the
kernel's Python function is rebuilt with ``cuda`` and cumlir's device functions,
namespaces and modules replaced by numba-cuda's. Kernels numba-cuda does not compile
(cumlir's extensions, names it lacks), arguments it cannot take, ``debug=True``
kernels (their exceptions differ by design), tests marked ``nondeterministic`` (races
and atomics whose order is free), ``timing`` (work that must still be queued) and tests marked ``numba_cuda_differs`` (inputs where
numba-cuda's answer is undefined or differs on purpose: docs/semantics.md) are counted,
not compared; nor are a kernel's launches in one test after its first eight. Each worker writes
its counts to ``$CUMLIR_AGREEMENT_REPORT.<worker>.json`` when that is set.
"""

import json
import os
import types

import numpy as np
import pytest

_counts = {"compared": 0, "not_compiled": {}, "not_comparable": {}, "skipped_tests": 0, "repeated_launches": 0}
_current = {"item": None, "launches": {}}
# (id(cumlir function), device) -> (that function, its numba-cuda kernel or device function):
# the function is held so that its id is not given to a later one while its entry is kept
# (a test's kernel, freed, and the next test's, made at the same address, once shared an entry,
# and the next test was compared with the first one's numba-cuda kernel)
_translated = {}


def pytest_configure(config):
    from cumlir import dispatcher

    original = dispatcher.ConfiguredKernel.__call__

    def launch(self, *args, **kwargs):
        item = _current["item"]
        if item is not None and _repeated(item, self.dispatcher):
            item = None  # a test launching one kernel thousands of times is compared on its first launches
        if item is not None and any(item.get_closest_marker(m) for m in _NOT_COMPARED_MARKERS):
            _counts["skipped_tests"] += 1
            item = None  # no snapshot either: copying the arguments would wait for queued or captured work
        before = _snapshot(args) if item is not None and not kwargs else None
        original(self, *args, **kwargs)
        if before is not None:
            _compare(self, args, before)

    dispatcher.ConfiguredKernel.__call__ = launch


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _current["item"] = item
    _current["launches"] = {}
    try:
        yield
    finally:
        _current["item"] = None


_NOT_COMPARED_MARKERS = ("nondeterministic", "numba_cuda_differs", "timing")
LAUNCHES_COMPARED = 8  # per kernel and test


def _repeated(item, dispatcher):
    """Whether *dispatcher* has already had its share of comparisons in the test *item*."""
    seen = _current["launches"]
    count = seen[id(dispatcher)] = seen.get(id(dispatcher), 0) + 1
    if count <= LAUNCHES_COMPARED:
        return False
    _counts["repeated_launches"] += 1
    return True


def pytest_sessionfinish(session):
    path = os.environ.get("CUMLIR_AGREEMENT_REPORT")
    if path:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{path}.{worker}.json", "w") as f:
            json.dump(_counts, f, indent=1, sort_keys=True)


def _tally(bucket, reason):
    reason = reason.splitlines()[0][:160] if reason else "?"
    _counts[bucket][reason] = _counts[bucket].get(reason, 0) + 1


# ---- arguments ------------------------------------------------------------------------------


class _NotComparable(Exception):
    pass


def _host_copy(value):
    """A host copy of an array argument, or None for a scalar-like value."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if hasattr(value, "copy_to_host"):
        if not (value.is_c_contiguous() or value.is_f_contiguous()):
            # numba-cuda would get a contiguous copy, and a kernel may read the strides
            raise _NotComparable("non-contiguous device array")
        return value.copy_to_host()
    if isinstance(value, np.void):  # a record argument, written back by the launch
        copy = np.empty((), value.dtype)  # np.array(value) would be a view of the record
        copy[()] = value
        return copy
    if hasattr(value, "__cuda_array_interface__"):
        interface = value.__cuda_array_interface__
        if interface.get("strides") is not None and not _dense(interface):
            raise _NotComparable("non-contiguous CUDA array interface object")
        module = type(value).__module__.split(".")[0]
        if module == "cupy":
            return value.get()
        if module == "torch":
            return value.detach().cpu().numpy().copy()
        raise _NotComparable(f"array argument of type {type(value).__name__}")
    return None


def _dense(interface):
    """Whether a CUDA array interface with explicit strides describes a C- or F-ordered array."""
    itemsize = np.dtype(interface["typestr"]).itemsize
    shape, strides = interface["shape"], tuple(interface["strides"])

    def ordered(axes):
        axes = list(axes)
        step, expected = itemsize, {}
        for axis in axes:
            expected[axis] = step
            step *= shape[axis]
        return all(strides[a] == expected[a] or shape[a] == 1 for a in axes)

    axes = range(len(shape))
    return ordered(reversed(axes)) or ordered(axes)


def _snapshot(args):
    from cumlir import cuda

    cuda.synchronize()  # work queued on other streams (a ufunc's first launch) has written
    try:
        return [_snapshot_one(a) for a in args]
    except _NotComparable as e:
        _tally("not_comparable", str(e))
        return None


def _snapshot_one(value):
    if isinstance(value, tuple):
        return ("tuple", type(value), [_snapshot_one(v) for v in value])
    array = _host_copy(value)
    if array is not None:
        return ("array", type(value), array)
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return ("scalar", type(value), value)
    raise _NotComparable(f"argument of type {type(value).__name__}")


def _for_numba_cuda(snapshot, ncuda):
    """The argument numba-cuda gets: device arrays for device arrays, host arrays as they were."""
    kind, cls, value = snapshot
    if kind == "tuple":
        members = [_for_numba_cuda(v, ncuda) for v in value]
        return cls(*members) if hasattr(cls, "_fields") else cls(members)
    if kind == "array":
        copy = value.copy()
        if cls is np.void:
            return copy[()]
        return copy if cls is np.ndarray else ncuda.to_device(copy)
    return value


def _aliased_like(args, theirs):
    """*theirs* with an argument passed twice to cumlir (one array as input and output) passed
    as one object to numba-cuda too, so a write through one name is seen through the other."""
    first = {}
    for k, value in enumerate(args):
        if not isinstance(value, (bool, int, float, complex, tuple, np.generic)):
            theirs[k] = theirs[first.setdefault(id(value), k)]
    return theirs


def _arrays_of(value):
    """The host contents of every array in an argument, in order."""
    if isinstance(value, tuple):
        return [a for v in value for a in _arrays_of(v)]
    array = _host_copy(value)
    return [] if array is None else [array]


# ---- kernels --------------------------------------------------------------------------------


def _numba_cuda():
    from .support import import_numba_cuda

    return import_numba_cuda()


def _counterpart(value, ncuda):
    """numba-cuda's object for a cumlir object a kernel reads, or the value itself."""
    from cumlir import dispatcher
    from cumlir.operations import Namespace, Stub

    if isinstance(value, types.ModuleType) and value.__name__.startswith("cumlir.cuda"):
        import importlib

        return importlib.import_module("numba" + value.__name__[len("cumlir") :])
    if isinstance(value, dispatcher.Dispatcher):
        return _translate(value.py_func, ncuda, device=value.device, options=value.options)
    if isinstance(value, (Stub, Namespace)):
        target = ncuda
        for part in value.__name__.split("."):
            target = getattr(target, part)
        return target
    from numba.core.dispatcher import Dispatcher as NumbaDispatcher

    if isinstance(value, NumbaDispatcher):
        # numba-cuda compiling a numba.njit function in this process changes what cumlir's
        # typing of it later finds
        raise _NotComparable("calls a numba.njit function")
    module = getattr(value, "__module__", None) or ""
    if module.startswith("cumlir") and not isinstance(value, type):
        raise _NotComparable(f"reads the cumlir object {getattr(value, '__name__', value)!r}")
    return value


def _translate(fn, ncuda, device=False, options=None):
    key = (id(fn), device)
    if key in _translated:
        return _translated[key][1]
    namespace = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, _cells(fn, ncuda))
    clone.__kwdefaults__ = fn.__kwdefaults__
    jit_options = {}
    if options is not None and options.fastmath:
        jit_options["fastmath"] = True
    translated = ncuda.jit(device=True, **jit_options)(clone) if device else ncuda.jit(**jit_options)(clone)
    _translated[key] = (fn, translated)  # before the globals: recursion reads itself
    for name in _names_read(fn.__code__):
        if name in namespace:
            namespace[name] = _counterpart(namespace[name], ncuda)
    return translated


def _cells(fn, ncuda):
    if not fn.__closure__:
        return None
    return tuple(types.CellType(_counterpart(cell.cell_contents, ncuda)) for cell in fn.__closure__)


def _names_read(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_read(const)
    return names


# ---- comparing ------------------------------------------------------------------------------

_RTOL = {np.float16: 4e-3, np.float32: 2e-5, np.float64: 1e-12}


def _compare(configured, args, before):
    dispatcher, config = configured.dispatcher, configured.config
    if dispatcher.options.debug:
        _tally("not_comparable", "debug=True kernel")
        return
    ncuda = _numba_cuda()
    try:
        kernel = _translate(dispatcher.py_func, ncuda, options=dispatcher.options)
        theirs = _aliased_like(args, [_for_numba_cuda(s, ncuda) for s in before])
        kernel[config.griddim, config.blockdim, 0, config.sharedmem](*theirs)
        ncuda.synchronize()
    except _NotComparable as e:
        _tally("not_comparable", str(e))
        return
    except Exception as e:  # numba-cuda does not compile or launch it
        _tally("not_compiled", f"{type(e).__name__}: {e}")
        return
    ours = [a for value in args for a in _arrays_of(value)]
    expected = [a for value in theirs for a in _arrays_of(value)]
    for k, (mine, reference) in enumerate(zip(ours, expected)):
        _assert_agree(mine, reference, f"{dispatcher.__name__}: array {k} differs from numba-cuda's")
    _counts["compared"] += 1


def _assert_agree(mine, reference, message):
    bad = _disagreeing(mine, reference)
    if bad.any():
        k = int(np.flatnonzero(bad.ravel())[0])
        raise AssertionError(
            f"{message}: {int(bad.sum())} of {bad.size} elements, first at flat index {k}: "
            f"cumlir {mine.ravel()[k]!r}, numba-cuda {reference.ravel()[k]!r}"
        )


def _disagreeing(mine, reference):
    """A boolean array: where *mine* and *reference* (same shape and dtype) disagree."""
    if mine.shape != reference.shape:
        raise AssertionError(f"shapes differ: {mine.shape} and {reference.shape}")
    if mine.dtype.names:
        bad = np.zeros(mine.shape, bool)
        for name in mine.dtype.names:
            field = _disagreeing(mine[name], reference[name])  # sub-array fields add axes
            bad |= field.reshape(mine.shape + (-1,)).any(axis=-1)
        return bad
    if mine.dtype.kind == "c":
        return _disagreeing(mine.real, reference.real) | _disagreeing(mine.imag, reference.imag)
    if mine.dtype.kind != "f":
        return mine != reference
    nan_differs = np.isnan(mine) != np.isnan(reference)
    finite = np.isfinite(mine) & np.isfinite(reference)
    inf_differs = ~finite & ~np.isnan(mine) & ~np.isnan(reference) & (mine != reference)
    rtol = _RTOL[mine.dtype.type]
    wide_mine, wide_reference = mine.astype(np.float64), reference.astype(np.float64)
    scale = float(np.max(np.abs(wide_reference[finite]), initial=0.0))
    far = finite & (np.abs(wide_mine - wide_reference) > rtol * (np.abs(wide_reference) + scale))
    return nan_differs | inf_differs | far
