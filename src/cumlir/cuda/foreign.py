"""Device functions defined elsewhere: ``declare_device`` builds a typed stub for an
external function, linked in from the items given by ``link=``. Numba is imported only
when a stub is declared. (Arrays over raw pointers, ``carray``/``farray``, are the
operation module operations/cuda/foreign.py.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import TypeAlias

    from ..linkable import LinkableCode
    from ..operations.cuda.externals import ExternalFunction
    from ..typing.signatures import SignatureLike

    # what link= takes: a path or a LinkableCode, or a sequence of them
    LinkArgument: TypeAlias = str | os.PathLike[str] | LinkableCode | Sequence[str | os.PathLike[str] | LinkableCode]


def declare_device(
    name: str, sig: SignatureLike, link: LinkArgument | None = None, use_cooperative: bool = False
) -> ExternalFunction:
    """A stub for the external device function *name* with signature *sig*, callable from kernels.

    The function follows Numba's ABI with C linkage: ``extern "C" __device__ int name(RET* result,
    ARGS...)`` stores its result through the first parameter and returns 0. *link* lists the
    files or LinkableCode objects defining it; they are linked into every kernel that calls it.
    """
    from numba.core.typing.templates import signature

    from ..linkable import as_linkable
    from ..operations.cuda.externals import ExternalFunction
    from ..typing.signatures import parse_signature

    if use_cooperative:
        raise NotImplementedError("declare_device(use_cooperative=True) is not supported")
    items = link if isinstance(link, (list, tuple)) else ([] if link is None else [link])
    ExternalFunction.check_name(name)
    argtypes, return_type = parse_signature(sig)
    if return_type is None:
        raise TypeError(f"declare_device({name!r}): the signature {sig!r} must give the return type")
    return ExternalFunction(name, signature(return_type, *argtypes), [as_linkable(item) for item in items])
