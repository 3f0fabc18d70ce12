"""Presents cumlir under the module names of numba-cuda-mlir, for libraries whose MLIR
backend imports them (Numbast's ``numbast.experimental.mlir``): each name maps to cumlir's
module of the same job, or to numba's where cumlir uses numba's own. A name with no
counterpart fails to import, naming itself. See docs/clients.md."""

import importlib
import importlib.abc
import importlib.util
import sys
import types as pytypes

PREFIX = "numba_cuda_mlir"

MODULES = {
    "": "cumlir",
    ".cuda": "cumlir.cuda",
    ".types": "cumlir.types",
    ".extending": "cumlir.extending",
    ".models": "cumlir.models",
    ".errors": "cumlir.errors",
    ".lowering_utilities": "cumlir.lowering_utilities",
    "._mlir": "cumlir._mlir",
    "._mlir.ir": "mlir.ir",
    "._mlir.dialects": "mlir.dialects",
    "._mlir.extras": "mlir.extras",
    "._mlir.extras.types": "mlir.extras.types",
    ".numba_cuda": "cumlir.numba_cuda",
    ".numba_cuda.types": "cumlir.types",
    ".numba_cuda.typing": "cumlir.numba_cuda.typing",
    ".numba_cuda.typing.templates": "cumlir.numba_cuda.typing.templates",
    ".numba_cuda.typing.npydecl": "numba.core.typing.npydecl",
    ".numba_cuda.typeconv": "cumlir.numba_cuda.typeconv",
    ".numba_cuda.bf16": "cumlir.numba_cuda.bf16",
    ".numba_cuda.fp16": "cumlir.numba_cuda.fp16",
    ".numba_cuda.extending": "cumlir.extending",
    ".numba_cuda.core": None,
    ".numba_cuda.core.errors": "numba.core.errors",
    ".numba_cuda.cudadrv": None,
    ".numba_cuda.cudadrv.linkable_code": "cumlir.linkable",
    ".numba_cuda.cudadrv.devicearray": "cumlir.runtime.devicearray",
    ".numba_cuda.args": "cumlir.runtime.arg_hints",
    ".numba_cuda.np": None,
    ".numba_cuda.np.numpy_support": "numba.np.numpy_support",
    ".type_defs": None,
}


def _attributes(name):
    """The names of modules that are one class or function of cumlir's elsewhere."""
    if name == ".mlir_lowering":
        from cumlir.lowering.function import MLIRLower

        return {"MLIRLower": MLIRLower}
    if name == ".device_declarations":
        return {"ExternFunction": object}  # named in annotations only
    if name == ".type_defs.vector_types":
        from cumlir.types import VectorType

        return {"VectorType": VectorType}
    if name == ".compiler":
        from cumlir import cuda

        return {"declare_device": cuda.declare_device}
    if name == ".numba_cuda.core.imputils":
        from numba.core.imputils import numba_typeref_ctor

        from cumlir.extending import lower_constant

        return {"numba_typeref_ctor": numba_typeref_ctor, "lower_constant": lower_constant}
    return None


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname != PREFIX and not fullname.startswith(PREFIX + "."):
            return None
        name = fullname[len(PREFIX) :]
        if name in MODULES or name.startswith("._mlir.dialects.") or _attributes(name) is not None:
            return importlib.util.spec_from_loader(fullname, self)
        raise ModuleNotFoundError(f"cumlir has no counterpart of {fullname}", name=fullname)

    def create_module(self, spec):
        name = spec.name[len(PREFIX) :]
        module = pytypes.ModuleType(spec.name)
        module.__path__ = []  # a package, so that its submodules are looked up here too
        attributes = _attributes(name)
        if attributes is not None:
            module.__dict__.update(attributes)
            return module
        target = "mlir.dialects." + name.rsplit(".", 1)[1] if name.startswith("._mlir.dialects.") else MODULES[name]
        if target is not None:
            real = importlib.import_module(target)
            module.__getattr__ = lambda attr: getattr(real, attr)
        return module

    def exec_module(self, module):
        pass


_finder = _Finder()


def install():
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall():
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == PREFIX or n.startswith(PREFIX + ".")]:
        del sys.modules[name]
