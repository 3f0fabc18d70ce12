"""Hopper's register reallocation and programmatic dependent launch (docs/hopper.md).

``setmaxnreg_inc(n)`` / ``setmaxnreg_dec(n)`` (sm_90a): the warpgroup asks for (gives back)
registers until each of its threads holds *n*, a literal from 24 to 256 in steps of 8; every
thread of the warpgroup runs it. ptxas honours it only in a kernel compiled with
``max_registers`` (the count at entry), and a warpgroup takes only registers others gave back. ``griddepcontrol_wait()`` (sm_90) waits until the grids this
one depends on have completed and their memory is visible; ``griddepcontrol_launch_dependents()``
lets the grids that depend on this one start before it ends. Without a dependent launch both
do nothing."""

from .. import Stub
from .._support.modules import errors, templates, types
from .._support.ptx_asm import require, statement

HOPPER = (9, 0)

setmaxnreg_inc = Stub(
    "setmaxnreg_inc",
    "setmaxnreg_inc(n): raise the warpgroup's registers per thread to n (a literal, 24 to 256, a multiple of 8; sm_90a).",
)
setmaxnreg_dec = Stub(
    "setmaxnreg_dec",
    "setmaxnreg_dec(n): lower the warpgroup's registers per thread to n (a literal, 24 to 256, a multiple of 8; sm_90a).",
)
griddepcontrol_wait = Stub(
    "griddepcontrol_wait",
    "griddepcontrol_wait(): wait until the grids this one depends on have completed and their memory is visible (sm_90).",
)
griddepcontrol_launch_dependents = Stub(
    "griddepcontrol_launch_dependents",
    "griddepcontrol_launch_dependents(): the grids that depend on this one may start (sm_90).",
)


def _register_typer(name):
    def typer(n):
        if not isinstance(n, types.IntegerLiteral) or n.literal_value not in range(24, 257, 8):
            raise errors.TypingError(f"intrin.{name}(n): n must be a literal from 24 to 256, a multiple of 8, got {n}")
        return templates.signature(types.none, n)

    return typer


def _register_rule(name, action):
    def rule(lower, sig, args):
        require(lower, f"intrin.{name}", HOPPER, 80, arch_specific=True)
        statement(f"setmaxnreg.{action}.sync.aligned.u32 {sig.args[0].literal_value};")

    return rule


for _stub, _action in ((setmaxnreg_inc, "inc"), (setmaxnreg_dec, "dec")):
    _stub.typer(_register_typer(_stub.__name__))
    _stub.lower("Any")(_register_rule(_stub.__name__, _action))


@griddepcontrol_wait.cases
@griddepcontrol_launch_dependents.cases
def _nullary_cases():
    return [templates.signature(types.none)]


@griddepcontrol_wait.lower
def _wait(lower, sig, args):
    require(lower, "intrin.griddepcontrol_wait", HOPPER, 78)
    statement("griddepcontrol.wait;")


@griddepcontrol_launch_dependents.lower
def _launch_dependents(lower, sig, args):
    require(lower, "intrin.griddepcontrol_launch_dependents", HOPPER, 78)
    statement("griddepcontrol.launch_dependents;")
