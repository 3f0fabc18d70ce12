"""``@cuda.jit``."""


def jit(func_or_sig=None, device=False, **options):
    """Compile a Python function into a CUDA kernel, or a device function with ``device=True``.

    Forms: ``@cuda.jit``, ``@cuda.jit(device=True)``, ``@cuda.jit("void(float32[:], int64)")``
    and ``@cuda.jit(["sig1", "sig2"])``. Without signatures, a kernel is compiled at its
    first launch for each new combination of argument types.
    """
    from ..dispatcher import Dispatcher

    if "link" in options:
        options["link"] = _link_items(options["link"])
    if callable(func_or_sig) and not isinstance(func_or_sig, (str, list, tuple)) and _is_function(func_or_sig):
        return Dispatcher(func_or_sig, device=device, **options)

    sigs = func_or_sig
    if sigs is not None and not isinstance(sigs, list):
        sigs = [sigs]

    def decorate(pyfunc):
        return Dispatcher(pyfunc, sigs, device=device, **options)

    return decorate


def _is_function(obj):
    import inspect

    return inspect.isfunction(obj)


def _link_items(link):
    """Link items checked when the kernel is decorated: a bad path suffix is reported here."""
    from ..linkable import as_linkable

    items = link if isinstance(link, (list, tuple)) else [link]
    return [as_linkable(item) for item in items]
