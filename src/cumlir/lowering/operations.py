"""The lowering of the intrinsic areas (``cumlir/operations``), installed into the
lowering registry: each rule under the key and argument patterns its area gave, and the
attributes of stubs read rather than called (``threadIdx.x``) through their stub."""

from numba.core import errors, types

from .. import operations
from ..typing.operations import StubNamespace
from .registry import lower, lower_getattr_generic

_installed = 0  # how many of operations.declarations() are installed


def _pattern(pattern):
    """A registry pattern from an area's: a name in numba.core.types, "*name" for VarArg."""
    if not isinstance(pattern, str):
        return pattern
    if pattern.startswith("*"):
        return types.VarArg(_pattern(pattern[1:]))
    return getattr(types, pattern)


def install():
    """Register the rules of declarations made since the last call (areas found since)."""
    global _installed
    declarations = operations.declarations()
    for decl in declarations[_installed:]:
        for patterns, rule in decl._lowering:
            lower(decl._key, *map(_pattern, patterns))(rule)
    _installed = len(declarations)


@lower_getattr_generic(StubNamespace)
def stub_attribute(lower, ty, value, attr):
    rule = ty.stub._attributes.get(attr, (None, None))[1]
    if rule is None:
        raise errors.LoweringError(f"no lowering for the attribute {ty}.{attr}", lower.loc)
    return rule(lower, attr)
