"""Numba's typing templates (see docs/extending.md)."""

from numba.core.typing.templates import (  # noqa: F401
    AbstractTemplate,
    AttributeTemplate,
    CallableTemplate,
    ConcreteTemplate,
    Registry,
    Signature,
    bound_function,
    signature,
)
