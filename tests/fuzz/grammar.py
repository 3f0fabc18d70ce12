"""Random well-typed kernels, drawn from a small grammar of Python as kernels write it.

A program is a scalar function ``f`` of three inputs (any of the scalar types below),
built from assignments, an ``if``/``else``, a counted loop, calls of a second device
function ``g`` and of ``math`` functions, and returning an expression; its kernel applies
``f`` to three arrays elementwise. Every expression is well defined on every input, so that
the device and the host must agree: divisors are made odd (integers) or at least one
(floats), shift amounts are masked below the narrowest width, exponents are small, the
``math`` functions are given arguments inside their domain, and no float is converted to
an integer (that conversion is undefined outside the integer's range). Values stay small
(inputs in [-8, 8], shallow expressions), so float32 rarely overflows.
"""

import random
from dataclasses import dataclass, field

# uint64 is left out: numba gives a signed integer and a uint64 a float64 result, so the
# integer expressions of the grammar would stop being integers
INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]
FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
TYPES = ["bool", *INTEGERS, *FLOATS, *COMPLEX]

_ARITHMETIC = ["+", "-", "*"]
_BITWISE = ["&", "|", "^"]
_COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]
_MATH = ["sin", "cos", "tanh", "atan"]  # defined everywhere


@dataclass
class Program:
    """The source of ``g``, ``f`` and the kernel, and the input dtypes."""

    seed: int
    source: str
    input_types: list[str]
    lines: list[str] = field(default_factory=list)


class _Writer:
    """Expressions of a kind ("int", "float", "bool") over the variables bound so far."""

    def __init__(self, rng: random.Random, kinds: dict[str, str]):
        self.rng = rng
        self.kinds = dict(kinds)  # variable -> kind

    def variable(self, kind: str) -> str | None:
        names = [n for n, k in self.kinds.items() if k == kind]
        return self.rng.choice(names) if names else None

    def leaf(self, kind: str) -> str:
        name = self.variable(kind)
        if name is not None and self.rng.random() < 0.8:
            return name
        if kind == "bool":
            return self.rng.choice(["True", "False"])
        if kind == "int":
            return str(self.rng.randint(-5, 9))
        if kind == "complex":
            return f"complex({self.leaf('float')}, {self.leaf('float')})"
        return repr(round(self.rng.uniform(-4, 4), 3))

    def expression(self, kind: str, depth: int) -> str:
        if depth <= 0 or self.rng.random() < 0.25:
            return self.leaf(kind)
        return getattr(self, f"_{kind}")(depth - 1)

    def _int(self, depth: int) -> str:
        a, b = self.expression("int", depth), self.expression("int", depth)
        shape = self.rng.randrange(9)
        if shape <= 2:
            return f"({a} {self.rng.choice(_ARITHMETIC)} {b})"
        if shape == 3:
            return f"({a} {self.rng.choice(['//', '%'])} ({b} | 1))"
        if shape == 4:
            return f"({a} {self.rng.choice(_BITWISE)} {b})"
        if shape == 5:
            return f"({a} {self.rng.choice(['<<', '>>'])} ({b} & 7))"
        if shape == 6:
            return f"{self.rng.choice(['min', 'max'])}({a}, {b})"
        if shape == 7:
            return f"({a} if {self.expression('bool', depth)} else {b})"
        return self.rng.choice([f"(-{a})", f"(~{a})", f"abs({a})"])

    def _float(self, depth: int) -> str:
        a, b = self.expression("float", depth), self.expression("float", depth)
        shape = self.rng.randrange(9)
        if shape <= 2:
            return f"({a} {self.rng.choice(_ARITHMETIC)} {b})"
        if shape == 3:
            return f"({a} {self.rng.choice(['/', '//', '%'])} (abs({b}) + 1.0))"
        if shape == 4:
            return f"math.{self.rng.choice(_MATH)}({a})"
        if shape == 5:
            return self.rng.choice([f"math.sqrt(abs({a}))", f"math.log(abs({a}) + 1.0)", f"math.exp(-abs({a}))"])
        if shape == 6:
            return f"({a} if {self.expression('bool', depth)} else {b})"
        if shape == 7:
            return self.rng.choice([f"float({self.expression('int', depth)})", self._from_complex(depth)])
        return self.rng.choice([f"(-{a})", f"abs({a})", f"({a} ** 2)"])

    def _from_complex(self, depth: int) -> str:
        c = self.expression("complex", depth)
        return self.rng.choice([f"abs({c})", f"{c}.real", f"{c}.imag"])

    def _complex(self, depth: int) -> str:
        a, b = self.expression("complex", depth), self.expression("complex", depth)
        shape = self.rng.randrange(5)
        if shape <= 1:
            return f"({a} {self.rng.choice(_ARITHMETIC)} {b})"
        if shape == 2:
            return f"({a} * {self.expression('float', depth)})"
        if shape == 3:
            return f"({a} if {self.expression('bool', depth)} else {b})"
        return self.rng.choice([f"(-{a})", f"{a}.conjugate()"])

    def _bool(self, depth: int) -> str:
        kind = self.rng.choice(["int", "float"])
        shape = self.rng.randrange(4)
        if shape <= 1:
            a, b = self.expression(kind, depth), self.expression(kind, depth)
            return f"({a} {self.rng.choice(_COMPARISONS)} {b})"
        if shape == 2:
            a, b = self.expression("bool", depth), self.expression("bool", depth)
            return f"({a} {self.rng.choice(['and', 'or'])} {b})"
        return f"(not {self.expression('bool', depth)})"


def _kind(type_name: str) -> str:
    if type_name in FLOATS or type_name in COMPLEX:
        return "float" if type_name in FLOATS else "complex"
    return "bool" if type_name == "bool" else "int"


def program(seed: int) -> Program:
    """The program drawn from *seed* (the same on every machine)."""
    rng = random.Random(seed)
    types = [rng.choice(TYPES) for _ in range(3)]
    w = _Writer(rng, {f"a{k}": _kind(t) for k, t in enumerate(types)})
    body = []
    for n in range(rng.randint(1, 3)):
        kind = rng.choice(["int", "float", "bool"])
        body.append(f"v{n} = {w.expression(kind, 3)}")
        w.kinds[f"v{n}"] = kind
    kind = rng.choice(["int", "float"])
    body += [
        f"if {w.expression('bool', 2)}:",
        f"    c = {w.expression(kind, 2)}",
        "else:",
        f"    c = {w.expression(kind, 2)}",
    ]
    w.kinds["c"] = kind
    acc_kind = rng.choice(["int", "float"])
    body.append(f"acc = {w.leaf(acc_kind)}")
    w.kinds["acc"] = acc_kind
    w.kinds["k"] = "int"
    body += [f"for k in range({rng.randint(1, 4)}):", f"    acc = {w.expression(acc_kind, 2)}"]
    del w.kinds["k"]  # the loop's counter stays inside it
    result_kind = rng.choice(["int", "float", "bool", "complex"])
    body.append(f"return g({w.expression(result_kind, 2)}, {w.expression(result_kind, 1)})")
    g_kind = result_kind
    helper = _Writer(rng, {"p": g_kind, "q": g_kind})
    g_body = f"return {helper.expression(g_kind, 2)}"
    source = "\n".join(
        [
            "import math",
            "",
            "def g(p, q):",
            f"    {g_body}",
            "",
            "def f(a0, a1, a2):",
            *(f"    {line}" for line in body),
            "",
        ]
    )
    return Program(seed, source, types)
