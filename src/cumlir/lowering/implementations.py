"""Python implementations used by lowering rules: semantics easiest to state in Python
(CPython's complex division, the ``cmath`` functions) are compiled like user code, as
device functions, and called from the rule (``lower.call_python``)."""

from ..typing.frontend import DeviceDispatcher

# device-function dispatchers of the Python implementations used by lowering rules
_INTERNAL = {}


def python_implementation(pyfunc):
    """The device-function dispatcher compiling *pyfunc*, a Python implementation used by
    lowering rules. As a decorator, it lets such implementations call one another."""
    if isinstance(pyfunc, DeviceDispatcher):
        return pyfunc
    dispatcher = _INTERNAL.get(pyfunc)
    if dispatcher is None:
        dispatcher = _INTERNAL[pyfunc] = DeviceDispatcher(pyfunc)
    return dispatcher
