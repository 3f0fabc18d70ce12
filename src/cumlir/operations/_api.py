"""The building blocks of an intrinsic area: stubs, declarations and lazily imported modules.

Everything here is plain Python, so that ``from cumlir import cuda`` (which exposes the
stubs) loads neither numba, MLIR nor the CUDA driver. A typer or lowering rule is a
Python function registered on its stub by a decorator; numba and MLIR reach its body
through :func:`lazy` modules. ``cumlir.typing.operations`` and
``cumlir.lowering.operations`` install what the areas declare.
"""

import importlib


class lazy:
    """A module imported on first attribute access: ``types = lazy("numba.core.types")``."""

    __slots__ = ("_name", "_module")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attr):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self):
        return f"<lazy module {self._name}>"


# every declaration made so far, in order (the registry in __init__.py reads it)
declarations = []

# the LLVM 7 printer's tables contributed by the areas: table -> {NVVM op: what it prints as}
NVVM_TABLES = (
    "special_registers",
    "asm_registers",
    "nullary",
    "calls",
    "asm_statements",
    "asm_operations",
    "known_calls",
)
nvvm = {table: {} for table in NVVM_TABLES}


def _is_rule(pattern):
    return callable(pattern) and not isinstance(pattern, str)


class Intrinsic:
    """The typing and lowering of one operation, found by its key: a stub, or a Python
    callable that is not cumlir's (``math.sin``). ``declare(key)`` makes one for the latter.

    Its typing is either a typer (``@x.typer``: numba's CallableTemplate) or a list of
    signatures (``@x.cases``: numba's ConcreteTemplate); its lowering is one or more rules
    ``rule(lower, sig, args) -> value`` registered with ``@x.lower(patterns...)``.
    """

    # its numba type, set when the typing context installs it; a typer may return a
    # namespace's type to hand out the namespace as a value (cuda.cg.this_grid())
    numba_type = None

    def __init__(self, key, name):
        self._key = key
        self._name = name
        self._typing = None  # ("typer" | "cases", function)
        self._lowering = []  # [(patterns, rule)]
        declarations.append(self)

    def _set_typing(self, kind, fn):
        if self._typing is not None:
            raise ValueError(f"{self._name} already has its typing ({self._typing[1].__qualname__})")
        self._typing = (kind, fn)
        return fn

    def typer(self, fn):
        """Decorator: ``fn(*argument types) -> result type`` (or a full Signature), keywords
        bound by fn's own parameters, as numba's CallableTemplate; raise numba's TypingError
        with a clear message to reject the arguments."""
        return self._set_typing("typer", fn)

    def cases(self, fn):
        """Decorator: ``fn() -> [Signature, ...]``, the signatures numba picks from after
        converting the arguments (numba's ConcreteTemplate). Called once numba is loaded."""
        return self._set_typing("cases", fn)

    def lower(self, *patterns):
        """Decorator: the lowering ``rule(lower, sig, args) -> value`` for arguments matching
        *patterns*, names in ``numba.core.types`` ("Integer", "float32", "Any"; "*Any" for
        any further arguments). ``@x.lower`` or ``@x.lower()`` take any arguments."""
        if len(patterns) == 1 and _is_rule(patterns[0]):
            self._lowering.append((("*Any",), patterns[0]))
            return patterns[0]

        def decorate(rule):
            self._lowering.append((patterns or ("*Any",), rule))
            return rule

        return decorate

    def __repr__(self):
        return f"<intrinsic {self._name}>"


def declare(key, name=None):
    """Declarations for *key*, an operation that is not a cumlir stub (``math.sin``)."""
    return Intrinsic(key, name or f"{getattr(key, '__module__', '')}.{key.__name__}".lstrip("."))


class Method(Intrinsic):
    """A method of the values of a numba type class (``x.bit_count()`` on integers):
    ``method("Integer", "bit_count")``. Its typer is called with the receiver's type first;
    its rules get the receiver as the first argument. numba's key is "Integer.bit_count"."""

    def __init__(self, receiver, name):
        super().__init__(f"{receiver}.{name}", f"{receiver}.{name}")
        self.receiver = receiver  # a type class name in numba.core.types
        self.method = name

    def cases(self, fn):
        raise TypeError(f"{self._name}: a method is typed by a typer, not cases")


def method(receiver, name):
    """Declarations for the method *name* of values of the numba type class *receiver*."""
    return Method(receiver, name)


class Stub(Intrinsic):
    """A name that only has a meaning inside a kernel or device function (``cuda.syncthreads``).

    On the host calling it raises RuntimeError; it pickles by name.
    """

    def __init__(self, name, doc=None):
        super().__init__(self, f"cuda.{name}")
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc

    def __repr__(self):
        return f"<cumlir.cuda.{self.__name__}>"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cuda.{self.__name__} can only be used inside a function compiled with @cuda.jit")

    def __reduce__(self):
        # stubs are singletons: pickling refers to them by name
        from . import stub

        return (stub, (self.__name__,))


class Register(Stub):
    """A stub read as a value rather than called (``cuda.laneid``): its numba type is
    *type_name*, a name in ``numba.core.types``, and ``@register.read`` gives its lowering
    ``rule(lower) -> value``. Read as ``cuda.laneid`` or imported by name, as numba types
    a global of a registered type."""

    def __init__(self, name, type_name, doc=None):
        super().__init__(name, doc)
        self.type_name = type_name
        self.read_rule = None

    def read(self, rule):
        """Decorator: the lowering ``rule(lower) -> value`` of reading the register."""
        self.read_rule = rule
        return rule


class Namespace(Stub):
    """A stub that is read rather than called: a namespace of stubs (``cuda.shared.array``)
    or a register with attributes (``threadIdx.x``). Kernels see it as one numba type,
    ``cumlir.typing.operations.StubNamespace``."""

    def __init__(self, name, doc=None):
        super().__init__(name, doc)
        self._members = {}  # attribute -> Stub
        self._attributes = {}  # attribute -> [typer, lowering rule]

    def _claim(self, attr):
        if attr in self._members or attr in self._attributes or hasattr(type(self), attr):
            raise ValueError(f"cuda.{self.__name__}.{attr} is declared twice or hides a method")

    def function(self, attr, doc=None):
        """A stub called as ``cuda.<namespace>.<attr>(...)``; give it a typer and a rule."""
        self._claim(attr)
        return self._member(attr, Stub(f"{self.__name__}.{attr}", doc))

    def namespace(self, attr, doc=None):
        """A namespace within this one (``cuda.cg.grid_group``)."""
        self._claim(attr)
        return self._member(attr, Namespace(f"{self.__name__}.{attr}", doc))

    def _member(self, attr, stub):
        self._members[attr] = stub
        setattr(self, attr, stub)
        return stub

    def attribute(self, *attrs):
        """Decorator: the typing ``fn(attr) -> numba type`` of reading the attributes *attrs*."""

        def decorate(typer):
            for attr in attrs:
                self._claim(attr)
                self._attributes[attr] = [typer, None]
            return typer

        return decorate

    def lower_attribute(self, *attrs):
        """Decorator: the lowering ``rule(lower, attr) -> value`` of reading *attrs*."""

        def decorate(rule):
            for attr in attrs:
                if attr not in self._attributes:
                    raise ValueError(f"cuda.{self.__name__}.{attr}: declare its typing with .attribute first")
                self._attributes[attr][1] = rule
            return rule

        return decorate

    def __getattr__(self, attr):
        if attr in self.__dict__.get("_attributes", ()):
            raise RuntimeError(f"cuda.{self.__name__}.{attr} can only be read inside a function compiled with @cuda.jit")
        raise AttributeError(attr)


def nvvm_ops(**tables):
    """Declare the NVVM dialect ops an area emits, for the LLVM 7 printer of the "nvvm" path
    (``codegen/intrinsics_nvvm.py``), e.g. ``nvvm_ops(nullary={"nvvm.barrier0": "llvm.nvvm.barrier0"})``.
    Tables: special_registers and nullary (op -> intrinsic), calls (op -> intrinsic taking
    the op's operands and giving its result), asm_registers (op -> PTX register),
    asm_statements (op -> PTX), asm_operations (op -> (PTX, constraints)),
    known_calls (intrinsic names called through llvm.call_intrinsic)."""
    for table, entries in tables.items():
        if table not in nvvm:
            raise ValueError(f"nvvm_ops: unknown table {table!r}; one of {', '.join(NVVM_TABLES)}")
        if table == "known_calls":
            entries = dict.fromkeys(entries, True)
        for op, target in entries.items():
            if nvvm[table].setdefault(op, target) != target:
                raise ValueError(f"nvvm_ops: {op} is declared as both {nvvm[table][op]} and {target}")
