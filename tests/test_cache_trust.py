"""What the on-disk cache does with files it did not write: a shared cache folder may hold
anything. Pickles (the format of version 1, or a payload of anyone's) are never unpickled,
a FIFO or a link at an entry's path neither blocks nor is followed, and records that are
cut short, of another format or with fields of the wrong type are ignored: each time the
kernel is compiled and its entry written again. Kernels compile to cubins for sm_90 with
nvJitLink; no GPU is needed."""

import contextlib
import hashlib
import json
import os
import pickle
import subprocess
import sys
import warnings

import pytest

from cumlir import cache
from cumlir.cache import entry, raise_data, store
from cumlir.raise_sites import RaiseSite

from .test_cache import SIG, SRC, VADD, _compiled, _module, _verdict


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(folder))
    monkeypatch.delenv("CUMLIR_CACHE", raising=False)
    monkeypatch.setattr(store, "_warned", False)  # each test sees the warning of its own first refusal
    return folder


def _written(tmp_path, cache_dir):
    """The path and bytes of vadd's entry, compiled and written."""
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    (path,) = cache_dir.glob("*.cumlir")
    return path, path.read_bytes()


def _recompiled(tmp_path, path, good):
    """The entry at *path* was ignored: the kernel compiles again, writes its entry again
    (the same bytes), and the next dispatcher hits it."""
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    assert path.read_bytes() == good
    assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "hit"


class _WritesAFile:
    """Unpickling this creates the file *marker*: what an attacker's payload would do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _version_1(payload):
    """An entry of the format of version 1: magic, SHA-256, a pickle."""
    data = pickle.dumps(payload)
    return b"CUMLIRK\x01" + hashlib.sha256(data).digest() + data


# ---- pickles are never unpickled -------------------------------------------------------------


@pytest.mark.parametrize("framing", ["version 1", "bare"])
def test_a_pickle_at_an_entry_is_not_unpickled(tmp_path, cache_dir, framing):
    path, good = _written(tmp_path, cache_dir)
    marker = tmp_path / "unpickled"
    payload = {"key": {}, "cubin": b"", "run": _WritesAFile(str(marker))}
    path.write_bytes(_version_1(payload) if framing == "version 1" else pickle.dumps(payload))
    if framing == "bare":  # no cumlir wrote this: said once
        with pytest.warns(cache.CacheWarning, match="not a cumlir cache entry"):
            _recompiled(tmp_path, path, good)
    else:  # an entry of cumlir's previous format, as an upgrade leaves them: ignored quietly
        with _no_warning():
            _recompiled(tmp_path, path, good)
    assert not marker.exists()
    pickle.loads(pickle.dumps(payload))  # the payload does what the test says it would
    assert marker.exists()


@contextlib.contextmanager
def _no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", cache.CacheWarning)
        yield


def test_an_entry_of_version_1_for_the_same_key_is_ignored_quietly(tmp_path, cache_dir):
    path, good = _written(tmp_path, cache_dir)
    record, cubin = _parts(good)
    old = {k: v for k, v in record.items() if k != "format"}
    old.update(cubin=cubin, raise_sites=[], key={**record["key"], "format": 1})
    path.write_bytes(_version_1(old))  # what cumlir's previous format wrote for this kernel
    with _no_warning():
        _recompiled(tmp_path, path, good)


def test_an_entry_of_a_later_version_is_ignored_quietly(tmp_path, cache_dir):
    path, good = _written(tmp_path, cache_dir)
    later = good[:7] + b"\x03" + good[8:]
    path.write_bytes(later)
    with _no_warning():
        _recompiled(tmp_path, path, good)


# ---- files that are not regular files --------------------------------------------------------

_READ_FIFO = """
import sys, warnings
sys.path.insert(0, {src!r})
from cumlir.cache import store
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(store.read({path!r}), [str(w.message) for w in caught])
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_an_entry_does_not_block_a_reader(tmp_path):
    fifo = tmp_path / "k.sm90.cumlir"
    os.mkfifo(fifo)
    script = _READ_FIFO.format(src=SRC, path=str(fifo))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("None [") and "not a regular file" in done.stdout


# a fresh process compiling vadd for sm_90 with a FIFO at its entry's path
_COMPILE = """
import importlib.util, sys, warnings
sys.path.insert(0, {src!r})
spec = importlib.util.spec_from_file_location("kernels", {kernels!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    overload = module.vadd.compile({sig!r})
    overload.binary((9, 0))
print(overload.compile_stats["cache"], [str(w.message) for w in caught])
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_an_entry_does_not_block_the_compile(tmp_path, cache_dir):
    path, good = _written(tmp_path, cache_dir)
    path.unlink()
    os.mkfifo(path)
    script = _COMPILE.format(src=SRC, kernels=str(tmp_path / "k.py"), sig=SIG)
    env = {**os.environ, "CUMLIR_CACHE_DIR": str(cache_dir)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("miss [") and "not a regular file" in done.stdout
    assert path.read_bytes() == good  # the FIFO was replaced by the entry


def test_a_link_at_an_entry_is_not_followed(tmp_path, cache_dir):
    path, good = _written(tmp_path, cache_dir)
    outside = tmp_path / "elsewhere.cumlir"
    outside.write_bytes(good)  # a valid entry, outside the cache folder
    path.unlink()
    path.symlink_to(outside)
    with pytest.warns(cache.CacheWarning, match="not a regular file"):
        assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    assert not path.is_symlink() and path.read_bytes() == good
    assert outside.read_bytes() == good  # written through neither


def test_a_directory_at_an_entry_is_not_read_and_not_removed(tmp_path, cache_dir):
    path, _ = _written(tmp_path, cache_dir)
    path.unlink()
    path.mkdir()
    (path / "inside").write_bytes(b"kept")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"  # compiled all the same
    said = [str(w.message) for w in caught if issubclass(w.category, cache.CacheWarning)]
    assert any("not a regular file" in s for s in said), said
    assert any("could not write" in s for s in said), said  # an entry cannot replace a directory
    assert (path / "inside").read_bytes() == b"kept"


def test_one_warning_a_process(tmp_path, cache_dir):
    path, good = _written(tmp_path, cache_dir)
    path.write_bytes(b"something else")
    with pytest.warns(cache.CacheWarning, match="not a cumlir cache entry"):
        assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"
    path.write_bytes(b"something else again")
    with _no_warning():
        assert _verdict(_module(tmp_path / "k.py", VADD).vadd) == "miss"


# ---- records that are cut short, foreign or of the wrong types -------------------------------


def _parts(data):
    """(the record, the cubin) of an entry's bytes."""
    length = int.from_bytes(data[40:44], "little")
    return json.loads(data[44 : 44 + length]), data[44 + length :]


def _framed(record_text, cubin, length=None):
    """An entry with a valid checksum around *record_text* (bytes) and *cubin*."""
    body = (len(record_text) if length is None else length).to_bytes(4, "little") + record_text + cubin
    return b"CUMLIRK\x02" + hashlib.sha256(body).digest() + body


def _changed(record, **changes):
    return json.dumps({**record, **changes}).encode()


_FOREIGN = {
    "record cut short": lambda r, c: _framed(json.dumps(r).encode()[:-20], c),
    "record not JSON": lambda r, c: _framed(b"\x80\x04not json", c),
    "record a list": lambda r, c: _framed(b"[1, 2]", c),
    "record nested deep": lambda r, c: _framed(b"[" * 100_000 + b"]" * 100_000, c),
    "length past the end": lambda r, c: _framed(json.dumps(r).encode(), c, length=10**6),
    "no cubin": lambda r, c: _framed(json.dumps(r).encode(), b"#!/bin/sh\n"),
    "member missing": lambda r, c: _framed(json.dumps({k: v for k, v in r.items() if k != "symbol"}).encode(), c),
    "member added": lambda r, c: _framed(_changed(r, run="__import__('os')"), c),
    "format a string": lambda r, c: _framed(_changed(r, format="2"), c),
    "symbol a number": lambda r, c: _framed(_changed(r, symbol=5), c),
    "cooperative an int": lambda r, c: _framed(_changed(r, cooperative=1), c),
    "key a list": lambda r, c: _framed(_changed(r, key=[]), c),
    "raise sites an object": lambda r, c: _framed(_changed(r, raise_sites={}), c),
    "raise site of a function": lambda r, c: _framed(
        _changed(r, raise_sites=[{"exception": {"builtin": "__import__"}, "args": ["os"], "location": "x:1"}]), c
    ),
    "raise site of os.system": lambda r, c: _framed(
        _changed(r, raise_sites=[{"exception": {"module": "os", "qualname": "system"}, "args": [], "location": ""}]),
        c,
    ),
    "raise site of a dunder chain": lambda r, c: _framed(
        _changed(
            r,
            raise_sites=[
                {
                    "exception": {"module": "builtins", "qualname": "object.__subclasses__"},
                    "args": [],
                    "location": "",
                }
            ],
        ),
        c,
    ),
    "raise site args an object": lambda r, c: _framed(
        _changed(r, raise_sites=[{"exception": {"builtin": "ValueError"}, "args": [{"a": 1}], "location": ""}]), c
    ),
    "raise site of SystemExit": lambda r, c: _framed(
        _changed(r, raise_sites=[{"exception": {"builtin": "SystemExit"}, "args": [], "location": ""}]), c
    ),
}


# a loaded module that holds no such exception class (a class renamed since, say): only logged
_QUIET = {"raise site of os.system", "raise site of a dunder chain"}


@pytest.mark.parametrize("damage", sorted(_FOREIGN))
def test_a_foreign_record_is_ignored_and_rewritten(tmp_path, cache_dir, damage):
    path, good = _written(tmp_path, cache_dir)
    record, cubin = _parts(good)
    path.write_bytes(_FOREIGN[damage](record, cubin))
    with _no_warning() if damage in _QUIET else pytest.warns(cache.CacheWarning, match="compiles the kernel instead"):
        _recompiled(tmp_path, path, good)


def test_the_record_is_json_with_the_key_and_the_launch(tmp_path, cache_dir):
    _, good = _written(tmp_path, cache_dir)
    record, cubin = _parts(good)
    assert good.startswith(b"CUMLIRK\x02") and cubin.startswith(b"\x7fELF")
    assert sorted(record) == ["cooperative", "exception_global", "format", "key", "raise_sites", "signature", "symbol"]
    assert record["format"] == entry.VERSION == record["key"]["format"]
    assert record["cooperative"] is False and record["raise_sites"] == [] and record["exception_global"] is None
    assert record["signature"] == "none(array(float32, 1d, C), array(float32, 1d, C), array(float32, 1d, C))"


# ---- raise sites: exception classes by name, found without importing -------------------------

RAISES = """
from cumlir import cuda


class Negative(ValueError):
    pass


@cuda.jit(cache=True, debug=True, opt=False)
def checked(a, out):
    i = cuda.grid(1)
    if i < out.size:
        assert a[i] >= 0, "negative input"
        if a[i] > 100:
            raise Negative("too large", 100)
        out[i] = a[i] * 2
"""


def test_raise_sites_of_a_debug_kernel_survive_the_cache(tmp_path, cache_dir, monkeypatch):
    sig = "void(float64[::1], float64[::1])"

    def loaded():  # the module, imported as a kernel's module is
        module = _module(tmp_path / "raises.py", RAISES, name="raises")
        monkeypatch.setitem(sys.modules, "raises", module)
        return module

    module = loaded()
    verdict, _, compiled = _compiled(module.checked, sig)
    assert verdict == "miss"
    classes = [site.exc_class for site in compiled.raise_sites]
    assert AssertionError in classes and module.Negative in classes
    module = loaded()
    verdict, _, cached = _compiled(module.checked, sig)
    assert verdict == "hit" and cached.exception_global == compiled.exception_global
    expected = [
        (module.Negative if c.__name__ == "Negative" else c, s.args, s.location)
        for c, s in zip(classes, compiled.raise_sites)
    ]
    assert [(s.exc_class, s.args, s.location) for s in cached.raise_sites] == expected
    (path,) = cache_dir.glob("*.cumlir")
    record, _ = _parts(path.read_bytes())
    assert {"builtin": "AssertionError"} in [site["exception"] for site in record["raise_sites"]]
    assert {"module": "raises", "qualname": "Negative"} in [site["exception"] for site in record["raise_sites"]]


def test_an_exception_class_not_loaded_is_not_imported(tmp_path, monkeypatch):
    (tmp_path / "faraway.py").write_text("open(__file__ + '.imported', 'w').close()\nclass Far(Exception): pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    data = {"exception": {"module": "faraway", "qualname": "Far"}, "args": ["x"], "location": "k.py:1"}
    assert raise_data.site_from_data(data) is None
    assert "faraway" not in sys.modules and not (tmp_path / "faraway.py.imported").exists()


def test_classes_that_cannot_be_found_by_name_are_not_stored():
    class Local(Exception):
        pass

    with pytest.raises(raise_data.NotStorable, match="Local"):
        raise_data.site_data(RaiseSite(Local, ("x",), "k.py:1"))
    with pytest.raises(raise_data.NotStorable, match="KeyboardInterrupt"):
        raise_data.site_data(RaiseSite(KeyboardInterrupt, (), "k.py:1"))


def test_arguments_keep_the_message_they_make():
    site = RaiseSite(IndexError, (1, 2.5, float("nan"), None, True, b"\x00"), "k.py:3")
    back = raise_data.site_from_data(json.loads(json.dumps(raise_data.site_data(site))))
    assert back.exc_class is IndexError and back.location == site.location
    assert str(back.exception((1, 0, 0))) == str(site.exception((1, 0, 0)))


def test_an_entry_decodes_to_what_was_encoded():
    sites = (RaiseSite(AssertionError, ("negative input",), "k.py:7"), RaiseSite(cache.CacheWarning, (), "k.py:9"))
    written = entry.Entry(
        key={"format": entry.VERSION, "argtypes": ["Float:float32"], "cc": [9, 0]},
        cubin=b"\x7fELF" + bytes(range(256)),
        symbol="kernel",
        cooperative=True,
        exception_global="cumlir_exception",
        raise_sites=sites,
        signature="none(float32)",
    )
    data = entry.encode(written)
    assert entry.decode(data, "p", written.key) == written
    assert entry.decode(data, "p", {**written.key, "cc": [8, 0]}) is None
    assert entry.decode(data, "p", {**written.key, "cc": [8, 0]}, ignore=("cc",)) == written


def test_a_large_file_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "big.cumlir"
    path.write_bytes(b"x" * 100)
    monkeypatch.setattr(store, "MAX_ENTRY_BYTES", 99)
    monkeypatch.setattr(store, "_warned", False)
    with pytest.warns(cache.CacheWarning, match="larger than any entry"):
        assert store.read(str(path)) is None
