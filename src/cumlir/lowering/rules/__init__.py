"""The lowering rules that are not intrinsics, one module per area (numbers, arrays,
tuples, records, ...). Importing a module fills the registry; :func:`load` imports every
module of this package, so a new one needs no list."""

from ...operations import discover


def load():
    discover(__name__, __path__)
