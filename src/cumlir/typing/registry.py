"""The typing registry holding cumlir's CUDA declarations (templates and globals)."""

from numba.core.typing.templates import Registry

registry = Registry()
register = registry.register
register_attr = registry.register_attr
register_global = registry.register_global
