"""The typing check of ``cumlir.cuda.random``'s device functions: the random states they
are given must be a 1-D array of ``xoroshiro128p_dtype`` records.

Without it a float64 array passed as the states fails deep inside the generator with
numba's "no implementation of getitem(float64, 's0')"; with it the user reads what the
states must be, at the line calling the generator. The check emits no code.
"""

from .. import declare
from .._support.modules import errors, templates, types


def require_states(states):
    """Inside a device function: a typing error unless *states* is a 1-D array of records
    with the uint64 fields ``s0`` and ``s1``. Nothing at run time."""
    raise RuntimeError("require_states can only be used inside a function compiled with @cuda.jit")


_require_states = declare(require_states, "cumlir.cuda.random.require_states")


def _is_state_record(dtype):
    if not isinstance(dtype, types.Record):
        return False
    fields = dict(dtype.members)
    return fields.get("s0") == types.uint64 and fields.get("s1") == types.uint64


@_require_states.typer
def _typing(states):
    if not (isinstance(states, types.Array) and states.ndim == 1 and _is_state_record(states.dtype)):
        raise errors.TypingError(
            "cuda.random: the random states must be a 1-D array of cuda.random.xoroshiro128p_dtype "
            f"records (as create_xoroshiro128p_states makes), got {states}"
        )
    return templates.signature(types.none, states)


@_require_states.lower
def _lowering(lower, sig, args):
    return None
