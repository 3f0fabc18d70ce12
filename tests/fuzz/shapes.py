"""The kernels a program's ``f`` runs in, and the host's ``run`` computing what each
thread of them stores.

- map: each thread stores ``f`` of three inputs read at different places.
- shared: each thread also writes its value of ``f`` into shared memory, waits at
  ``cuda.syncthreads()``, reads another thread's of its block and stores ``h`` of both.
- warp: each thread stores ``h`` of its value and a warp shuffle's (``shfl_sync``,
  ``shfl_up_sync``, ``shfl_down_sync``, ``shfl_xor_sync``) or a vote's (``all_sync``,
  ``any_sync``, ``ballot_sync``) result, every warp whole (launch sizes are multiples of 32).

The host's ``run`` names what it stores ``result`` (check.py reads numba's type of it).
It computes every thread's value of ``f`` first, then what each thread reads from
the others: the neighbour's value from the array of all of them, or the warp's answer from
its 32 values. Nothing of CUDA's runs on the host.
"""

from . import typerules as tr
from .writer import Writer

# each element reads the three inputs at different places
READS = "x0[i], x1[(i * 7 + 3) % x1.size], x2[out.size - 1 - i]"
FULL = "0xFFFFFFFF"
THREADED_SIZE = 256  # elements of a shared or warp program: whole blocks, whole warps
_SHUFFLES = ["shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync"]
_VOTES = ["all_sync", "any_sync", "ballot_sync"]
_VOTE_TYPES = {"all_sync": "bool", "any_sync": "bool", "ballot_sync": "int32"}
_RESULT_KINDS = ["int", "float", "bool", "complex", "half"]


def host_dtype(type_name):
    """The NumPy name of the host's array of *type_name* (narrow floats are float32 there)."""
    if type_name in ("float16", "bfloat16"):
        return "float32"
    return "bool_" if type_name == "bool" else type_name


def draw(rng, value_type):
    """The kernel shape for an ``f`` returning *value_type*."""
    shape = rng.choice(["map", "map", "shared", "warp"])
    if shape == "shared":
        return Shared(rng, value_type)
    if shape == "warp":
        return Warp(rng, value_type)
    return Map(value_type)


class Map:
    name = "map"
    launch = (3, 128)
    size = 257  # two blocks of 128 and one more

    def __init__(self, value_type):
        self.value_type = value_type
        self.features = {"map"}

    def helpers(self, rng, features):
        return [], [], self.value_type

    def kernel(self):
        return (
            f"def kernel(x0, x1, x2, out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = f({READS})\n"
        )

    def host(self):
        return f"def run(x0, x1, x2, out):\n    for i in range(out.size):\n        result = f({READS})\n        out[i] = result\n"


def _combine(rng, v_type, w_type, features):
    """``h(v, w)``, device and host lines, and its result type."""
    w = Writer(rng, {"v": v_type, "w": w_type}, features)
    # of the kind of what the thread received, or of its own value, half of the time
    kind = rng.choice([tr.kind(w_type), tr.kind(v_type), *_RESULT_KINDS])
    node = w.expression_reading(kind if kind in _RESULT_KINDS else "float", 2, ["w"], attempts=32)
    lines = [["def h(v, w):", f"    return {node.text(w.env, host)}", ""] for host in (False, True)]
    return lines[0], lines[1], w.typeof(node)


class Shared:
    name = "shared"
    size = THREADED_SIZE

    def __init__(self, rng, value_type):
        self.value_type = value_type
        self.block = rng.choice([32, 64, 128, 256])
        self.launch = (self.size // self.block, self.block)
        self.stride, self.offset = rng.randint(0, 5), rng.randrange(self.block)
        self.features = {"shared"}

    def helpers(self, rng, features):
        return _combine(rng, self.value_type, self.value_type, features)

    def _neighbour(self, t):
        return f"({t} * {self.stride} + {self.offset}) % {self.block}"

    def kernel(self):
        return "\n".join([
            "def kernel(x0, x1, x2, out):",
            "    i = cuda.grid(1)",
            "    t = cuda.threadIdx.x",
            f"    values = cuda.shared.array({self.block}, np.{_device_dtype(self.value_type)})",
            f"    v = f({READS})",
            "    values[t] = v",
            "    cuda.syncthreads()",
            f"    out[i] = h(v, values[{self._neighbour('t')}])",
            "",
        ])  # fmt: skip

    def host(self):
        return "\n".join([
            "def run(x0, x1, x2, out):",
            f"    values = np.empty(out.size, np.{host_dtype(self.value_type)})",
            "    for i in range(out.size):",
            f"        values[i] = f({READS})",
            "    for i in range(out.size):",
            f"        t = i % {self.block}",
            f"        result = h(values[i], values[i - t + {self._neighbour('t')}])",
            "        out[i] = result",
            "",
        ])  # fmt: skip


def _device_dtype(type_name):
    return "bool_" if type_name == "bool" else type_name


def _shared_value(value_type):
    """What a warp shuffles of a value: a type every shuffle takes (int32, int64, float32,
    float64), as the text of ``share(v)``'s result."""
    kind = tr.kind(value_type)
    if kind == "bool":
        return "int32(v)", "int32"
    if kind == "int":
        return "int64(v)", "int64"
    if kind == "half":
        return "float32(v)", "float32"
    if kind == "complex":
        return "v.real", "float32" if value_type == "complex64" else "float64"
    return "v", value_type


class Warp:
    name = "warp"
    size = THREADED_SIZE

    def __init__(self, rng, value_type):
        self.value_type = value_type
        self.block = rng.choice([32, 64, 128])
        self.launch = (self.size // self.block, self.block)
        self.operation = rng.choice(_SHUFFLES + _VOTES)
        self.delta = rng.randint(1, 31)
        self.stride, self.offset = rng.randint(0, 5), rng.randrange(32)
        self.features = {"warp", self.operation}

    def helpers(self, rng, features):
        if self.operation in _VOTES:
            w = Writer(rng, {"v": self.value_type}, features)
            test = w.expression_reading("bool", 2, ["v"], attempts=16)
            device = ["def vote(v):", f"    return {test.text(w.env, False)}", ""]
            host = ["def vote(v):", f"    return {test.text(w.env, True)}", ""]
            self.s_type, self.w_type = "bool", _VOTE_TYPES[self.operation]
        else:
            text, self.s_type = _shared_value(self.value_type)
            device = host = ["def share(v):", f"    return {text}", ""]
            self.w_type = self.s_type
        d, h, result = _combine(rng, self.value_type, self.w_type, features)
        return device + d, host + h, result

    def _argument(self):
        if self.operation == "shfl_sync":
            return f"(lane * {self.stride} + {self.offset}) % 32"
        return str(self.delta)

    def kernel(self):
        if self.operation in _VOTES:
            exchange = f"cuda.{self.operation}({FULL}, vote(v))"
        else:
            exchange = f"cuda.{self.operation}({FULL}, share(v), {self._argument()})"
        return "\n".join([
            "def kernel(x0, x1, x2, out):",
            "    i = cuda.grid(1)",
            "    lane = cuda.laneid",
            f"    v = f({READS})",
            f"    out[i] = h(v, {exchange})",
            "",
        ])  # fmt: skip

    def _received(self):
        """The host's text of what lane ``lane`` of the warp starting at ``base`` receives."""
        d = self.delta
        return {
            "shfl_sync": f"shared[base + {self._argument()}]",
            "shfl_up_sync": f"shared[i - {d}] if lane >= {d} else shared[i]",
            "shfl_down_sync": f"shared[i + {d}] if lane + {d} < 32 else shared[i]",
            "shfl_xor_sync": f"shared[base + (lane ^ {d})]",
            "all_sync": "warp_all(shared, base)",
            "any_sync": "warp_any(shared, base)",
            "ballot_sync": "warp_ballot(shared, base)",
        }[self.operation]

    def host(self):
        exchanged = "vote" if self.operation in _VOTES else "share"
        return "\n".join([
            "def run(x0, x1, x2, out):",
            f"    values = np.empty(out.size, np.{host_dtype(self.value_type)})",
            f"    shared = np.empty(out.size, np.{host_dtype(self.s_type)})",
            "    for i in range(out.size):",
            f"        values[i] = f({READS})",
            f"        shared[i] = {exchanged}(values[i])",
            "    for i in range(out.size):",
            "        lane = i % 32",
            "        base = i - lane",
            f"        result = h(values[i], {self._received()})",
            "        out[i] = result",
            "",
        ])  # fmt: skip
