"""External device functions declared with ``cuda.declare_device``: typing."""

import re

from numba.core import types
from numba.core.typing.templates import ConcreteTemplate, signature

from ..options import link_digest
from .signatures import parse_signature

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ExternalFunction:
    """A device function defined outside cumlir (CUDA C++, PTX, ...), called by its C name.

    Kernels see it through numba's ``_numba_type_`` protocol as a function of one
    signature; lowering/rules/externals.py lowers calls of every ExternalFunction.
    """

    def __init__(self, name, sig, link):
        if not isinstance(name, str) or not _C_IDENTIFIER.match(name):
            raise ValueError(f"declare_device: {name!r} is not a C identifier")
        argtypes, return_type = parse_signature(sig)
        if return_type is None:
            raise TypeError(f"declare_device({name!r}): the signature {sig!r} must give the return type")
        self.name = name
        self.__name__ = name
        self.signature = signature(return_type, *argtypes)
        self.link = list(link)
        self._type = None

    def __repr__(self):
        return f"<external device function {self.name}{self.signature}>"

    def cache_key(self):
        """What kernels calling it depend on: its name, signature and the link items' contents."""
        return f"{self.name}{self.signature};link={[link_digest(item) for item in self.link]}"

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.name} is an external device function: call it from a kernel or device function")

    @property
    def _numba_type_(self):
        if self._type is None:
            template = type(f"ExternalTemplate_{self.name}", (ConcreteTemplate,), {"key": self, "cases": [self.signature]})
            self._type = types.Function(template)
        return self._type
