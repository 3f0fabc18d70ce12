"""Typing declarations that are not intrinsics (float16 and scalar builtins, ``cmath``,
records, pointers). Importing a module fills the typing registry; :func:`load` imports
every module of this package, so a new one needs no list."""

from ...operations import discover


def load():
    discover(__name__, __path__)
