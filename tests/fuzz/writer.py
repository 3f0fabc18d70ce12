"""Random expressions of a kind ("bool", "int", "float", "half", "bf16", "complex") over
the variables bound so far, each well defined on every input: divisors are made odd
(integers) or at least one (floats), shift amounts are masked below the narrowest width,
exponents are small, ``math`` functions get arguments inside their domain, and a float
becomes an integer only when it is inside the integer's range (a NaN, an infinity or a
value too large becomes 0 first)."""

from . import typerules as tr
from .expressions import Binary, Call, Conditional, Const, Convert, Element, Part, Unary, Var

_ARITHMETIC = ["+", "-", "*"]
_BITWISE = ["&", "|", "^"]
_MATH = ["sin", "cos", "tanh", "atan"]  # defined everywhere
_NARROW_MATH = ["sin", "cos", "tanh"]  # the math functions cumlir and numba-cuda keep narrow
_CAST_TARGETS = tr.INTEGERS
# a bound below each integer type's largest value, within which a float converts exactly
_CAST_BOUND = {"int8": 100.0, "uint8": 200.0, "int16": 1000.0, "uint16": 1000.0}
_SCALAR_KINDS = ("bool", "int", "float", "half", "bf16", "complex")
_ATTEMPTS = 4  # draws of a shape before settling for a leaf (numba gave another kind)


class Writer:
    def __init__(self, rng, env, features=None):
        self.rng = rng
        self.env = dict(env)  # variable -> type
        self.features = features if features is not None else set()  # what the program uses, by name
        self.live = set(self.env)  # the variables that depend on the inputs

    def variable(self, kind):
        """A variable of *kind*, those depending on the inputs drawn three times as often."""
        names = [n for n, t in self.env.items() if tr.kind(t) == kind]
        names += [n for n in names if n in self.live] * 2
        return self.rng.choice(names) if names else None

    def leaf(self, kind):
        name = self.variable(kind)
        if name is not None and self.rng.random() < 0.85:
            return Var(name)
        if name is None and self.rng.random() < 0.7:
            bridge = self.from_other_kind(kind)
            if bridge is not None:
                return bridge
        if kind == "bool":
            return Const(self.rng.choice([True, False]))
        if kind == "int":
            return Const(self.rng.randint(-5, 9))
        if kind == "complex":
            return Call("complex", [self.leaf("float"), self.leaf("float")])
        if kind == "half":
            return Convert("float16", self._float_constant())
        if kind == "bf16":
            return Convert("bfloat16", self._float_constant())
        return self._float_constant()

    def from_other_kind(self, kind):
        """A value of *kind* made from a variable of another kind that depends on the
        inputs (so that a program's values vary where it has no variable of a kind), or None."""
        node = self._converted(kind)
        try:
            return node if node is not None and tr.kind(self.typeof(node)) == kind else None
        except tr.Untypable:
            return None

    def _converted(self, kind):
        names = sorted(n for n in self.live if n in self.env and tr.kind(self.env[n]) in _SCALAR_KINDS)
        if not names:
            return None
        name = self.rng.choice(names)
        source = tr.kind(self.env[name])
        x = Var(name)
        if source in ("half", "bf16"):
            x, source = Convert("float32", x), "float"
        elif source == "complex":
            x, source = Part(x, "real"), "float"
        if kind == "bool":
            return x if source == "bool" else Binary(">", x, Const(0))
        if kind == "int":
            return Convert("int32", x) if source != "float" else self._float_to_int(0, x)
        if source != "float" and kind in ("float", "complex"):
            x = Convert("float64", x)
        if kind == "float":
            return x
        if kind == "complex":
            return Call("complex", [x, self._float_constant()])
        name = "float16" if kind == "half" else "bfloat16"
        if source == "bool":
            return None
        return Convert(name, x if source == "float" else Convert("int32", x))

    def _float_constant(self):
        return Const(round(self.rng.uniform(-4, 4), 3))

    def expression(self, kind, depth):
        """An expression numba types as *kind* (a leaf where the shapes drawn are not)."""
        if depth <= 0 or self.rng.random() < 0.25:
            return self.leaf(kind)
        for _ in range(_ATTEMPTS):
            node = getattr(self, f"_{kind}")(depth - 1)
            try:
                if tr.kind(node.typeof(self.env)) == kind:
                    return node
            except tr.Untypable:
                pass
        return self.leaf(kind)

    def typeof(self, node):
        return node.typeof(self.env)

    def expression_reading(self, kind, depth, names, attempts=8):
        """An expression of *kind* reading one of the variables *names*, where a few draws
        find one (so that what a program computes depends on its inputs)."""
        for _ in range(attempts):
            node = self.expression(kind, depth)
            if node.names() & set(names):
                return node
        return node

    def _int(self, depth):
        a, b = self.expression("int", depth), self.expression("int", depth)
        shape = self.rng.randrange(12)
        if shape <= 2:
            return Binary(self.rng.choice(_ARITHMETIC), a, b)
        if shape == 3:
            return Binary(self.rng.choice(["//", "%"]), a, Binary("|", b, Const(1)))
        if shape == 4:
            return Binary(self.rng.choice(_BITWISE), a, b)
        if shape == 5:
            return Binary(self.rng.choice(["<<", ">>"]), a, Binary("&", b, Const(7)))
        if shape == 6:
            return Call(self.rng.choice(["min", "max"]), [a, b])
        if shape == 7:
            return Conditional(self.expression("bool", depth), a, b)
        if shape == 8:
            return Convert(self.rng.choice(_CAST_TARGETS), a, self.rng.choice(["", "np."]))
        if shape == 9:
            return self._float_to_int(depth)
        if shape == 10:
            return self._element("int", depth) or Unary("-", a)
        return self.rng.choice([Unary("-", a), Unary("~", a), Call("abs", [a])])

    def _float_to_int(self, depth, x=None):
        """``int32(x)``, ``np.uint16(x)`` or ``int(x)`` of a float x inside the target's range."""
        x = self.expression("float", depth) if x is None else x
        target = self.rng.choice(_CAST_TARGETS + ["int"])
        bound = Const(_CAST_BOUND.get(target, 1000.0))
        value = Call("abs", [x]) if target.startswith("uint") or self.rng.random() < 0.3 else x
        inside = Conditional(Binary("<", Call("abs", [x]), bound), value, Const(0.0))
        self.features.add("float to int")
        if target == "int":
            return Call("int", [inside])
        return Convert(target, inside, self.rng.choice(["", "np."]))

    def _element(self, kind, depth):
        name = self.variable("array")
        if name is None or tr.kind(self.env[name].dtype) != kind:
            return None
        return Element(name, self.expression("int", depth))

    def _float(self, depth):
        a, b = self.expression("float", depth), self.expression("float", depth)
        shape = self.rng.randrange(11)
        if shape <= 2:
            return Binary(self.rng.choice(_ARITHMETIC), a, b)
        if shape == 3:
            return Binary(self.rng.choice(["/", "//", "%"]), a, Binary("+", Call("abs", [b]), Const(1.0)))
        if shape == 4:
            return Call(f"math.{self.rng.choice(_MATH)}", [a])
        if shape == 5:
            return self._inside_domain(a, Const(1.0))
        if shape == 6:
            return Conditional(self.expression("bool", depth), a, b)
        if shape == 7:
            return self.rng.choice([Call("float", [self.expression("int", depth)]), self._from_complex(depth)])
        if shape == 8:
            narrow = self.rng.choice(["half", "bf16"])
            return Convert(self.rng.choice(["float32", "float64"]), self.expression(narrow, depth))
        if shape == 9:
            return self._element("float", depth) or Call("abs", [a])
        return self.rng.choice([Unary("-", a), Call("abs", [a]), Binary("**", a, Const(2))])

    def _inside_domain(self, a, one, magnitude=lambda x: Call("abs", [x])):
        """``sqrt``, ``log`` or ``exp`` of *a* made an argument inside its domain."""
        function = self.rng.choice(["sqrt", "log", "exp"])
        if function == "sqrt":
            return Call("math.sqrt", [magnitude(a)])
        if function == "log":
            return Call("math.log", [Binary("+", magnitude(a), one)])
        return Call("math.exp", [Unary("-", magnitude(a))])

    def _from_complex(self, depth):
        c = self.expression("complex", depth)
        return self.rng.choice([Call("abs", [c]), Part(c, "real"), Part(c, "imag")])

    def _complex(self, depth):
        a, b = self.expression("complex", depth), self.expression("complex", depth)
        shape = self.rng.randrange(5)
        if shape <= 1:
            return Binary(self.rng.choice(_ARITHMETIC), a, b)
        if shape == 2:
            return Binary("*", a, self.expression("float", depth))
        if shape == 3:
            return Conditional(self.expression("bool", depth), a, b)
        return self.rng.choice([Unary("-", a), Part(a, "conjugate")])

    def _narrow(self, kind, depth):
        name = "float16" if kind == "half" else "bfloat16"
        one = Convert(name, Const(1.0))
        a, b = self.expression(kind, depth), self.expression(kind, depth)
        shape = self.rng.randrange(8)
        if shape <= 2:
            return Binary(self.rng.choice(_ARITHMETIC), a, b)
        if shape == 3:
            return Binary("/", a, Binary("+", self._magnitude(name, b), one))
        if shape == 4:
            if self.rng.random() < 0.5:
                return Call(f"math.{self.rng.choice(_NARROW_MATH)}", [a])
            return self._inside_domain(a, one, lambda x: self._magnitude(name, x))
        if shape == 5:
            return Conditional(self.expression("bool", depth), a, b)
        if shape == 6:
            return Convert(name, self._narrowable(depth))
        return self.rng.choice([Unary("-", a), self._magnitude(name, a)])

    @staticmethod
    def _magnitude(name, x):
        """``abs(x)`` of the narrow type *name* (numba-cuda's abs of a bfloat16 is a float32)."""
        return Call("abs", [x]) if name == "float16" else Convert(name, Call("abs", [x]))

    def _narrowable(self, depth):
        """A float, or an int32 (numba-cuda converts no narrower integer to bfloat16, and the
        host converts exactly only integers of 32 bits or fewer)."""
        if self.rng.random() < 0.7:
            return self.expression("float", depth)
        value = self.expression("int", depth)
        return value if self.typeof(value) == "int32" else Convert("int32", value)

    def _half(self, depth):
        return self._narrow("half", depth)

    def _bf16(self, depth):
        return self._narrow("bf16", depth)

    def _bool(self, depth):
        kind = self.rng.choice(["int", "int", "int", "float", "float", "float", "half", "bf16"])
        shape = self.rng.randrange(4)
        if shape <= 1:
            a, b = self.expression(kind, depth), self.expression(kind, depth)
            return Binary(self.rng.choice(tr.COMPARISONS), a, b)
        if shape == 2:
            a, b = self.expression("bool", depth), self.expression("bool", depth)
            return Binary(self.rng.choice(["and", "or"]), a, b)
        return Unary("not", self.expression("bool", depth))
