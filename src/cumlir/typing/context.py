"""The typing context for the CUDA target: numba's builtins plus cumlir's declarations."""

from numba.core.typing.context import BaseContext

from .target import target_override


class CUDATypingContext(BaseContext):
    def resolve_module_constants(self, typ, attr):
        # a missing module attribute is a typing error at its line, not an AttributeError
        if not hasattr(typ.pymod, attr):
            return None
        return super().resolve_module_constants(typ, attr)

    def load_additional_registries(self):
        from numba.core.typing import npydecl
        from numba.misc import literal  # noqa: F401  (registers literal_unroll's typing)

        from . import cmathdecl, cudadecl, mathdecl, memorydecl, recorddecl, scalardecl  # noqa: F401  (they fill the registry)
        from . import pointerdecl  # noqa: F401  (foreign interfaces)
        from .registry import registry

        # cumlir's declarations first: for a key typed by several registries, the
        # first template that accepts the arguments wins
        self.install_registry(registry)
        self.install_registry(npydecl.registry)


_context = None


def typing_context():
    """The process-wide typing context, built and refreshed on first use."""
    global _context
    if _context is None:
        with target_override():
            ctx = CUDATypingContext()
            ctx.refresh()
        _context = ctx
    return _context


def refresh():
    """Pick up declarations registered since the context was built."""
    if _context is not None:
        with target_override():
            _context.refresh()
