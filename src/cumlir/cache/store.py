"""The files of the on-disk kernel cache: where they live, how they are read and written.

This module knows bytes, not entries (entry.py is the format). A cache folder may be
shared, so whoever can write into it must not be able to make a reader block or read
anything but a regular file: an entry is opened only when ``lstat`` shows a regular file
(not a FIFO, a device or a symbolic link), with flags that cannot block or follow a link,
and checked again on the open descriptor. Writers take a file lock and replace the entry
atomically, so readers never see half an entry and concurrent processes or threads leave
one whole entry.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import stat
import sys
import warnings
from collections.abc import Callable, Iterator

from ..lazy import lazy

# what a cache hit needs neither of: the cache's folder where no other is given, and the lock
# of a write
platformdirs = lazy("platformdirs")
filelock = lazy("filelock")

SUFFIX = ".cumlir"
LOCK_TIMEOUT_S = 300  # waiting out another process's compile on a loaded machine beats compiling again
MAX_ENTRY_BYTES = 1 << 30  # far above any cubin: a larger file is not an entry
# no blocking on a FIFO, no following a link swapped in after lstat, no controlling terminal
_READ_FLAGS = os.O_RDONLY
for _flag in ("O_NONBLOCK", "O_NOFOLLOW", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"):
    _READ_FLAGS |= getattr(os, _flag, 0)

_warned = False  # one CacheWarning per process for an entry refused (the debug log has every one)


def log_debug(message: str, *args: object) -> None:
    """Log to the ``cumlir.cache`` logger. A process that has not imported logging has no
    handler to log to, so a cache hit need not import it."""
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.getLogger("cumlir.cache").debug(message, *args)


class CacheWarning(UserWarning):
    """The kernel cache could not be written, or held something that is not a cumlir entry
    (ignored); the kernel was compiled and works."""


def refuse(path: str, why: str) -> None:
    """An entry that no cumlir writes (a FIFO, a link, a file of another program, a record
    that fails its checks) is ignored: logged, and said once per process as a CacheWarning,
    since someone else may be writing into the cache folder."""
    global _warned
    log_debug("the cache entry %s is ignored: %s", path, why)
    if not _warned:
        _warned = True
        warnings.warn(
            f"cumlir ignored the kernel cache entry {path} ({why}) and compiles the kernel instead; "
            "other entries ignored so are logged on the 'cumlir.cache' logger",
            CacheWarning,
            stacklevel=2,
        )


def directory_for(source_file: str | None) -> str:
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
    return platformdirs.user_cache_dir("cumlir")


def _writable(folder: str) -> bool:
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def read(path: str) -> bytes | None:
    """The bytes of the entry file at *path*, or None: missing, unreadable, or not a regular
    file of a plausible size (then refused)."""
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        log_debug("cannot read the cache entry %s: %s", path, e)
        return None
    if not _plausible(path, before):
        return None
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:  # replaced or removed since lstat
        return None
    except OSError as e:  # ELOOP: a link put there since lstat
        log_debug("cannot open the cache entry %s: %s", path, e)
        return None
    try:
        if not _plausible(path, os.fstat(fd)):  # what was opened, whatever lstat saw
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_ENTRY_BYTES + 1)
    except OSError as e:
        log_debug("cannot read the cache entry %s: %s", path, e)
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_ENTRY_BYTES:  # grew while being read
        refuse(path, "larger than any entry")
        return None
    return data


def _plausible(path: str, st: os.stat_result) -> bool:
    if not stat.S_ISREG(st.st_mode):
        refuse(path, "not a regular file")
        return False
    if st.st_size > MAX_ENTRY_BYTES:
        refuse(path, "larger than any entry")
        return False
    return True


def entries_like(path: str) -> list[str]:
    """The paths of the entries that differ from *path* only in their last dotted part."""
    stem = path[: path.rindex(".", 0, len(path) - len(SUFFIX))]
    return glob.glob(glob.escape(stem) + ".*" + SUFFIX)


@contextlib.contextmanager
def held(path: str) -> Iterator[bool]:
    """Hold the lock of the entry at *path* for the block, across threads and processes:
    True while held; False where it could not be taken (a read-only or full disk, another
    holder past LOCK_TIMEOUT_S, filelock missing), and the block runs unlocked. A holder
    that dies (killed mid-compile or mid-write) releases it with its process."""
    try:
        lock = filelock.FileLock(path + ".lock", timeout=LOCK_TIMEOUT_S)
    except ImportError:  # a dependency missing from this installation: still no failure
        yield False
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        lock.acquire()
    except filelock.Timeout:
        log_debug("another process held the lock of %s too long: going on without it", path)
        yield False
        return
    except OSError as e:
        log_debug("cannot lock the cache entry %s: %s", path, e)
        yield False
        return
    try:
        _remove_stale(path)
        yield True
    finally:
        lock.release()


def _remove_stale(path: str) -> None:
    """Temporary files of this entry seen while its lock is held were left by a writer
    that died before renaming them: no one else writes them now."""
    for temporary in glob.glob(glob.escape(path) + ".*.tmp"):
        _remove(temporary)


def write(path: str, data: bytes, current: Callable[[bytes | None], bool], locked: bool = False) -> bool:
    """Write *data* as the entry at *path*, unless ``current`` says that what is there (the
    bytes, or None) already serves: another writer just wrote it. Whether an entry is there
    now. *locked*: the caller holds the entry's lock (``held``). Failures (a read-only or
    full disk ...) are a CacheWarning: the entry is simply not written."""
    try:
        if locked:
            _replace(path, data)
            return True
        with held(path) as holding:
            if holding and current(read(path)):
                return True
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _replace(path, data)
        return True
    except OSError as e:
        warnings.warn(f"cumlir could not write the kernel cache entry {path}: {e}", CacheWarning, stacklevel=2)
    return False


def _replace(path: str, data: bytes) -> None:
    # a name of this writer's own, created new (never through a link), with the usual permissions
    temporary = f"{path}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(temporary, "xb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
