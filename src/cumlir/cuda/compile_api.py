"""Compiling to PTX without launching: works on machines with no GPU when ``cc`` is given."""


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True, abi="numba"):
    """Compile *pyfunc* for *sig* into PTX; returns ``(ptx, return_type)``.

    ``cc`` is a compute capability such as ``(9, 0)``; without one, the current
    device's is used (which needs a GPU).
    """
    from ..compiler import CompileOptions, kernel_ptx, type_function
    from ..typing.signatures import parse_signature

    if device:
        raise NotImplementedError("compile_ptx(device=True) is not supported yet; compile a kernel")
    if abi != "numba":
        raise NotImplementedError(f"abi={abi!r} is not supported yet for kernels")
    argtypes, return_type = parse_signature(sig)
    if cc is None:
        from ..runtime.driver import current_context

        cc = current_context().compute_capability
    typed = type_function(pyfunc, argtypes, return_type)
    options = CompileOptions(fastmath=fastmath, debug=debug, lineinfo=lineinfo, opt=opt)
    compiled = kernel_ptx(typed, cc, name=pyfunc.__name__, options=options)
    return compiled.ptx, typed.return_type


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, opt=True, abi="numba"):
    """``compile_ptx`` for the compute capability of the current device."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, opt=opt, abi=abi)
