"""The device runtime compiled by cumlir's own code generators, once per chip and code format
(the rest of the package, its names and header, loads no MLIR: the link stage reads them)."""

import functools

from mlir import ir

from .. import backends
from ..codegen import backend_for
from ..codegen.passes.pipeline import set_target
from ..linkable import LTOIR, HostCode, PTXSource
from ..mlir.contexts import mlir_context
from ..options import Options
from . import RUNTIME_NAME, source


@functools.cache
def runtime(cc: tuple[int, int], code_format: str = "ptx") -> PTXSource | LTOIR | HostCode:
    """The runtime compiled for compute capability *cc* as a link item: PTX, LTO-IR
    (*code_format* "ltoir") for links optimised as a whole, or the simulator's host code
    ("host"). Compiled once per chip and format."""
    if code_format not in ("ptx", "ltoir", "host"):
        raise ValueError(f"the runtime is compiled to 'ptx', 'ltoir' or 'host', not {code_format!r}")
    options = Options(backend=backends.SIMULATOR if code_format == "host" else backends.DEFAULT)
    with mlir_context(), ir.Location.unknown():
        module = ir.Module.parse(source())
        set_target(module, cc, options)
        code = backend_for(options.backend, code_format).code(module, cc, options, code_format)
    if code_format == "host":
        return HostCode(str(code), name=RUNTIME_NAME)
    return PTXSource(code, name=RUNTIME_NAME) if code_format == "ptx" else LTOIR(code, name=RUNTIME_NAME)
