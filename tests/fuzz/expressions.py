"""Expression trees of the grammar: each node knows its type (typerules.py, in an
environment of the variables' types) and writes itself twice, for the device and for the
host reference.

The two texts differ only where the host has no such type: float16 and bfloat16 values
are float32 on the host (each holds a value of the narrow type exactly), and every
operation whose result is of a narrow type is rounded to it there (``float16(a + b)``,
with the host's ``float16`` the exact rounding of halves.py). ``+ - * /`` and square root
computed in float32 and rounded once more to float16 or bfloat16 are the correctly rounded
results (24 >= 2p + 2 bits), so the host's narrow arithmetic is the device's exactly.
"""

from dataclasses import dataclass

from . import typerules as tr


class Node:
    def typeof(self, env):
        raise NotImplementedError

    def text(self, env, host):
        raise NotImplementedError

    def children(self):
        for value in vars(self).values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, Node):
                    yield item

    def constant_test(self):
        """Whether, as a test, CPython or numba may decide a branch of it before typing:
        it holds a bool constant or a comparison of constants (numba's dead branch pruning,
        CPython's folding of ``x if True else y``), so that a value on the branch not taken
        is never typed."""
        if isinstance(self, Const):
            return isinstance(self.value, bool)
        if isinstance(self, Binary) and self.op in tr.COMPARISONS and not self.names():
            return True
        return any(child.constant_test() for child in self.children())

    def names(self):
        """The variables the expression reads."""
        found = {self.name} if isinstance(getattr(self, "name", None), str) else set()
        for child in self.children():
            found |= child.names()
        return found


@dataclass
class Var(Node):
    name: str

    def typeof(self, env):
        return env[self.name]

    def text(self, env, host):
        return self.name


@dataclass
class Const(Node):
    value: object  # bool, int or float

    def typeof(self, env):
        if isinstance(self.value, bool):
            return "bool"
        return "int64" if isinstance(self.value, int) else "float64"

    def text(self, env, host):
        return f"({self.value!r})" if not isinstance(self.value, bool) and self.value < 0 else repr(self.value)


def _literal(node):
    return node.value if isinstance(node, Const) and not isinstance(node.value, (bool, float)) else None


def _rounded(node, env, host, text):
    """*text* of an operation of *node*, rounded to its narrow type on the host."""
    type_name = node.typeof(env)
    if host and tr.kind(type_name) in ("half", "bf16"):
        return f"{type_name}({text})"
    return text


@dataclass
class Binary(Node):
    op: str
    a: Node
    b: Node

    def typeof(self, env):
        types = (self.a.typeof(env), self.b.typeof(env))
        if self.op in ("and", "or"):
            if types != ("bool", "bool"):
                raise tr.Untypable(f"{self.op} of {types}")
            return "bool"
        return tr.resolve(tr.BINARY[self.op], types, (_literal(self.a), _literal(self.b)))

    def text(self, env, host):
        return _rounded(self, env, host, f"({self.a.text(env, host)} {self.op} {self.b.text(env, host)})")


@dataclass
class Unary(Node):
    op: str  # "-", "~" or "not"
    a: Node

    def typeof(self, env):
        return tr.resolve(tr.UNARY[self.op], (self.a.typeof(env),))

    def text(self, env, host):
        space = " " if self.op == "not" else ""
        return _rounded(self, env, host, f"({self.op}{space}{self.a.text(env, host)})")


@dataclass
class Call(Node):
    """A builtin (abs, min, max, float, int, complex) or a ``math`` function."""

    function: str
    args: list

    def _callee(self):
        if self.function.startswith("math."):
            return tr.math_function(self.function[5:])
        return tr.CALLS[self.function]

    def typeof(self, env):
        return tr.resolve(self._callee(), tuple(a.typeof(env) for a in self.args), tuple(map(_literal, self.args)))

    def text(self, env, host):
        return _rounded(self, env, host, f"{self.function}({', '.join(a.text(env, host) for a in self.args)})")


@dataclass
class Convert(Node):
    """A conversion by a type's name: ``int32(x)``, ``np.uint64(x)``, ``float16(x)``,
    ``bfloat16(x)`` (the names the program's namespace binds)."""

    target: str
    a: Node
    spelling: str = ""  # "np." for NumPy's name

    def typeof(self, env):
        source = self.a.typeof(env)
        if tr.kind(source) in ("tuple", "complex"):
            raise tr.Untypable(f"{self.target} of {source}")
        if tr.kind(self.target) in ("half", "bf16") and source in ("int64", "uint64", "bool"):
            raise tr.Untypable("the host rounds from float64, inexact for 64-bit integers")
        if tr.kind(source) in ("half", "bf16") and tr.kind(self.target) != "float":
            raise tr.Untypable("narrow floats convert to float32 or float64 only")
        return self.target

    def text(self, env, host):
        return f"{self.spelling}{self.target}({self.a.text(env, host)})"


@dataclass
class Conditional(Node):
    test: Node
    a: Node
    b: Node

    def typeof(self, env):
        if self.test.typeof(env) != "bool":
            raise tr.Untypable("a test that is not a bool")
        a, b = self.a.typeof(env), self.b.typeof(env)
        if a != b and self.test.constant_test():
            raise tr.Untypable("numba may type one branch only")
        return tr.unify(a, b)

    def text(self, env, host):
        a, b = self.a.text(env, host), self.b.text(env, host)
        a_type, b_type = self.a.typeof(env), self.b.typeof(env)
        if tr.merged_explicitly(a_type, b_type):
            unified = tr.unify(a_type, b_type)
            a, b = f"{unified}({a})", f"{unified}({b})"
        return f"({a} if {self.test.text(env, host)} else {b})"


@dataclass
class Part(Node):
    """``c.real``, ``c.imag`` or ``c.conjugate()`` of a complex number."""

    a: Node
    name: str

    def typeof(self, env):
        source = self.a.typeof(env)
        if tr.kind(source) != "complex":
            raise tr.Untypable(f".{self.name} of {source}")
        if self.name == "conjugate":
            return source
        return "float32" if source == "complex64" else "float64"

    def text(self, env, host):
        return f"{self.a.text(env, host)}.{self.name}{'()' if self.name == 'conjugate' else ''}"


@dataclass
class Item(Node):
    """``t[k]`` of a tuple variable, *k* a constant."""

    name: str
    index: int

    def typeof(self, env):
        return env[self.name][self.index]

    def text(self, env, host):
        return f"{self.name}[{self.index}]"


@dataclass
class Element(Node):
    """``a[index % size]`` of a local array variable."""

    name: str
    index: Node

    def typeof(self, env):
        if tr.kind(self.index.typeof(env)) != "int":
            raise tr.Untypable("an index that is not an integer")
        return env[self.name].dtype

    def text(self, env, host):
        size = env[self.name].size
        return f"{self.name}[{self.index.text(env, host)} % {size}]"


@dataclass
class Reduction(Node):
    """``a.sum()`` or ``np.sum(a)`` (and min, max, prod, mean) of a local array."""

    name: str
    method: str
    function_form: bool

    def typeof(self, env):
        return tr.reduction(self.method, env[self.name].dtype)

    def text(self, env, host):
        return f"np.{self.method}({self.name})" if self.function_form else f"{self.name}.{self.method}()"


@dataclass
class Build(Node):
    """A tuple ``(a, b, ...)``."""

    items: list

    def typeof(self, env):
        return tuple(item.typeof(env) for item in self.items)

    def text(self, env, host):
        return f"({', '.join(item.text(env, host) for item in self.items)})"
