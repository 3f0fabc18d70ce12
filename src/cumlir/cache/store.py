"""The files of the on-disk kernel cache: where they live, how they are written and read.

An entry is one file: a magic number, the SHA-256 of the rest, and a pickled dict
holding the key it was written for and the kernel's cubin with what its launch needs.
An entry that is truncated, corrupted, or written for another key (another version of
cumlir or of the function, another chip) reads as missing, and the next compilation
writes it again. Writers take a file lock and replace the entry atomically, so readers
never see half an entry and concurrent processes or threads leave one whole entry.
"""

import glob
import hashlib
import os
import pickle
import secrets
import sys
import warnings

MAGIC = b"CUMLIRK\x01"
SUFFIX = ".cumlir"
_HEADER = len(MAGIC) + 32
LOCK_TIMEOUT_S = 60


def log_debug(message, *args):
    """Log to the ``cumlir.cache`` logger. A process that has not imported logging has no
    handler to log to, so a cache hit need not import it."""
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.getLogger("cumlir.cache").debug(message, *args)


class CacheWarning(UserWarning):
    """The kernel cache could not be written; the kernel was compiled and works."""


def directory_for(source_file):
    """Where the entries of functions defined in *source_file* go: ``CUMLIR_CACHE_DIR`` if
    set, else ``__pycache__`` beside the source when it can be written, else the user's
    cache directory."""
    chosen = os.environ.get("CUMLIR_CACHE_DIR")
    if chosen:
        return chosen
    if source_file and os.path.isfile(source_file):
        beside = os.path.join(os.path.dirname(os.path.abspath(source_file)), "__pycache__")
        if _writable(beside):
            return beside
    import platformdirs

    return platformdirs.user_cache_dir("cumlir")


def _writable(folder):
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def read(path, key, ignore=()):
    """The payload of the entry at *path* if it was written for *key* (a dict; the
    members named in *ignore* are not compared), else None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        log_debug("cannot read the cache entry %s: %s", path, e)
        return None
    if (
        len(data) < _HEADER
        or data[: len(MAGIC)] != MAGIC
        or hashlib.sha256(data[_HEADER:]).digest() != data[len(MAGIC) : _HEADER]
    ):
        log_debug("the cache entry %s is truncated or corrupted: ignored", path)
        return None
    try:
        payload = pickle.loads(data[_HEADER:])
        stored = payload["key"]
    except Exception as e:  # a class the entry refers to is gone, say
        log_debug("the cache entry %s cannot be read back (%s): ignored", path, e)
        return None
    differs = sorted(k for k in key.keys() | stored.keys() if k not in ignore and key.get(k) != stored.get(k))
    if differs:
        log_debug("the cache entry %s was written for another %s: ignored", path, ", ".join(differs))
        return None
    return payload


def entries_like(path):
    """The paths of the entries that differ from *path* only in their last dotted part."""
    stem = path[: path.rindex(".", 0, len(path) - len(SUFFIX))]
    return glob.glob(glob.escape(stem) + ".*" + SUFFIX)


def write(path, key, payload):
    """Write the entry for *key* at *path*, unless another writer just wrote it: whether it
    is there now, or None when the payload cannot be stored. Failures (a read-only or full
    disk ...) are a CacheWarning: the entry is simply not written."""
    try:
        data = pickle.dumps({**payload, "key": key}, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # an exception class of a device raise that is not importable, say
        log_debug("the kernel for %s cannot be cached: %s", path, e)
        return None
    blob = MAGIC + hashlib.sha256(data).digest() + data
    try:
        import filelock
    except ImportError as e:  # a dependency missing from this installation: still no failure
        warnings.warn(f"cumlir cannot write its kernel cache: {e}", CacheWarning, stacklevel=2)
        return False

    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
        with filelock.FileLock(path + ".lock", timeout=LOCK_TIMEOUT_S):
            if read(path, key) is not None:
                return True
            # a name of this writer's own, created with the usual permissions
            temporary = f"{path}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
            try:
                with open(temporary, "xb") as f:
                    f.write(blob)
                os.replace(temporary, path)
            except BaseException:
                _remove(temporary)
                raise
        return True
    except filelock.Timeout:
        log_debug("another process holds the lock of %s: the entry is left to it", path)
    except OSError as e:
        warnings.warn(f"cumlir could not write the kernel cache entry {path}: {e}", CacheWarning, stacklevel=2)
    return False


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass
