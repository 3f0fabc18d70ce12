"""The public lowering registry: extension callbacks in their documented shapes, adapted
into operation records (cumlir/operations), which lowering/operations.py installs into the
one set of rule tables every operation uses.

Public shapes (docs/extending.md):
  call:     impl(builder, target, args, kwargs)       args are variables (numba ir.Var, as numba's
                                                      lowering passes); store the result in target
  getattr:  impl(context, builder, typ, value[, attr]) -> value
  setattr:  impl(context, builder, sig, [target, value][, attr])
  cast:     impl(context, builder, fromty, toty, value) -> value
  constant: impl(context, builder, typ, pyval) -> value

An exception raised by a callback is reported as a LoweringError naming the
callback, at the kernel line being lowered.
"""

import functools

from numba.core import errors
from numba.core import ir as nir

from .. import operations
from .builder_api import extension_error


def _reported(callback):
    """Run *callback*(lower, ...) so that its errors name it and the kernel's line."""

    def decorate(rule):
        @functools.wraps(rule)
        def guarded(lower, *args):
            try:
                return rule(lower, *args)
            except errors.LoweringError as e:
                if getattr(e, "_extension_reported", False):
                    raise
                raise _mark(extension_error(callback, e, lower.loc)) from e
            except Exception as e:
                raise _mark(extension_error(callback, e, lower.loc)) from e

        return guarded

    return decorate


def _mark(error):
    error._extension_reported = True  # an extension called from an extension is named once
    return error


def _call_rule(impl):
    @_reported(impl)
    def rule(lower, sig, args):
        with lower.bind_temporaries(list(args) + [None], list(sig.args) + [sig.return_type]) as names:
            *argvars, target = (nir.Var(None, name, lower.loc or nir.unknown_loc) for name in names)
            returned = impl(lower, target, list(argvars), [])
            stored = lower.read_temporary(target.name)
        return stored if stored is not None else returned

    return rule


def _getattr_rule(impl, generic):
    @_reported(impl)
    def rule(lower, typ, value, attr):
        if generic:
            return impl(lower.target_context, lower, typ, value, attr)
        return impl(lower.target_context, lower, typ, value)

    return rule


def _setattr_rule(impl, generic):
    @_reported(impl)
    def rule(lower, sig, args, attr):
        if generic:
            impl(lower.target_context, lower, sig, list(args), attr)
        else:
            impl(lower.target_context, lower, sig, list(args))

    return rule


def _cast_rule(impl):
    @_reported(impl)
    def rule(lower, fromty, toty, value):
        return impl(lower.target_context, lower, fromty, toty, value)

    return rule


def _constant_rule(impl):
    @_reported(impl)
    def rule(lower, typ, pyval):
        return impl(lower.target_context, lower, typ, pyval)

    return rule


class MLIRLoweringRegistry:
    """Decorators registering public-shape callbacks; each returns the callback unchanged,
    so decorators stack (one callback for several signatures)."""

    def lower(self, key, *patterns):
        def decorate(impl):
            operations.declare(key).lower(*patterns)(_call_rule(impl))
            return impl

        return decorate

    def lower_getattr(self, pattern, attr):
        def decorate(impl):
            operations.attribute(pattern, attr).lower(_getattr_rule(impl, generic=False))
            return impl

        return decorate

    def lower_getattr_generic(self, pattern):
        def decorate(impl):
            operations.attribute(pattern).lower(_getattr_rule(impl, generic=True))
            return impl

        return decorate

    def lower_setattr(self, pattern, attr):
        def decorate(impl):
            operations.attribute(pattern, attr).lower_set(_setattr_rule(impl, generic=False))
            return impl

        return decorate

    def lower_setattr_generic(self, pattern):
        def decorate(impl):
            operations.attribute(pattern).lower_set(_setattr_rule(impl, generic=True))
            return impl

        return decorate

    def lower_cast(self, from_pattern, to_pattern):
        def decorate(impl):
            operations.cast(from_pattern, to_pattern)(_cast_rule(impl))
            return impl

        return decorate

    def lower_constant(self, pattern):
        def decorate(impl):
            operations.constant(pattern)(_constant_rule(impl))
            return impl

        return decorate


lowering_registry = MLIRLoweringRegistry()
