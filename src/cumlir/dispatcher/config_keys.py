"""Launch configurations as keys of a kernel's launcher cache, shared by the dispatcher's
``kernel[...]`` (which must stay a dict lookup) and the launching side that fills the cache."""

from __future__ import annotations

from collections.abc import Iterable


def plain(config: Iterable[object]) -> bool:
    """Whether a launch configuration holds only ints and tuples of ints (no stream
    object): one that may key the launcher cache without keeping an object alive, and
    that equals another only when it means the same (``1 == True == 1.0``)."""
    for part in config:
        if type(part) is tuple:
            for extent in part:
                if type(extent) is not int:
                    return False
        elif type(part) is not int:
            return False
    return True
