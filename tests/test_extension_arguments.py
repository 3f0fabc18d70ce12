"""Kernel arguments of types an extension declared with numba's own API (``register_model``,
``typeof_impl``, as numba-cuda's curand example does) or with cumlir's: typed from their
Python values by ``typeof_impl``, held by their data models (numba's translated,
numba_models.py) and passed as numba passes them: a pointer or opaque handle as one
address, a struct as its members, a scalar as itself. An argument handler may give a
pointer's address as a uint64, as the curand example's does. Kernels run on the simulator
(and on the GPU in the gpu tier) against NumPy; what cannot be passed is an error naming
the argument; the PTX on both code generators."""

import operator

import numpy as np
import pytest
from numba.core import errors, types
from numba.core.extending import models, register_model, typeof_impl
from numba.core.typeconv import Conversion

from cumlir import cuda
from cumlir.extending import intrinsic, lower_cast, lowering_registry, make_attribute_wrapper, typing_registry
from cumlir.mlir import ir
from cumlir.mlir.dialects import arith, llvm
from cumlir.models import StructModel
from cumlir.models import register_model as register_cumlir_model
from cumlir.numba_cuda.typing.templates import AbstractTemplate, signature

from . import support
from .cases import extending_docs
from .support import checked_ptx, ptxas

# ---- a generator's states behind a pointer, as numba-cuda's curand example holds curandState ----

STATE = np.dtype([("x", np.uint32), ("draws", np.uint32)], align=True)


class XorStates:
    """Device memory holding one xorshift32 state per thread (the example's CurandStates)."""

    def __init__(self, seeds):
        host = np.zeros(len(seeds), STATE)
        host["x"] = seeds
        self.array = cuda.to_device(host)

    @property
    def data(self):
        return self.array.__cuda_array_interface__["data"][0]


class XorStatesView(XorStates):
    """The same, speaking the CUDA Array Interface: passed as the address of its data."""

    @property
    def __cuda_array_interface__(self):
        return self.array.__cuda_array_interface__


class XorState(types.Type):
    def __init__(self):
        super().__init__(name="XorState")


class XorStatePointer(types.Type):
    def __init__(self):
        self.dtype = xor_state
        super().__init__(name="XorState*")


xor_state = XorState()
xor_state_pointer = XorStatePointer()


@typeof_impl.register(XorStates)
@typeof_impl.register(XorStatesView)
def _typeof_states(val, c):
    return xor_state_pointer


@register_model(XorState)
class _XorStateModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", types.uint32), ("draws", types.uint32)])


register_model(XorStatePointer)(models.PointerModel)


@typing_registry.register_global(operator.getitem)
class _StateAt(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 2 and isinstance(args[0], XorStatePointer) and isinstance(args[1], types.Integer):
            return signature(args[0], args[0], types.intp)


@lowering_registry.lower(operator.getitem, XorStatePointer, types.Integer)
def _state_at(builder, target, args, kwargs):
    base, index = builder.load_vars(args)
    element = builder.get_mlir_type(xor_state)  # the struct numba's model describes
    address = llvm.getelementptr(llvm.PointerType.get(), base, [index], [-(2**31)], element, 0)
    builder.store_var(target, address)


@intrinsic
def next_value(typingctx, state):
    """The state's next xorshift32 value, stored back with one more draw counted."""
    if isinstance(state, XorStatePointer):

        def codegen(context, builder, sig, args):
            i32 = ir.IntegerType.get_signless(32)
            struct = builder.get_mlir_type(xor_state)
            x = llvm.load(i32, args[0])
            for shift, k in ((arith.shli, 13), (arith.shrui, 17), (arith.shli, 5)):
                x = arith.xori(x, shift(x, arith.constant(i32, k)))
            llvm.store(x, args[0])
            draws = llvm.getelementptr(llvm.PointerType.get(), args[0], [], [0, 1], struct, 0)
            llvm.store(arith.addi(llvm.load(i32, draws), arith.constant(i32, 1)), draws)
            return x

        return signature(types.uint32, state), codegen


class StatesByAddress:
    """An argument handler as the curand example's: the states' address, as a uint64."""

    def prepare_args(self, ty, val, **kwargs):
        if isinstance(val, XorStates):
            return types.uint64, val.data
        return ty, val


def _draw(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        state = states[i]
        for k in range(out.shape[1]):
            out[i, k] = next_value(state)


draw = cuda.jit(_draw)


def _xorshift(seeds, n):
    x = seeds.astype(np.uint64)
    out = []
    for _ in range(n):
        for shift in (lambda v: v << 13, lambda v: v >> 17, lambda v: v << 5):
            x = (x ^ shift(x)) & 0xFFFFFFFF
        out.append(x.copy())
    return np.stack(out, axis=1).astype(np.uint32)


def test_states_behind_a_pointer_through_an_argument_handler(simulator_or_gpu, rng):
    seeds = rng.integers(1, 2**32, 100, dtype=np.uint32)
    states = XorStates(seeds)
    draw_handled = cuda.jit(extensions=[StatesByAddress()])(_draw)
    first, second = np.zeros((100, 3), np.uint32), np.zeros((100, 2), np.uint32)
    draw_handled[4, 32](states, first)
    draw_handled[4, 32](states, second)  # the states advanced in device memory
    expected = _xorshift(seeds, 5)
    np.testing.assert_array_equal(first, expected[:, :3])
    np.testing.assert_array_equal(second, expected[:, 3:])
    np.testing.assert_array_equal(states.array.copy_to_host()["draws"], 5)


def test_states_speaking_the_array_interface_pass_their_address(simulator_or_gpu, rng):
    seeds = rng.integers(1, 2**32, 64, dtype=np.uint32)
    states = XorStatesView(seeds)  # typeof_impl's type wins over the interface, as in numba-cuda
    out = np.zeros((64, 4), np.uint32)
    draw[2, 32](states, out)
    np.testing.assert_array_equal(out, _xorshift(seeds, 4))
    # a kernel compiled for the pointer by its signature takes the address as an int too
    eager = cuda.jit((xor_state_pointer, types.uint32[:, :]))(_draw)
    eager[2, 32](states.data, out)
    np.testing.assert_array_equal(out, _xorshift(seeds, 8)[:, 4:])


# ---- a struct, a scalar and an opaque handle with numba's models; a struct with cumlir's ----


class Interval:
    def __init__(self, lo, hi, steps):
        self.lo, self.hi, self.steps = lo, hi, steps


class IntervalType(types.Type):
    def __init__(self):
        super().__init__(name="Interval")


@typeof_impl.register(Interval)
def _typeof_interval(val, c):
    return IntervalType()


@register_model(IntervalType)
class _IntervalModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("lo", types.float64), ("hi", types.float32), ("steps", types.int32)])


for _field in ("lo", "hi", "steps"):
    make_attribute_wrapper(IntervalType, _field, _field)


class Ticket:
    """A number with a class of its own (``__index__`` gives its value to the launcher)."""

    def __init__(self, number):
        self.number = number

    def __index__(self):
        return self.number


class TicketType(types.Type):
    def __init__(self):
        super().__init__(name="Ticket")

    def can_convert_to(self, typingctx, other):
        if isinstance(other, types.Number):
            return Conversion.safe


@typeof_impl.register(Ticket)
def _typeof_ticket(val, c):
    return TicketType()


@register_model(TicketType)
class _TicketModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        import llvmlite.ir

        super().__init__(dmm, fe_type, llvmlite.ir.IntType(64))


@lower_cast(TicketType, types.Number)
def _ticket_number(context, builder, fromty, toty, value):
    return builder.cast(value, types.int64, toty)


class Handle:
    """A library's handle: opaque to kernels, which pass it on (here, to read its address)."""

    def __init__(self, address):
        self.address = address

    def __index__(self):
        return self.address


class HandleType(types.Opaque):
    def __init__(self):
        super().__init__(name="Handle")


@typeof_impl.register(Handle)
def _typeof_handle(val, c):
    return HandleType()


register_model(HandleType)(models.OpaqueModel)


@intrinsic
def address_of(typingctx, handle):
    if isinstance(handle, HandleType):

        def codegen(context, builder, sig, args):
            return llvm.ptrtoint(ir.IntegerType.get_signless(64), args[0])

        return signature(types.uint64, handle), codegen


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class PointType(types.Type):
    def __init__(self):
        super().__init__(name="Point2")


@typeof_impl.register(Point)
def _typeof_point(val, c):
    return PointType()


@register_cumlir_model(PointType)
class _PointModel(StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", types.float32), ("y", types.float32)])


make_attribute_wrapper(PointType, "x", "x")
make_attribute_wrapper(PointType, "y", "y")


@cuda.jit
def described(interval, ticket, handle, point, out, addresses):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = interval.lo + (interval.hi - interval.lo) * i / interval.steps
        out[i, 1] = ticket  # the Ticket converted to the array's type
        out[i, 2] = point.x * i + point.y
        addresses[i] = address_of(handle)


def test_structs_scalars_and_handles_of_extension_types(simulator_or_gpu, rng):
    lo, hi = rng.uniform(-5, 0), np.float32(rng.uniform(1, 5))
    steps, number = int(rng.integers(3, 50)), int(rng.integers(-(2**40), 2**40))
    owned = cuda.device_array(4)  # what the handle stands for: memory the kernel never touches
    address = owned.__cuda_array_interface__["data"][0]
    point = Point(np.float32(rng.uniform(-2, 2)), np.float32(rng.uniform(-2, 2)))
    out, addresses = np.zeros((40, 3)), np.zeros(40, np.uint64)
    described[2, 32](Interval(lo, hi, steps), Ticket(number), Handle(address), point, out, addresses)
    i = np.arange(40)
    np.testing.assert_allclose(out[:, 0], lo + (float(hi) - lo) * i / steps, rtol=1e-14)
    np.testing.assert_array_equal(out[:, 1], float(number))
    np.testing.assert_allclose(out[:, 2], np.float32(point.x) * i.astype(np.float32) + point.y, rtol=1e-6)
    np.testing.assert_array_equal(addresses, address)


def test_a_struct_argument_takes_a_tuple_of_its_members(simulator_or_gpu):
    kernel = cuda.jit((IntervalType(), TicketType(), HandleType(), PointType(), types.float64[:, :], types.uint64[:]))(
        described.py_func
    )
    out, addresses = np.zeros((4, 3)), np.zeros(4, np.uint64)
    owned = cuda.device_array(1)
    handle = owned.__cuda_array_interface__["data"][0]
    kernel[1, 4]((1.0, 3.0, 4), 5, handle, (2.0, 0.5), out, addresses)
    np.testing.assert_array_equal(out, [[1.0, 5, 0.5], [1.5, 5, 2.5], [2.0, 5, 4.5], [2.5, 5, 6.5]])
    with pytest.raises(TypeError, match=r"argument 0: a UniTuple\(float64 x 2\) cannot be passed as Interval"):
        kernel[1, 4]((1.0, 3.0), 5, handle, (2.0, 0.5), out, addresses)
    unfinished = Interval(1.0, 3.0, 4)
    del unfinished.steps
    with pytest.raises(TypeError, match=r"argument 0: a Interval takes a tuple of its 3 members \(lo, hi, steps\)"):
        kernel[1, 4](unfinished, 5, handle, (2.0, 0.5), out, addresses)


_NUMBA_CUDAS_API = """
import os
os.environ["CUMLIR_SIMULATOR"] = "1"
import numpy as np
from numba.cuda.extending import core_models, register_model, typeof_impl
from cumlir import cuda, types
from cumlir.extending import make_attribute_wrapper

class Span:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

class SpanType(types.Type):
    def __init__(self):
        super().__init__(name="Span")

@typeof_impl.register(Span)
def _typeof_span(val, c):
    return SpanType()

@register_model(SpanType)
class _SpanModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("lo", types.float64), ("hi", types.float64)])

make_attribute_wrapper(SpanType, "lo", "lo")
make_attribute_wrapper(SpanType, "hi", "hi")

@cuda.jit
def width(span, out):
    out[0] = span.hi - span.lo

out = np.zeros(1)
width[1, 1](Span(1.5, 4.25), out)
print(out[0])
"""


def test_numba_cudas_own_registries_declare_types_too():
    # numba-cuda keeps its own typeof_impl and data models (numba.cuda.extending): read where imported
    pytest.importorskip("numba_cuda")
    assert support.python_output(_NUMBA_CUDAS_API) == "2.75"


# ---- what cannot be passed ----------------------------------------------------------------------


class Bare(types.Type):
    def __init__(self):
        super().__init__(name="Bare")


class BareValue:
    pass


@typeof_impl.register(BareValue)
def _typeof_bare(val, c):
    return Bare()


class Pair(types.Type):
    def __init__(self):
        super().__init__(name="Pair2")


class PairValue:
    pass


@typeof_impl.register(PairValue)
def _typeof_pair(val, c):
    return Pair()


register_model(Pair)(models.UniTupleModel)  # a model cumlir cannot translate: it reads fe_type.count


@cuda.jit
def ignoring(value, out):
    out[0] = 1


@pytest.mark.parametrize(
    "value, message",
    [
        (BareValue(), r"argument 'value' \(of type Bare\): cumlir has no data model for the type Bare"),
        (PairValue(), r"argument 'value' \(of type Pair2\): numba's data model UniTupleModel of Pair2"),
    ],
)
def test_a_type_without_a_model_cumlir_holds_is_an_error_naming_the_argument(value, message, simulator_or_gpu):
    with pytest.raises(errors.UnsupportedError, match=message) as raised:
        ignoring[1, 1](value, np.zeros(1))
    assert "def ignoring(value, out)" in str(raised.value)


def test_a_pointer_argument_refuses_what_has_no_address(simulator_or_gpu):
    with pytest.raises(TypeError, match=r"argument 0: a XorState\* takes a device address .* got XorStates; an arg"):
        draw[1, 1](XorStates(np.ones(1, np.uint32)), np.zeros((1, 1), np.uint32))


class _ToFloat:
    def prepare_args(self, ty, val, **kwargs):
        return (types.float64, 1.5) if isinstance(val, XorStates) else (ty, val)


def test_a_handler_may_change_a_pointer_into_an_address_only(simulator_or_gpu):
    kernel = cuda.jit(extensions=[_ToFloat()])(_draw)
    with pytest.raises(TypeError, match=r"passes argument 0 as float64, but the kernel was compiled for XorState\*"):
        kernel[1, 1](XorStates(np.ones(1, np.uint32)), np.zeros((1, 1), np.uint32))


# ---- the states handed to CUDA C++, as the curand example hands them to cuRAND --------------------

XOR_NEXT = cuda.CUSource(
    """
struct XorState { unsigned x; unsigned draws; };
extern "C" __device__ int xor_next(unsigned* result, XorState* state) {
    unsigned x = state->x;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    state->x = x;
    state->draws += 1;
    *result = x;
    return 0;
}
"""
)
xor_next = cuda.declare_device("xor_next", types.uint32(xor_state_pointer), link=[XOR_NEXT])


def _draw_in_cpp(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        state = states[i]
        for k in range(out.shape[1]):
            out[i, k] = xor_next(state)


@pytest.mark.gpu
@pytest.mark.not_simulated("CUDA C++ link items have no host form")
def test_states_handed_to_cuda_cpp(rng):
    seeds = rng.integers(1, 2**32, 64, dtype=np.uint32)
    states = XorStates(seeds)
    out = np.zeros((64, 3), np.uint32)
    cuda.jit(extensions=[StatesByAddress()])(_draw_in_cpp)[2, 32](states, out)
    np.testing.assert_array_equal(out, _xorshift(seeds, 3))
    np.testing.assert_array_equal(states.array.copy_to_host()["draws"], 3)


def test_states_handed_to_cuda_cpp_assemble(backend):
    ptx, _ = cuda.compile_ptx(_draw_in_cpp, (xor_state_pointer, types.uint32[:, :]), cc=(9, 0), backend=backend)
    assert "xor_next" in ptx
    ptxas(ptx, "sm_90", relocatable=True)  # xor_next is linked later


def test_the_docs_counters_assemble(backend):
    docs = extending_docs.namespace()
    checked_ptx(docs["counting"], (docs["counters_type"], types.int64), backend, (9, 0))


def test_the_docs_counters_count(simulator_or_gpu):
    docs = extending_docs.namespace()
    counters = docs["Counters"](50)
    counters.array.copy_to_device(np.zeros(50, np.uint32))
    counting = cuda.jit(extensions=[docs["CountersByAddress"]()])(docs["counting"].py_func)
    for _ in range(3):
        counting[2, 32](counters, 40)
    np.testing.assert_array_equal(counters.array.copy_to_host(), [3] * 40 + [0] * 10)


@pytest.mark.parametrize(
    "kernel, argtypes",
    [
        (draw, (xor_state_pointer, types.uint32[:, :])),
        (described, (IntervalType(), TicketType(), HandleType(), PointType(), types.float64[:, :], types.uint64[:])),
    ],
)
def test_extension_arguments_assemble(kernel, argtypes, backend):
    checked_ptx(kernel, argtypes, backend, (9, 0))
