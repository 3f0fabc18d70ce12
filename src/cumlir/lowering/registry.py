"""Lowering rules, looked up by (operation, argument types).

An operation key is what numba's typing resolves a call to: a Python callable
(``operator.add``, ``len``, ``cuda.grid``), a string for IR operations
(``"getiter"``, ``"iternext"``, ``"static_getitem"``) or a type class (calls of
``np.float32(x)`` resolve to ``types.NumberClass``). An argument pattern is a
type instance (matches equal types), a type class (matches instances),
``types.Any`` (matches anything) or ``types.VarArg(pattern)`` (matches the rest).

Rule shapes (internal rules; ``cumlir.extending`` adapts the public shapes):
  call:     rule(lower, sig, args) -> value         args already cast to sig.args
  getattr:  rule(lower, typ, value, attr) -> value
  setattr:  rule(lower, sig, args, attr)         sig is (target type, value type) -> none
  cast:     rule(lower, fromty, toty, value) -> value
  constant: rule(lower, typ, pyval) -> value
  instance: rule(lower, key, sig, args) -> value   for every key that is an instance of a class
                                                 (external functions: the key says which one)
"""

from numba.core import types


def _pattern_score(pattern, ty):
    """How well *pattern* matches the type *ty*: None for no match, higher is more specific."""
    if pattern is types.Any or pattern == types.Any:
        return 0
    if isinstance(pattern, type):
        if isinstance(ty, pattern):
            return 1 + len(pattern.__mro__) / 100  # a more derived class is more specific
        return None
    return 3 if pattern == ty else None


def _match(patterns, argtypes):
    score = 0
    n = len(patterns)
    if n and isinstance(patterns[-1], types.VarArg):
        fixed, rest = patterns[:-1], patterns[-1].dtype
        if len(argtypes) < len(fixed):
            return None
        patterns = list(fixed) + [rest] * (len(argtypes) - len(fixed))
    elif n != len(argtypes):
        return None
    for pattern, ty in zip(patterns, argtypes):
        s = _pattern_score(pattern, ty)
        if s is None:
            return None
        score += s
    return score


class _Table:
    """Candidates for one key; the best-scoring match wins, later registrations win ties."""

    def __init__(self):
        self._entries = {}

    def add(self, key, patterns, rule):
        self._entries.setdefault(key, []).append((tuple(patterns), rule))

    def find(self, key, argtypes):
        best, best_score = None, -1
        for patterns, rule in self._entries.get(key, ()):
            score = _match(patterns, argtypes)
            if score is not None and score >= best_score:
                best, best_score = rule, score
        return best


class LoweringRegistry:
    def __init__(self):
        self.calls = _Table()
        self.getattrs = _Table()
        self.setattrs = _Table()
        self.casts = _Table()
        self.constants = _Table()
        self._instance_calls = {}  # class -> rule for calls whose key is an instance of it

    def lower(self, key, *patterns):
        """Register a call rule for *key* applied to arguments matching *patterns*."""

        def decorate(rule):
            self.calls.add(key, patterns, rule)
            return rule

        return decorate

    def lower_calls_of(self, cls):
        """Register a rule for calls of any key that is an instance of *cls*; it gets the key."""

        def decorate(rule):
            self._instance_calls[cls] = rule
            return rule

        return decorate

    def lower_getattr(self, pattern, attr):
        def decorate(rule):
            self.getattrs.add(attr, (pattern,), rule)
            return rule

        return decorate

    def lower_getattr_generic(self, pattern):
        return self.lower_getattr(pattern, None)

    def lower_setattr(self, pattern, attr):
        def decorate(rule):
            self.setattrs.add(attr, (pattern,), rule)
            return rule

        return decorate

    def lower_setattr_generic(self, pattern):
        return self.lower_setattr(pattern, None)

    def lower_cast(self, from_pattern, to_pattern):
        def decorate(rule):
            self.casts.add(None, (from_pattern, to_pattern), rule)
            return rule

        return decorate

    def lower_constant(self, pattern):
        def decorate(rule):
            self.constants.add(None, (pattern,), rule)
            return rule

        return decorate

    # look-ups
    def find_call(self, key, argtypes):
        rule = self.calls.find(key, tuple(argtypes))
        if rule is not None:
            return rule
        for cls, instance_rule in self._instance_calls.items():
            if isinstance(key, cls):
                return lambda lower, sig, args: instance_rule(lower, key, sig, args)
        return None

    def find_getattr(self, ty, attr):
        return self.getattrs.find(attr, (ty,)) or self.getattrs.find(None, (ty,))

    def find_setattr(self, ty, attr):
        return self.setattrs.find(attr, (ty,)) or self.setattrs.find(None, (ty,))

    def find_cast(self, fromty, toty):
        return self.casts.find(None, (fromty, toty))

    def find_constant(self, ty):
        return self.constants.find(None, (ty,))


registry = LoweringRegistry()
lower = registry.lower
lower_getattr = registry.lower_getattr
lower_getattr_generic = registry.lower_getattr_generic
lower_setattr = registry.lower_setattr
lower_setattr_generic = registry.lower_setattr_generic
lower_cast = registry.lower_cast
lower_constant = registry.lower_constant
