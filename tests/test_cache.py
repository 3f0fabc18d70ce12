"""The on-disk kernel cache without a GPU: what finds an entry, what misses it, and that
the files stay whole under concurrent writers, corruption and unwritable directories.
Kernels are compiled to cubins for sm_90 with nvJitLink; loading them needs a GPU
(test_gpu_cache.py)."""

import contextlib
import importlib.util
import json
import logging
import multiprocessing
import os
import pathlib
import subprocess
import sys
import textwrap
import threading

import pytest

import cumlir
from cumlir import cache, compile_stats
from cumlir.cache import entry, store

CC = (9, 0)
SIG = "void(float32[::1], float32[::1], float32[::1])"
SRC = os.path.dirname(os.path.dirname(os.path.abspath(cumlir.__file__)))

VADD = """
from cumlir import cuda

@cuda.jit(cache=True)
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(folder))
    monkeypatch.delenv("CUMLIR_CACHE", raising=False)
    monkeypatch.setattr(store, "_warned", False)  # each test sees the warning of its own first refused entry
    return folder


def _module(path, source, name="kernels"):
    """The module of *source*, written to *path* and executed (a fresh module each time)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    # a source of the same size rewritten within the second would run the stale bytecode
    with contextlib.suppress(OSError):  # (some tests make __pycache__ a file)
        pathlib.Path(importlib.util.cache_from_source(str(path))).unlink()
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiled(kernel, sig=SIG):
    """(the cache's verdict, the overload, what the runtime would load) for *sig* on sm_90."""
    overload = kernel.compile(sig)
    binary = overload.binary(CC)
    assert binary.cubin[:4] == b"\x7fELF"
    return overload.compile_stats["cache"], overload, binary


def _verdict(kernel, sig=SIG):
    return _compiled(kernel, sig)[0]


def _entries(folder):
    return sorted(p.name for p in folder.rglob("*.cumlir"))


# ---- hits ----------------------------------------------------------------------------------


def test_a_second_dispatcher_of_the_same_function_hits_without_typing(tmp_path, cache_dir):
    first = _module(tmp_path / "k.py", VADD)
    verdict, _, compiled = _compiled(first.vadd)
    assert verdict == "miss" and len(_entries(cache_dir)) == 1
    again = _module(tmp_path / "k.py", VADD)
    verdict, overload, cached = _compiled(again.vadd)
    assert verdict == "hit"
    assert "frontend" not in overload.compile_stats  # the signature was known to the cache: not typed again
    assert isinstance(cached, cache.CachedKernel)
    assert (cached.cubin, cached.symbol, cached.cooperative) == (compiled.cubin, compiled.symbol, compiled.cooperative)
    assert cached.argtypes == overload.argtypes and cached.raise_sites == [] and cached.exception_global is None


def test_kernels_typed_at_launch_hit_by_their_argument_types(tmp_path, cache_dir):
    np = pytest.importorskip("numpy")
    from cumlir.runtime.arguments import argument_type

    arrays = [np.zeros(4, np.float32) for _ in range(3)]
    argtypes = tuple(argument_type(a, i) for i, a in enumerate(arrays))
    assert _module(tmp_path / "k.py", VADD).vadd.overload_for(argtypes).binary(CC)
    kernel = _module(tmp_path / "k.py", VADD).vadd
    overload = kernel.overload_for(argtypes)
    overload.binary(CC)
    assert overload.compile_stats["cache"] == "hit" and "frontend" not in overload.compile_stats
    assert kernel.overloads == {argtypes: overload}  # kept once it has its binary


STAR = """
from cumlir import cuda

@cuda.jit(cache=True)
def gathered(out, *rest):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = rest[0][i] * rest[1] + len(rest)
"""


def test_a_kernel_gathering_star_args_hits_by_its_launch_types(tmp_path, cache_dir):
    np = pytest.importorskip("numpy")
    from cumlir.runtime.arguments import argument_type

    def overload(*args):
        kernel = _module(tmp_path / "k.py", STAR).gathered
        found = kernel.overload_for(tuple(argument_type(a, i) for i, a in enumerate(args)))
        found.binary(CC)
        return found

    arrays = np.zeros(4, np.float32), np.zeros(4, np.float32)
    assert overload(*arrays, 2.5).compile_stats["cache"] == "miss"
    hit = overload(*arrays, 2.5)
    assert hit.compile_stats["cache"] == "hit" and "frontend" not in hit.compile_stats
    assert overload(*arrays, 2.5, 7).compile_stats["cache"] == "miss"  # another count: another kernel
    assert len(_entries(cache_dir)) == 2


def test_cumlir_cache_variable_caches_every_kernel(tmp_path, cache_dir, monkeypatch):
    source = VADD.replace("@cuda.jit(cache=True)", "@cuda.jit")
    assert _verdict(_module(tmp_path / "k.py", source).vadd) == "off"
    monkeypatch.setenv("CUMLIR_CACHE", "1")
    assert _verdict(_module(tmp_path / "k.py", source).vadd) == "miss"
    assert _verdict(_module(tmp_path / "k.py", source).vadd) == "hit"


def test_entries_go_to_pycache_beside_the_source(tmp_path, monkeypatch):
    monkeypatch.delenv("CUMLIR_CACHE_DIR", raising=False)
    assert _verdict(_module(tmp_path / "pkg" / "k.py", VADD).vadd) == "miss"
    assert len(_entries(tmp_path / "pkg" / "__pycache__")) == 1
    assert _verdict(_module(tmp_path / "pkg" / "k.py", VADD).vadd) == "hit"


def test_entries_go_to_the_user_cache_when_pycache_cannot_be_made(tmp_path, monkeypatch):
    monkeypatch.delenv("CUMLIR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__pycache__").write_text("a file, not a folder")
    assert _verdict(_module(tmp_path / "pkg" / "k.py", VADD).vadd) == "miss"
    assert len(_entries(tmp_path / "xdg" / "cumlir")) == 1
    assert _verdict(_module(tmp_path / "pkg" / "k.py", VADD).vadd) == "hit"


# ---- misses: every input of the key ----------------------------------------------------------


def test_a_change_of_source_misses_and_rewrites_the_entry(tmp_path, cache_dir):
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    changed = VADD.replace("a[i] + b[i]", "a[i] - b[i]")
    assert _verdict(_module(tmp_path / "k.py", changed).vadd) == "miss"
    assert _verdict(_module(tmp_path / "k.py", changed).vadd) == "hit"
    assert len(_entries(cache_dir)) == 1  # the same function's entry, written again


def test_a_change_of_line_numbers_misses(tmp_path, cache_dir):
    # line tables and device exception messages carry them
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    assert _verdict(_module(tmp_path / "k.py", "\n" + VADD).vadd) == "miss"


CLOSURE = """
from cumlir import cuda

def make(k):
    @cuda.jit(cache=True)
    def scale(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] * k + b[i]
    return scale
"""


def test_a_change_of_closure_value_misses(tmp_path, cache_dir):
    module = _module(tmp_path / "k.py", CLOSURE)
    assert _verdict(module.make(2.0)) == "miss"
    assert _verdict(module.make(2.0)) == "hit"
    assert _verdict(module.make(3.0)) == "miss"
    assert _verdict(module.make(3)) == "miss"  # an int, not a float: other code


GLOBALS = """
import numpy as np
from cumlir import cuda
import helpers

SCALE = 2.0
TABLE = np.arange(4, dtype=np.float32)

@cuda.jit(device=True)
def twice(x):
    return x * SCALE

@cuda.jit(cache=True)
def kernel(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = twice(a[i]) + b[i] * TABLE[i % 4] + helpers.OFFSET + helpers.shift(a[i])
"""

HELPERS = """
from cumlir import cuda

OFFSET = 1.0

@cuda.jit(device=True)
def shift(x):
    return x + 1
"""


def _globals_module(tmp_path, monkeypatch):
    (tmp_path / "helpers.py").write_text(HELPERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "helpers", raising=False)
    return _module(tmp_path / "k.py", GLOBALS)


@pytest.mark.parametrize(
    "change",
    [
        "module.SCALE = 3.0",  # a global read by a device function the kernel calls
        "module.TABLE = module.np.arange(4, dtype=module.np.float32) * 2",  # an array's contents
        "module.helpers.OFFSET = 2.0",  # a constant of another module
        "module.helpers.shift = module.cuda.jit(device=True)(lambda x: x + 2)",  # a function of another module
        "module.twice = module.cuda.jit(device=True)(lambda x: x * 4)",  # another device function
    ],
)
def test_a_change_of_a_global_misses(tmp_path, cache_dir, monkeypatch, change):
    module = _globals_module(tmp_path, monkeypatch)
    assert _verdict(module.kernel) == "miss"
    module = _globals_module(tmp_path, monkeypatch)
    assert _verdict(module.kernel) == "hit"
    exec(change, {"module": module})
    assert _verdict(_fresh(module.kernel)) == "miss"


def _fresh(kernel):
    """A new dispatcher of the same function with the same options."""
    from cumlir.dispatcher import Dispatcher

    return Dispatcher(kernel.py_func, options=kernel.options)


def test_a_global_without_a_content_description_is_not_cached(caplog):
    from cumlir.options import Options

    def uses_an_object(a):
        a[0] = OPAQUE.value  # noqa: F821 (a global set below)

    uses_an_object.__globals__["OPAQUE"] = type("Opaque", (), {"value": 1})()
    try:
        with pytest.raises(cache.Unhashable, match="the global 'OPAQUE'"):
            cache.function_fingerprint(uses_an_object)
        with caplog.at_level(logging.DEBUG, logger="cumlir.cache"):
            assert cache.KernelCache(uses_an_object, Options()).load((), CC) is None
        assert "uses_an_object is not cached: the global 'OPAQUE'" in caplog.text
    finally:
        del uses_an_object.__globals__["OPAQUE"]


def test_fingerprints_follow_contents_not_identity():
    np = pytest.importorskip("numpy")

    def make(value):
        def f(a):
            a[0] = value

        return f

    same = [cache.function_fingerprint(make(v)) for v in (np.arange(3), np.arange(3))]
    other = [cache.function_fingerprint(make(v)) for v in (np.arange(3) * 2, np.arange(3.0), (1, 2), (1, 2.0))]
    assert same[0] == same[1]
    assert len(set(other + same[:1])) == 5


@pytest.mark.parametrize("options", [{"fastmath": True}, {"lineinfo": True}, {"max_registers": 32}, {"lto": True}])
def test_a_change_of_option_misses(tmp_path, cache_dir, options):
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    changed = VADD.replace("cache=True", "cache=True, " + ", ".join(f"{k}={v!r}" for k, v in options.items()))
    assert _verdict(_module(tmp_path / "k.py", changed).vadd) == "miss"
    assert _verdict(_module(tmp_path / "k.py", changed).vadd) == "hit"
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "hit"  # each option set has its entry


def test_a_change_of_chip_misses(tmp_path, cache_dir):
    overload = _module(tmp_path / "k.py", VADD).vadd.compile(SIG)
    overload.binary(CC)
    overload = _module(tmp_path / "k.py", VADD).vadd.compile(SIG)
    overload.binary((8, 0))
    assert overload.compile_stats["cache"] == "miss"
    assert len(_entries(cache_dir)) == 2


POLY = 'extern "C" __device__ int poly(long long* result, long long x) { *result = x * x + %d; return 0; }\n'

LINKED = {
    # the item comes with the declaration of the external function
    "declare_device": """
from cumlir import cuda
poly = cuda.declare_device("poly", "int64(int64)", link=[{path!r}])

@cuda.jit(cache=True)
def kernel(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = poly(x[i])
""",
    # the item is the kernel's own link= option
    "jit": """
from cumlir import cuda
poly = cuda.declare_device("poly", "int64(int64)")

@cuda.jit(cache=True, link=[{path!r}])
def kernel(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = poly(x[i])
""",
}


@pytest.mark.parametrize("where", sorted(LINKED))
def test_a_change_of_a_link_item_misses(tmp_path, cache_dir, where):
    cu = tmp_path / "poly.cu"
    cu.write_text(POLY % 1)
    source = LINKED[where].format(path=str(cu))
    sig = "void(int64[::1], int64[::1])"
    assert _verdict(_module(tmp_path / "k.py", source).kernel, sig) == "miss"
    assert _verdict(_module(tmp_path / "k.py", source).kernel, sig) == "hit"
    cu.write_text(POLY % 2)
    assert _verdict(_module(tmp_path / "k.py", source).kernel, sig) == "miss"


def test_a_change_of_version_misses(tmp_path, cache_dir, monkeypatch):
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    monkeypatch.setattr(cumlir, "__version__", cumlir.__version__ + ".post1")
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "hit"
    libraries = dict(cache.versions())
    del libraries["cumlir"]
    for name in ("numba", "xtc-mlir-python-bindings", "nvidia-nvjitlink"):
        monkeypatch.setattr(cache, "_library_versions", {**libraries, name: "0.0"})
        assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss", name
    assert len(_entries(cache_dir)) == 1


# ---- damaged entries and unwritable directories ----------------------------------------------


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_a_damaged_entry_is_ignored_and_rewritten(tmp_path, cache_dir, damage):
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    (path,) = cache_dir.glob("*.cumlir")
    data = path.read_bytes()
    damaged = {
        "truncate": data[: len(data) // 2],
        "flip": data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:],
        "garbage": b"not an entry",
        "empty": b"",
    }[damage]
    path.write_bytes(damaged)
    if damage == "garbage":  # not a cumlir entry at all: said once
        with pytest.warns(cache.CacheWarning, match="not a cumlir cache entry"):
            assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    else:  # what a crash or a bad disk leaves: only logged
        assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    assert path.read_bytes() == data  # rewritten whole
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "hit"


def test_an_unwritable_cache_directory_still_compiles_with_a_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(blocker / "cache"))
    with pytest.warns(cache.CacheWarning, match="could not write"):
        verdict, _, binary = _compiled(_module(tmp_path / "k.py", VADD).vadd)
    assert verdict == "miss" and binary.cubin


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_cache_directory_still_compiles_with_a_warning(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(0o555)
    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(folder))
    try:
        with pytest.warns(cache.CacheWarning):
            assert _compiled(_module(tmp_path / "k.py", VADD).vadd)[2].cubin
    finally:
        folder.chmod(0o755)


def test_a_full_disk_still_compiles_with_a_warning_and_leaves_no_temporary(tmp_path, cache_dir, monkeypatch):
    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "replace", full)
    with pytest.warns(cache.CacheWarning, match="No space left"):
        assert _compiled(_module(tmp_path / "k.py", VADD).vadd)[2].cubin
    assert [p.name for p in cache_dir.iterdir() if not p.name.endswith(".lock")] == []


# ---- concurrent writers --------------------------------------------------------------------


def _compile_in_process(path, folder):
    os.environ["CUMLIR_CACHE_DIR"] = folder
    spec = importlib.util.spec_from_file_location("kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    overload = module.vadd.compile(SIG)
    cubin = overload.binary(CC).cubin
    return overload.compile_stats["cache"], cubin


def test_processes_compiling_one_kernel_compile_it_once(tmp_path, cache_dir):
    path = tmp_path / "k.py"
    path.write_text(VADD)
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.starmap(_compile_in_process, [(str(path), str(cache_dir))] * 4)
    verdicts = sorted(verdict for verdict, _ in results)
    assert verdicts == ["hit", "hit", "hit", "miss"]  # the others waited on the entry's lock, then read it
    cubins = {cubin for _, cubin in results}
    assert len(cubins) == 1
    assert len(_entries(cache_dir)) == 1
    assert not list(cache_dir.glob("*.tmp"))
    verdict, _, binary = _compiled(_module(path, VADD).vadd)
    assert verdict == "hit" and binary.cubin == cubins.pop()


_HOLD_AND_DIE = """
import os, sys
sys.path.insert(0, {src!r})
from cumlir.cache import store
with store.held({path!r}):
    with open({path!r} + ".4242.dead.tmp", "wb") as f:
        f.write(b"half an entr")  # a writer killed before its rename
    print("holding", flush=True)
    sys.stdin.readline()
    os.kill(os.getpid(), 9)
"""


def test_a_writer_killed_while_holding_the_lock_leaves_a_clean_recompile(tmp_path, cache_dir):
    module = _module(tmp_path / "k.py", VADD)
    path = module.vadd.compile(SIG).table.disk_cache()._entry(module.vadd.compile(SIG).argtypes, CC)[0]
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_AND_DIE.format(src=SRC, path=path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "holding"
    results = []
    waiter = threading.Thread(target=lambda: results.append(_compiled(module.vadd)))
    waiter.start()
    waiter.join(timeout=2)
    assert waiter.is_alive(), "the compile did not wait for the lock's holder"
    holder.stdin.write("go\n")
    holder.stdin.flush()
    assert holder.wait(timeout=60) == -9
    waiter.join(timeout=120)
    assert results and results[0][0] == "miss"  # the holder died: compiled here, once
    assert not list(cache_dir.glob("*.tmp")), "the dead writer's temporary file was left"
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "hit"


def _entry_of(writer):
    """An entry of this writer's own size, its cubin a fake ELF file of the writer's bytes."""
    cubin = b"\x7fELF" + bytes([writer]) * (50_000 * (writer + 1))
    return entry.Entry(
        key=_KEY,
        cubin=cubin,
        symbol=f"writer{writer}",
        cooperative=False,
        exception_global=None,
        raise_sites=(),
        signature="none()",
    )


_KEY = {"k": 1}


def _write_repeatedly(path, writer, rounds):
    """Remove and write the entry *rounds* times with cubins of this writer's own size;
    every entry read meanwhile must be whole. Returns how many reads found one."""
    whole = 0
    for _ in range(rounds):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        store.write(path, entry.encode(_entry_of(writer)), lambda data: entry.decode(data, path, _KEY) is not None)
        found = entry.decode(store.read(path), path, _KEY)
        if found is not None:
            w = int(found.symbol.removeprefix("writer"))
            assert found == _entry_of(w)
            whole += 1
    return whole


def test_concurrent_writers_never_expose_a_partial_entry(tmp_path):
    path = str(tmp_path / "entry.cumlir")
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        processes = pool.starmap_async(_write_repeatedly, [(path, w, 30) for w in range(3)])
        threads = [threading.Thread(target=_write_repeatedly, args=(path, 3 + t, 30)) for t in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sum(processes.get(timeout=300)) > 0
    assert entry.decode(store.read(path), path, _KEY) is not None
    assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == ["entry.cumlir"]


# ---- a hit in a fresh process loads neither MLIR nor numba's frontend ------------------------

_FRESH = """
import json, sys
sys.path.insert(0, {folder!r})
import numpy as np
from kernels import vadd
from cumlir.runtime.arguments import argument_type
argtypes = tuple(argument_type(np.zeros(4, np.float32), i) for i in range(3))
overload = vadd.overload_for(argtypes)
binary = overload.binary((9, 0))
print(json.dumps({{"cache": overload.compile_stats["cache"], "typed": "frontend" in overload.compile_stats,
                  "mlir": sorted(m for m in sys.modules if m == "mlir" or m.startswith("mlir.")),
                  "lowering": "cumlir.lowering" in sys.modules, "cubin": len(binary.cubin)}}))
"""


def test_a_hit_in_a_fresh_process_imports_no_mlir(tmp_path, cache_dir):
    (tmp_path / "kernels.py").write_text(VADD)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}

    def fresh():
        out = subprocess.run(
            [sys.executable, "-c", _FRESH.format(folder=str(tmp_path))],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    cold = fresh()
    assert cold["cache"] == "miss" and cold["typed"] and cold["mlir"]
    warm = fresh()
    assert warm == {"cache": "hit", "typed": False, "mlir": [], "lowering": False, "cubin": cold["cubin"]}


MIXED = """
from cumlir import cuda

@cuda.jit(cache=True)
def mixed(x, f, d, a, n, flag):
    i = cuda.grid(1)
    if flag and i < x.size:
        d[0, i % 4] = x[i] * a + f[0, 0] + n
"""

# the same, the arguments past the first two gathered by *args
MIXED_STAR = """
from cumlir import cuda

@cuda.jit(cache=True)
def mixed(x, f, *rest):
    d, a, n, flag = rest
    i = cuda.grid(1)
    if flag and i < x.size:
        d[0, i % 4] = x[i] * a + f[0, 0] + n
"""

# a fresh process launching mixed[...] on the fake driver, reporting what it launched
_FAKE_LAUNCHES = """
import json, sys
sys.path[:0] = [{folder!r}, {root!r}]
import numpy as np
from tests import fake_driver
from tests.fake_arrays import InterfaceOnly
from cumlir import cuda
from cumlir.dispatcher import launching
from cumlir.runtime import driver as drv
from cumlir.runtime.arguments import ArgumentPacker
from cumlir.runtime.plain_types import plain_types

fake = drv._driver = fake_driver.FakeDriver()
general = []
typing_launch = launching.loaded_for
launching.loaded_for = lambda *a: general.append(1) or typing_launch(*a)
from kernels import mixed

host = np.arange(12, dtype=np.float32).reshape(3, 4)
device = cuda.to_device(host)
x = InterfaceOnly(np.arange(9, dtype=np.float32))
launches = [
    (x, InterfaceOnly(np.asfortranarray(host)), device, 2.5, np.int16(-3), True),
    (x, InterfaceOnly(np.asfortranarray(host)), device, 2.5, np.int16(-3), True),
    (x, InterfaceOnly(np.asfortranarray(host[1:])), device[1:], -1.0, np.int16(7), False),
]
fake.slots = ArgumentPacker(plain_types(launches[0])).slots
for args in launches:
    mixed[2, 32](*args)
numba = "numba" in sys.modules
from cumlir.runtime.arguments import argument_type
from cumlir.runtime.staging import HostArrayStaging

expected = []
for args in launches:  # what numba's types of the same arguments pack
    types = tuple(argument_type(v, i) for i, v in enumerate(args))
    expected.append(bytes(ArgumentPacker(types).pack(args, HostArrayStaging(0))[1]).hex())
print(json.dumps({{
    "numba": numba, "general": len(general), "cache": [s["cache"] for s in mixed.compile_stats.values()],
    "params": [launch["params"].hex() for launch in fake.launches], "expected": expected,
    "signatures": [str(s) for s in mixed.overloads], "mlir": "mlir" in sys.modules,
}}))
"""


@pytest.mark.parametrize("source", [MIXED, MIXED_STAR], ids=["named", "star_args"])
def test_a_hit_in_a_fresh_process_launches_without_numba(tmp_path, cache_dir, source):
    (tmp_path / "kernels.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    script = _FAKE_LAUNCHES.format(
        folder=str(tmp_path), root=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    )

    def fresh():
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    cold = fresh()
    assert cold["cache"] == ["miss"] and cold["numba"] and cold["mlir"]
    warm = fresh()
    assert warm["cache"] == ["hit"] and not warm["numba"] and not warm["mlir"]
    assert cold["general"] == warm["general"] == 1, (
        cold["general"],
        warm["general"],
    )  # the later launches took the fast path the first one made
    assert warm["params"] == warm["expected"] and cold["params"] == cold["expected"]
    assert warm["signatures"] == cold["signatures"]  # numba's types once asked for


# ---- compile statistics ----------------------------------------------------------------------


def test_compile_stats_time_every_stage(tmp_path, monkeypatch):
    monkeypatch.delenv("CUMLIR_CACHE", raising=False)
    kernel = _module(tmp_path / "k.py", VADD.replace("cache=True", "cache=False")).vadd
    verdict, overload, _ = _compiled(kernel)
    stats = overload.compile_stats
    assert verdict == "off"
    for figure in ("frontend", "lowering", "passes", "codegen", "link"):
        assert stats[figure] > 0, figure
    assert "load" not in stats and "cache_read" not in stats  # nothing loaded, no cache
    assert kernel.compile_stats == {overload.argtypes: stats}


def test_compile_stats_of_a_hit_and_a_miss(tmp_path, cache_dir):
    _, overload, _ = _compiled(_module(tmp_path / "k.py", VADD).vadd)
    assert overload.compile_stats["cache_write"] > 0 and overload.compile_stats["link"] > 0
    _, overload, _ = _compiled(_module(tmp_path / "k.py", VADD).vadd)
    assert set(overload.compile_stats) == {"cache_read", "cache"}


def test_the_stats_table():
    text = compile_stats.table("vadd", {"frontend": 0.005, "link": 0.002, "load": 0.001, "cache": "miss"})
    lines = text.splitlines()
    assert lines[0] == "cumlir compile stats: vadd"
    assert [line.split()[0] for line in lines[1:]] == ["frontend", "link", "load", "total", "cache"]
    assert lines[1].endswith("5.00 ms") and lines[4].endswith("8.00 ms") and lines[5].endswith("miss")


def test_the_stats_variable(monkeypatch):
    monkeypatch.setenv("CUMLIR_COMPILE_STATS", "1")
    assert compile_stats.requested()
    monkeypatch.setenv("CUMLIR_COMPILE_STATS", "0")
    assert not compile_stats.requested()


def test_the_table_is_printed_to_stderr_when_asked(tmp_path, monkeypatch, capsys):
    from cumlir.dispatcher.overload import report_stats

    monkeypatch.delenv("CUMLIR_CACHE", raising=False)
    _, overload, _ = _compiled(_module(tmp_path / "k.py", VADD.replace("cache=True", "")).vadd)
    report_stats(overload, CC)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("CUMLIR_COMPILE_STATS", "1")
    report_stats(overload, CC)
    err = capsys.readouterr().err
    assert err.startswith("cumlir compile stats: vadd(array(float32, 1d, C), ") and "for sm_90" in err
    assert "frontend (typing)" in err and err.rstrip().endswith("off")


def test_fingerprints_of_namedtuples_and_arrays_of_objects():
    import collections

    np = pytest.importorskip("numpy")
    point, pair = collections.namedtuple("Point", "x y"), collections.namedtuple("Pair", "a b")

    def make(value):
        def f(a):
            a[0] = value[0]

        return f

    assert cache.function_fingerprint(make(point(1, 2))) != cache.function_fingerprint(make(pair(1, 2)))
    assert cache.function_fingerprint(make(point(1, 2))) != cache.function_fingerprint(make((1, 2)))
    with pytest.raises(cache.Unhashable, match="Python objects"):
        cache.function_fingerprint(make(np.array([object()])))
