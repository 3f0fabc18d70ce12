"""Random well-typed kernels, drawn from a small grammar of Python as kernels write it.

A program is a device function ``f`` of three scalar inputs (bool, any integer, float16,
float32, float64, complex64, complex128), built from assignments, an ``if``/``else``, a
counted loop that may ``break`` or ``continue``, tuples (built, indexed with constants,
unpacked, returned by ``g``), a ``cuda.local.array`` filled in a loop and reduced
(``sum``, ``prod``, ``min``, ``max``, ``mean``), calls of a second device function ``g``
and of ``math`` functions, float16 and bfloat16 arithmetic, and casts between every
number type, returning an expression. Its kernel is one of three shapes (shapes.py): each
thread applies ``f`` to three arrays; or it also writes its value into shared memory,
waits at ``cuda.syncthreads()`` and combines it with another thread's (``h``); or it
combines it with a warp shuffle's or a vote's result. Expressions (writer.py) are well
defined on every input, and every type is numba's (typerules.py): the grammar never
assumes a kind numba would not give.
"""

import random
from dataclasses import dataclass, field

from . import shapes
from . import typerules as tr
from .expressions import Build, Convert, Item, Reduction, Var
from .writer import Writer

TYPES = ["bool", *tr.INTEGERS, "float16", *tr.FLOATS, *tr.COMPLEX]
RESULT_KINDS = ["int", "float", "bool", "complex", "half"]
_LOCAL_TYPES = ["int32", "int64", "uint32", "float32", "float64"]
_REDUCTIONS = ["sum", "prod", "min", "max", "mean"]


@dataclass
class Program:
    """The device source (``g``, ``f``, maybe ``h``, ``share`` or ``vote``, and ``kernel``),
    the host's (the same functions as the host computes them, and ``run``), the input and
    result types (numba's names, as the device types them) and how the kernel is launched."""

    seed: int
    source: str
    input_types: list
    host_source: str = ""
    result_type: str = "float64"
    shape: str = "map"
    launch: tuple = (3, 128)
    size: int = 257  # elements of each array
    features: set = field(default_factory=set)


class _Function:
    """The lines of one function being written, for the device and the host."""

    def __init__(self, writer):
        self.w = writer
        self.device, self.host = [], []

    def line(self, device, host=None, indent=0):
        self.device.append("    " * indent + device)
        self.host.append("    " * indent + (device if host is None else host))

    def assign(self, name, node, indent=0):
        self.line(f"{name} = {node.text(self.w.env, False)}", f"{name} = {node.text(self.w.env, True)}", indent)

    def bind(self, name, node, *also):
        self.w.env[name] = self.w.typeof(node)
        self.depends(name, node, *also)

    def depends(self, name, *nodes):
        """Mark *name* as depending on the inputs where one of *nodes* reads one that does."""
        if any(node.names() & self.w.live for node in nodes):
            self.w.live.add(name)


def _scalar(f, name, kind, depth):
    """``name = <an expression of kind>``, reading a variable: numba prunes the branches of
    a test on a variable assigned once a constant (or a comparison of constants) before
    typing, which would leave values the grammar typed untyped."""
    node = f.w.expression_reading(kind, depth, f.w.env)
    for _ in range(4):
        if node.names():
            break
        node = f.w.from_other_kind(kind) or node
    f.assign(name, node)
    f.bind(name, node)


def _tuple(f, rng, n, features):
    items = [f.w.expression(rng.choice(["int", "float", "bool", "complex"]), 2) for _ in range(rng.randint(2, 3))]
    name = f"t{n}"
    f.assign(name, Build(items))
    f.bind(name, Build(items))
    features.add("tuple")
    types = f.w.env[name]
    if rng.random() < 0.5:
        targets = [f"t{n}_{k}" for k in range(len(types))]
        f.line(f"{', '.join(targets)} = {name}")
        f.w.env.update(zip(targets, types))
        for target in targets:
            f.depends(target, Var(name))
    else:
        index = rng.randrange(len(types))
        f.assign(f"t{n}_{index}", Item(name, index))
        f.w.env[f"t{n}_{index}"] = types[index]
        f.depends(f"t{n}_{index}", Var(name))


def _local_array(f, rng, n, features):
    dtype, size = rng.choice(_LOCAL_TYPES), rng.randint(2, 6)
    name = f"la{n}"
    f.line(f"{name} = cuda.local.array({size}, np.{dtype})", f"{name} = np.empty({size}, np.{dtype})")
    f.line(f"for k in range({size}):")
    f.w.env["k"] = "int64"
    value = f.w.expression(tr.kind(dtype), 2)
    del f.w.env["k"]
    f.line(
        f"{name}[k] = {value.text({**f.w.env, 'k': 'int64'}, False)}",
        f"{name}[k] = {value.text({**f.w.env, 'k': 'int64'}, True)}",
        1,
    )
    f.w.env[name] = tr.LocalArray(dtype, size)
    f.depends(name, value)
    features.add("local array")
    for r in range(rng.randint(1, 2)):
        method = rng.choice(_REDUCTIONS)
        reduced = Reduction(name, method, function_form=rng.random() < 0.5)
        f.assign(f"r{n}_{r}", reduced)
        f.bind(f"r{n}_{r}", reduced)
        features.add(f"reduction {method}")


def _branches(f, rng):
    kind = rng.choice(["int", "float", "half"])
    test = f.w.expression("bool", 2)
    then, otherwise = f.w.expression(kind, 2), f.w.expression(kind, 2)
    try:
        unified = tr.unify(f.w.typeof(then), f.w.typeof(otherwise))
        if test.constant_test() and f.w.typeof(then) != f.w.typeof(otherwise):
            raise tr.Untypable("numba may type one branch only")
    except tr.Untypable:
        otherwise, unified = then, f.w.typeof(then)
    if tr.merged_explicitly(f.w.typeof(then), f.w.typeof(otherwise)):
        then, otherwise = Convert(unified, then), Convert(unified, otherwise)
    f.line(f"if {test.text(f.w.env, False)}:", f"if {test.text(f.w.env, True)}:")
    f.assign("c", then, 1)
    f.line("else:")
    f.assign("c", otherwise, 1)
    f.w.env["c"] = unified
    f.depends("c", test, then, otherwise)


def _loop(f, rng, features):
    """``acc`` updated in a counted loop, maybe leaving it or skipping an update on a test;
    its type is numba's: the unification of every value assigned, to a fixed point."""
    kind = rng.choice(["int", "float", "half"])
    start = f.w.leaf(kind)
    acc = f.w.typeof(start)
    f.w.env.update(acc=acc, k="int64")
    body = f.w.expression(kind, 2)
    escape = None
    if rng.random() < 0.5:
        escape = (f.w.expression("bool", 1), rng.choice(["break", "continue"]), rng.random() < 0.5)
        if escape[0].constant_test():  # the update might never be typed
            escape = None
    for _ in range(4):
        try:
            f.w.env["acc"] = acc
            unified = tr.unify(acc, f.w.typeof(body))
            if escape is not None and f.w.typeof(escape[0]) != "bool":
                escape = None
        except tr.Untypable:
            body, unified = Var("acc"), acc
        if unified == acc:
            break
        acc = unified
    else:
        body = Var("acc")
    env = f.w.env
    first = f.w.typeof(start)
    if tr.merged_explicitly(first, acc):
        start = Convert(acc, start)  # the type it ends with, from the start (tr.merged_explicitly)
    f.assign("acc", start)
    f.depends("acc", start, body)
    f.line(f"for k in range({rng.randint(1, 5)}):")
    if escape is not None and not escape[2]:
        f.line(f"if {escape[0].text(env, False)}:", f"if {escape[0].text(env, True)}:", 1)
        f.line(escape[1], indent=2)
    f.assign("acc", body, 1)
    if escape is not None and escape[2]:
        f.line(f"if {escape[0].text(env, False)}:", f"if {escape[0].text(env, True)}:", 1)
        f.line(escape[1], indent=2)
    if escape is not None:
        features.add(escape[1])
    del f.w.env["k"]


def _helper(rng, name, params, kind, features):
    """A device function *name* of *params* (name -> type) returning an expression of *kind*
    (or a pair, for ``g``, when *kind* is "pair"): its lines and its result's type."""
    w = Writer(rng, params, features)
    if kind == "pair":
        node = Build([w.expression_reading(rng.choice(["int", "float", "bool"]), 2, params) for _ in range(2)])
        features.add("tuple")
    else:
        node = w.expression_reading(kind, 2, params)
    signature = f"def {name}({', '.join(params)}):"
    lines = [signature, f"    return {node.text(w.env, False)}"], [signature, f"    return {node.text(w.env, True)}"]
    return lines, w.typeof(node)


def _writes_narrow(text, features):
    for name in ("float16", "bfloat16"):
        if f"{name}(" in text:
            features.add(name)


def program(seed: int) -> Program:
    """The program drawn from *seed* (the same on every machine)."""
    rng = random.Random(seed)
    types = [rng.choice(TYPES) for _ in range(3)]
    features = set()
    w = Writer(rng, {f"a{k}": t for k, t in enumerate(types)}, features)
    f = _Function(w)
    for n in range(rng.randint(1, 3)):
        what = rng.random()
        if what < 0.55:
            _scalar(f, f"v{n}", rng.choice(["int", "int", "float", "float", "bool", "half", "bf16"]), 3)
        elif what < 0.75:
            _tuple(f, rng, n, features)
        else:
            _local_array(f, rng, n, features)
    _branches(f, rng)
    _loop(f, rng, features)
    result_kind = rng.choice(RESULT_KINDS)
    arguments = [w.expression_reading(result_kind, 2, w.live), w.expression_reading(result_kind, 1, w.live)]
    params = {"p": w.typeof(arguments[0]), "q": w.typeof(arguments[1])}
    call = ", ".join(a.text(w.env, False) for a in arguments), ", ".join(a.text(w.env, True) for a in arguments)
    if rng.random() < 0.3:
        g_lines, pair = _helper(rng, "g", params, "pair", features)
        f.line(f"r, s = g({call[0]})", f"r, s = g({call[1]})")
        w.env.update(r=pair[0], s=pair[1])
        w.live |= {"r", "s"}
        node = w.expression_reading(result_kind, 2, ["r", "s"])
        f.assign("result", node)
        f.bind("result", node)
        f.line("return result")
        result = w.env["result"]
    else:
        g_lines, result = _helper(rng, "g", params, result_kind, features)
        f.line(f"return g({call[0]})", f"return g({call[1]})")
    signature = f"def f({', '.join(f'a{k}' for k in range(3))}):"
    device = [*g_lines[0], "", signature, *(f"    {line}" for line in f.device), ""]
    host = [*g_lines[1], "", signature, *(f"    {line}" for line in f.host), ""]
    shape = shapes.draw(rng, result)
    extra_device, extra_host, result = shape.helpers(rng, features)
    device += extra_device
    host += extra_host
    text = "\n".join(device)
    _writes_narrow(text, features)
    features.update(t for t in types if t in ("float16", "uint64"))
    features |= shape.features
    return Program(
        seed,
        "\n".join(["import math", "", text, shape.kernel()]),
        types,
        host_source="\n".join(["import math", "", "\n".join(host), shape.host()]),
        result_type=result,
        shape=shape.name,
        launch=shape.launch,
        size=shape.size,
        features=features,
    )
