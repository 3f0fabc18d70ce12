"""The format of a cache entry, and the checks an entry passes before anything of it is used.

One file, written whole (store.py)::

    b"CUMLIRK" and the format's version     8 bytes
    SHA-256 of everything after it         32 bytes
    length of the record                    4 bytes, little-endian
    the record                              a JSON object, UTF-8
    the cubin                               the rest

The record holds the key the entry was written for and what the launch needs besides the
cubin: the kernel's symbol, whether it is launched cooperatively, the global its device
exceptions are reported through and what each exception code means (raise_data.py), and
the signature (for people reading the record). Nothing in an entry is executed on the
host: it is parsed as JSON, every field's type is checked, exception classes are looked
up by name among those already loaded, and the cubin goes to the driver only when all of
that holds. An entry of another format (the pickles of version 1 included), a damaged one,
or one written for another key reads as missing, and the next compilation writes it again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..raise_sites import RaiseSite
from .raise_data import NotStorable, site_data, site_from_data
from .store import log_debug, refuse

VERSION = 2
MAGIC = b"CUMLIRK"
_DIGEST = len(MAGIC) + 1  # where the checksum starts
_LENGTH = _DIGEST + 32  # where the record's length starts
_RECORD = _LENGTH + 4  # where the record starts
_ELF = b"\x7fELF"  # every cubin is an ELF file

__all__ = ["VERSION", "Entry", "NotStorable", "decode", "encode"]


@dataclass(frozen=True)
class Entry:
    """What an entry holds: the key it was written for, and the kernel."""

    key: dict[str, Any]
    cubin: bytes
    symbol: str
    cooperative: bool
    exception_global: str | None
    raise_sites: tuple[RaiseSite, ...]
    signature: str


def encode(entry: Entry) -> bytes:
    """The bytes of *entry*; NotStorable when a raise site's exception class cannot be named."""
    if not entry.cubin.startswith(_ELF):  # decode would refuse it
        raise NotStorable("the cubin is not an ELF file")
    record = {
        "format": VERSION,
        "key": entry.key,
        "symbol": entry.symbol,
        "cooperative": entry.cooperative,
        "exception_global": entry.exception_global,
        "raise_sites": [site_data(site) for site in entry.raise_sites],
        "signature": entry.signature,
    }
    try:
        text = json.dumps(record, sort_keys=True, allow_nan=False).encode()
    except (TypeError, ValueError) as e:  # a key that is not plain data: a mistake of the caller
        raise NotStorable(f"the entry's record is not JSON: {e}") from None
    body = len(text).to_bytes(4, "little") + text + entry.cubin
    return MAGIC + bytes([VERSION]) + hashlib.sha256(body).digest() + body


# the record's members, each with the check of its value (bool is not int here, as in JSON)
_FIELDS = {
    "format": lambda v: type(v) is int and v == VERSION,
    "key": lambda v: isinstance(v, dict),
    "symbol": lambda v: type(v) is str and v != "",
    "cooperative": lambda v: type(v) is bool,
    "exception_global": lambda v: v is None or (type(v) is str and v != ""),
    "raise_sites": lambda v: isinstance(v, list),
    "signature": lambda v: type(v) is str,
}


def decode(data: bytes | None, path: str, key: dict[str, Any], ignore: tuple[str, ...] = ()) -> Entry | None:
    """The Entry in *data* (an entry file's bytes, or None when there is none) if it is whole,
    well formed and written for *key* (the members named in *ignore* are not compared);
    else None, and the reason logged (and warned of, for what no cumlir writes)."""
    if data is None or not _checksum_holds(data, path):
        return None
    record, cubin_at = _record(data, path)
    if record is None or not _same_key(record["key"], key, ignore, path):
        return None
    sites = _raise_sites(record["raise_sites"], path)
    if sites is None:
        return None
    return Entry(
        key=record["key"],
        cubin=data[cubin_at:],
        symbol=record["symbol"],
        cooperative=record["cooperative"],
        exception_global=record["exception_global"],
        raise_sites=sites,
        signature=record["signature"],
    )


def _checksum_holds(data: bytes, path: str) -> bool:
    """Whether the magic number, the version and the checksum of the entry hold."""
    if not data.startswith(MAGIC):
        if data:
            refuse(path, "not a cumlir cache entry")
        else:
            log_debug("the cache entry %s is empty: ignored", path)
        return False
    if data[len(MAGIC) : _DIGEST] != bytes([VERSION]):
        log_debug("the cache entry %s is of another format than version %d: ignored", path, VERSION)
        return False
    if len(data) < _RECORD or hashlib.sha256(memoryview(data)[_LENGTH:]).digest() != data[_DIGEST:_LENGTH]:
        log_debug("the cache entry %s is truncated or corrupted: ignored", path)
        return False
    return True


def _record(data: bytes, path: str) -> tuple[dict[str, Any] | None, int]:
    """(the entry's record, where its cubin starts) if the record is a JSON object of the
    members and types of _FIELDS and a cubin follows it. The checksum held, so a failure
    here is no accident: the entry is refused."""
    cubin_at = _RECORD + int.from_bytes(data[_LENGTH:_RECORD], "little")
    if not data.startswith(_ELF, cubin_at):
        refuse(path, "no cubin after its record")
        return None, 0
    try:
        record = json.loads(data[_RECORD:cubin_at].decode())
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        refuse(path, f"its record is not JSON: {e}")
        return None, 0
    if not (isinstance(record, dict) and record.keys() == _FIELDS.keys()):
        refuse(path, "its record does not have the members of an entry")
        return None, 0
    wrong = [name for name, check in _FIELDS.items() if not check(record[name])]
    if wrong:
        refuse(path, f"its record has a wrong {', '.join(wrong)}")
        return None, 0
    return record, cubin_at


def _raise_sites(data: list[Any], path: str) -> tuple[RaiseSite, ...] | None:
    """The raise sites of a record, or None: one is malformed (refused), or names an exception
    class this process has not loaded (the kernel is compiled, which loads it)."""
    sites = []
    for site in data:
        try:
            found = site_from_data(site)
        except ValueError as e:
            refuse(path, f"a raise site of its record is malformed: {e}")
            return None
        if found is None:
            log_debug("the cache entry %s names an exception class not loaded here (%s): ignored", path, site)
            return None
        sites.append(found)
    return tuple(sites)


def _same_key(stored: dict[str, Any], key: dict[str, Any], ignore: tuple[str, ...], path: str) -> bool:
    differs = sorted(k for k in key.keys() | stored.keys() if k not in ignore and key.get(k) != stored.get(k))
    if differs:
        log_debug("the cache entry %s was written for another %s: ignored", path, ", ".join(differs))
    return not differs
