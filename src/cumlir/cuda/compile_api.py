"""Compiling without launching: PTX, LTO-IR or LLVM IR for use by other languages.

Everything here works on a machine with no GPU and no driver when ``cc`` is given.
See docs/compiling.md for the two ABIs of device functions.
"""

import re

ABIS = ("c", "numba")
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def compile(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None, opt=True, abi="c", abi_info=None, output="ptx", **options):
    """Compile *pyfunc* for *sig*; returns ``(code, return_type)``.

    ``code`` is PTX text (``output="ptx"``), LTO-IR bytes (``"ltoir"``) or LLVM IR text
    (``"llvm"``). With ``device=True`` the function is a device function with the C ABI
    (``abi="c"``: named ``pyfunc.__name__`` or ``abi_info["abi_name"]``, returning its
    result) or Numba's (``abi="numba"``: a mangled name, the result stored through a
    pointer passed first, a status code returned). *sig* may give only the argument
    types; the return type is then inferred. ``cc`` is a compute capability such as
    ``(9, 0)``; without one, the current device's is used. Further keywords are the
    options of ``cuda.jit`` (``forceinline``, ``launch_bounds``, ``max_registers`` ...).
    """
    from ..compiler import LIBRARY_OUTPUTS, check_choice
    from ..options import Options
    from ..typing.signatures import parse_signature

    check_choice("abi", abi, ABIS)
    check_choice("output", output, LIBRARY_OUTPUTS)
    argtypes, return_type = parse_signature(sig)
    settings = dict(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt, **options)
    compile_options = Options.from_keywords("cuda.compile", settings)
    cc = _compute_capability(cc)
    if device:
        return _device(pyfunc, argtypes, return_type, cc, compile_options, abi, abi_info, output)
    return _kernel(pyfunc, argtypes, return_type, cc, compile_options, abi, output)


def compile_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, opt=True, abi="c", abi_info=None, output="ptx", **options):
    """``compile`` for the compute capability of the current device."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=None, opt=opt, abi=abi, abi_info=abi_info, output=output, **options)


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None, opt=True, abi="numba", abi_info=None, **options):
    """Compile *pyfunc* for *sig* into PTX; returns ``(ptx, return_type)``.

    As ``compile(..., output="ptx")``, but a kernel and Numba's ABI by default.
    """
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info, output="ptx", **options)


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, opt=True, abi="numba", abi_info=None, **options):
    """``compile_ptx`` for the compute capability of the current device."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=None, opt=opt, abi=abi, abi_info=abi_info, **options)


def _compute_capability(cc):
    from ..codegen.targets import parse_cc

    if cc is None:
        from ..runtime.driver import current_context

        cc = current_context().compute_capability
    return parse_cc(cc)


def _py_function(pyfunc):
    return getattr(pyfunc, "py_func", pyfunc)


def _symbol(pyfunc, argtypes, abi, abi_info):
    """The name the compiled device function gets."""
    if abi == "numba":
        from ..lowering.entry import numba_abi_name

        return numba_abi_name(_py_function(pyfunc), argtypes)
    abi_info = abi_info or {}
    unknown = set(abi_info) - {"abi_name"}
    if unknown:
        raise ValueError(f"unknown abi_info keys {sorted(unknown)}; the C ABI takes 'abi_name'")
    name = abi_info.get("abi_name", _py_function(pyfunc).__name__)
    if not isinstance(name, str) or not _C_IDENTIFIER.match(name):
        raise ValueError(f"abi_name {name!r} is not a C identifier (letters, digits and '_', not starting with a digit)")
    return name


def _device(pyfunc, argtypes, return_type, cc, options, abi, abi_info, output):
    from ..compiler import device_function

    symbol = _symbol(pyfunc, argtypes, abi, abi_info)
    callee = _device_dispatcher(pyfunc, options).compile_device(argtypes, return_type)
    code = device_function(callee, symbol, cc, abi=abi, output=output, options=options)
    return code, callee.typed.return_type


def _device_dispatcher(pyfunc, options):
    """The DeviceDispatcher typing *pyfunc* (a Python function or a @cuda.jit dispatcher)."""
    from ..typing.frontend import DeviceDispatcher

    dispatcher = getattr(pyfunc, "device_dispatcher", None)
    return dispatcher if dispatcher is not None else DeviceDispatcher(pyfunc, options)


def _kernel(pyfunc, argtypes, return_type, cc, options, abi, output):
    from ..compiler import kernel, output_of

    if abi != "numba":
        raise NotImplementedError(f"abi={abi!r} applies to device functions; kernels use abi='numba'")
    pyfunc = _py_function(pyfunc)
    c = kernel(pyfunc, argtypes, cc, options, until="typed", return_type=return_type, output=output)
    return output_of(c, output), c.typed.return_type
