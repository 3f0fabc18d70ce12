"""The options of one compilation: one frozen object, checked where it is built.

``@cuda.jit(...)`` and ``cuda.compile*(...)`` build an ``Options`` once from their
keywords; every stage of the compiler, the linker and the loader reads that object.
``cache_key()`` covers every field that changes the generated code.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from . import backends, simulation
from .chips import min_ptx, parse_target, target_suffix
from .linkable import as_linkable, load
from .option_help import help_text

if TYPE_CHECKING:
    from .linkable import LinkItem

# "auto", numba-cuda-mlir's, leaves inlining to the optimisers as "never" does: a device
# function is a function of its own that MLIR's inliner and LLVM may inline (Numba-CUDA's "never")
INLINE_MODES = ("never", "always", "auto")
# LLVM's fast-math flags, as numba's ``fastmath={...}`` names them
FASTMATH_FLAGS = frozenset({"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})
# what fastmath=True puts on floating-point operations: every flag but nnan and ninf, so that
# NaN and infinity keep their IEEE meaning (isnan, comparisons, the NaN-skipping reductions),
# as numba-cuda-mlir's fastmath keeps them; fastmath={"nnan", ...} asks for those by name
FAST_ARITHMETIC = frozenset({"nsz", "arcp", "contract", "afn", "reassoc"})


def llvm_fastmath(flags: frozenset[str]) -> frozenset[str]:
    """The LLVM flags of a set of fastmath options, "fast" (fastmath=True) spelled out."""
    return (flags - {"fast"}) | FAST_ARITHMETIC if "fast" in flags else flags


CARVEOUT_NAMES = {"default": -1, "MaxL1": 0, "MaxShared": 100}
MAX_REGISTERS_RANGE = (1, 255)  # what PTX's .maxnreg accepts
OPT_LEVELS = range(4)  # LLVM's -O0 to -O3 (the NVPTX target's O, libNVVM's -opt=)
# what each debugging keyword prints on stderr while compiling; none changes the code
DUMPS = {
    "dump_ast": "the Python syntax tree of the function",
    "dump_ast_after_all": "the Python syntax tree of the function (cumlir has no AST transforms)",
    "dump_numba_ir": "the typed Numba IR",
    "dump_mlir": "the MLIR module before the passes",
    "dump_llvmir": "the LLVM IR given to the code generator",
    "dump_ptx": "the PTX",
    "dump_cubin": "the SASS of the cubin (its size where nvdisasm is missing)",
    "print_before_all": "the MLIR before every pass",
    "print_after_all": "the MLIR after every pass",
    "profile_jit": "a cProfile of each compilation and its stage timings (a path: the profile saved there too)",
}
DUMP_ALIASES = {"dump": ("dump_numba_ir", "dump_mlir")}  # numba-cuda-mlir's dump=True
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CHIP = re.compile(r"sm_(\d+)([a-z]?)\Z")
_PTX_FEATURE = re.compile(r"\+ptx(\d+)\Z")

# keywords Numba-CUDA's cuda.jit has that cumlir refuses, and why
_REFUSED = {
    "argtypes": "signatures are given as the first positional argument",
    "restype": "signatures are given as the first positional argument",
    "bind": "signatures are given as the first positional argument",
}
# keywords that choose what @cuda.jit compiles rather than how: cuda/decorators.py reads them
JIT_SIGNATURE_KEYWORDS = ("signature", "annotations_as_signatures")


INDEX_BITS = (32, 64)


class CompilationWarning(UserWarning):
    """An option was accepted but cannot take effect in this build."""


@dataclass(frozen=True)
class Options:
    """What ``@cuda.jit`` / ``cuda.compile`` were asked for; see docs/architecture.md ("Options")."""

    debug: bool = False
    opt: bool = True
    lineinfo: bool = False
    fastmath: frozenset[str] = frozenset()  # LLVM fast-math flags; {"fast"} for fastmath=True
    fma: bool = True  # contract a*b+c into one fma, as Numba-CUDA (libNVVM's default -fma=1) does
    max_registers: int | None = None
    launch_bounds: tuple[int, ...] = ()  # (max threads per block[, min blocks per SM[, max blocks per cluster]])
    inline: str = "never"
    forceinline: bool = False
    lto: bool = False
    link: tuple[LinkItem, ...] = ()  # LinkableCode objects (or lazily read paths)
    cache: bool = False
    shared_memory_carveout: int | None = None  # percent of L1 given to shared memory; -1 the driver's default
    backend: str | None = None  # a code generator of backends.REGISTRY; None: CUMLIR_BACKEND, else backends.DEFAULT
    nrt: bool | None = (
        None  # the device runtime (docs/nrt.md); None: CUMLIR_ENABLE_NRT or NUMBA_CUDA_ENABLE_NRT, else automatic
    )
    opt_level: int | None = None  # LLVM's optimisation level 0-3; None: 3 if opt else 0
    chip: tuple[int, int] | None = None  # the compute capability compiled for when none is given
    # chip="sm_90a": the chip's architecture-specific target (set from chip, not a keyword)
    arch_specific: bool = False
    # chip="sm_100f": the family target of the chip (set from chip, not a keyword)
    family_specific: bool = False
    features: str | None = None  # the PTX ISA version, as LLVM's "+ptxNN" (nvptx code generator)
    ptxas_options: tuple[str, ...] = ()  # passed to ptxas by nvJitLink (-Xptxas=)
    # array offsets in 32 bits (every array's byte span below 2**31) or 64; None: a launch
    # chooses by its arrays, compiling without a launch takes 64 (docs/launching.md)
    index_bits: int | None = None
    capi: bool | str = False  # a kernel's symbol: its function's name (True, as always), or this name
    dumps: frozenset[str] = frozenset()  # of DUMPS: what compiling prints on stderr (not in the cache key)
    profile_file: str | None = None  # where profile_jit=PATH saves its profile (not a keyword, nor in the cache key)
    # argument handlers: objects whose prepare_args(ty, val, stream=, retr=) give a launch's
    # arguments as they are passed (Numba-CUDA's and numba-cuda-mlir's; not in the cache key)
    extensions: tuple[Any, ...] = ()
    # the simulator's checks compiled in (bounds of every index, docs/simulator.md); None: on for
    # the simulator's code generator unless CUMLIR_SIMULATOR_CHECKS=0 (set from backend, not a keyword)
    checks: bool | None = None

    def __post_init__(self) -> None:
        for name in ("debug", "opt", "lineinfo", "fma", "forceinline", "lto", "cache"):
            _check_bool(name, getattr(self, name))
        object.__setattr__(self, "fastmath", _fastmath(self.fastmath))
        object.__setattr__(self, "max_registers", _max_registers(self.max_registers))
        object.__setattr__(self, "launch_bounds", _launch_bounds(self.launch_bounds))
        object.__setattr__(self, "inline", _inline(self.inline))
        object.__setattr__(self, "link", _link_items(self.link))
        object.__setattr__(self, "shared_memory_carveout", _carveout(self.shared_memory_carveout))
        backend = self.backend if self.backend is not None else os.environ.get("CUMLIR_BACKEND") or backends.DEFAULT
        object.__setattr__(self, "backend", backends.check(backend))
        object.__setattr__(self, "nrt", _nrt(self.nrt))
        object.__setattr__(self, "opt_level", _opt_level(self.opt, self.opt_level))
        chip, suffix = _target(self.chip)
        _check_bool("arch_specific", self.arch_specific)
        _check_bool("family_specific", self.family_specific)
        if (self.arch_specific or self.family_specific) and chip is None:
            raise ValueError("an architecture-specific or family target needs its chip: give chip='sm_90a'")
        if self.arch_specific and self.family_specific:
            raise ValueError("a target is architecture-specific (sm_90a) or a family's (sm_100f), not both")
        object.__setattr__(self, "chip", chip)
        object.__setattr__(self, "arch_specific", suffix == "a" or self.arch_specific)
        object.__setattr__(self, "family_specific", suffix == "f" or self.family_specific)
        object.__setattr__(self, "features", _features(self.features, self.backend, self.chip, self.target_suffix))
        object.__setattr__(self, "ptxas_options", _ptxas_options(self.ptxas_options))
        object.__setattr__(self, "capi", _capi(self.capi))
        object.__setattr__(self, "index_bits", _index_bits(self.index_bits))
        object.__setattr__(self, "dumps", _dumps(self.dumps))
        object.__setattr__(self, "extensions", _extensions(self.extensions))
        if simulation.requested() and self.backend != backends.SIMULATOR:
            # the simulator runs every kernel on the CPU, whichever code generator is named
            # (code asked for in another format, PTX or LTO-IR, still comes from that one)
            object.__setattr__(self, "backend", backends.SIMULATOR)
            object.__setattr__(self, "features", None)
        checks = (
            self.checks if self.checks is not None else self.backend == backends.SIMULATOR and simulation.checking()
        )
        object.__setattr__(self, "checks", bool(checks))

    @property
    def checks_indices(self) -> bool:
        """Whether every index is checked against its axis (debug=True, or the simulator's checks)."""
        return self.debug or bool(self.checks)

    @classmethod
    def from_keywords(cls, where: str, keywords: Mapping[str, Any]) -> Options:
        """Options from user keywords: unknown ones raise TypeError naming the closest known one."""
        known = {f.name for f in fields(cls)} - {"dumps", "profile_file", "arch_specific", "family_specific", "checks"}
        given = dict(keywords)
        wanted = given.pop("help", False)  # numba-cuda-mlir's: the keywords listed, the program stopped
        _check_bool("help", wanted)
        if wanted:
            raise SystemExit(help_text("help was specified"))
        keywords = _translated(where, given)
        for name, value in keywords.items():
            if name in _REFUSED and value not in (None, False):
                raise TypeError(f"{where}: the keyword {name!r} is not supported: {_REFUSED[name]}")
            if name in JIT_SIGNATURE_KEYWORDS:
                raise TypeError(
                    f"{where}: the keyword {name!r} belongs to cuda.jit; {where} takes the signature as its argument"
                )
            made = name == "dumps" or name == "profile_file" and name not in given  # by _translated
            if name not in known and name not in _REFUSED and name not in _NUMBA_ONLY and not made:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else " (help=True lists them)"
                raise TypeError(f"{where}: unknown keyword argument {name!r}{hint}")
        _numba_only(where, keywords)
        chosen = {k: v for k, v in keywords.items() if k in known or k in ("dumps", "profile_file")}
        if chosen.get("debug") is None:
            chosen.pop("debug", None)
        if chosen.get("opt") is None:
            chosen.pop("opt", None)
        elif type(chosen["opt"]) is int and "opt_level" not in chosen:
            # numba-cuda-mlir's opt=0 to 3 is a level; 0 is opt=False
            chosen["opt_level"] = chosen.pop("opt")
        if chosen.get("lto") is None:
            chosen.pop("lto", None)
        if chosen.get("nrt") is None:
            chosen.pop("nrt", None)
        if chosen.get("extensions") is None:
            chosen.pop("extensions", None)
        _opt_together(where, chosen)
        return cls(**chosen)

    def replace(self, **changes: Any) -> Options:
        return replace(self, **changes)

    @property
    def target_suffix(self) -> str:
        """The suffix of the chip's target: "a" (architecture-specific), "f" (a family's) or ""."""
        return "a" if self.arch_specific else "f" if self.family_specific else ""

    @property
    def narrow_addresses(self) -> bool:
        """Whether element offsets are computed in 32 bits (index_bits=32)."""
        return self.index_bits == 32

    @property
    def fast(self) -> bool:
        """Whether fastmath=True (every flag, flushing denormals, approximate routines)."""
        return "fast" in self.fastmath

    @property
    def arithmetic_flags(self) -> frozenset[str]:
        """The fast-math flags every floating-point operation gets: fastmath's, and
        ``contract`` unless fma=False."""
        return self.fastmath | {"contract"} if self.fma else self.fastmath

    @property
    def approximate_functions(self) -> bool:
        """Whether math functions may be approximate (fastmath=True, or the "afn" flag)."""
        return self.fast or "afn" in self.fastmath

    def cache_key(self) -> str:
        """A stable text over every field that changes the generated code (not cache, carveout,
        the debugging dumps or the argument handlers)."""
        parts = []
        for f in fields(self):
            if f.name in ("cache", "shared_memory_carveout", "dumps", "profile_file", "extensions"):
                continue
            if f.name in ("checks", "family_specific") and not getattr(self, f.name):
                continue  # the keys of code compiled without them stay as they were
            value = getattr(self, f.name)
            if f.name == "link":
                value = [link_digest(item) for item in value]
            elif f.name == "fastmath":
                value = sorted(value)
            elif f.name == "capi" and value is True:
                value = False  # a kernel is named after its function either way
            parts.append(f"{f.name}={value!r}")
        return ";".join(parts)


# -- keywords numba's own jit knows that have no meaning or an own rule here -----------

# experimental_ast_transforms: numba-cuda-mlir's switch of consteval, which cumlir applies
# wherever a function uses it (typing/consteval.py)
_NUMBA_ONLY = {"device", "boundscheck", "experimental_ast_transforms"}


def _numba_only(where: str, keywords: Mapping[str, Any]) -> None:
    if not isinstance(keywords.get("experimental_ast_transforms", False), bool):
        raise TypeError(f"{where}: experimental_ast_transforms must be True or False")
    if keywords.get("boundscheck"):
        raise NotImplementedError(
            f"{where}: boundscheck=True is not supported (as in Numba-CUDA); debug=True checks every index"
        )


# -- checks of single fields ----------------------------------------------------------------


def _extensions(value: object) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"extensions must be a list of argument handlers, got {value!r}")
    for handler in value:
        if not callable(getattr(handler, "prepare_args", None)):
            raise TypeError(
                f"the extension {handler!r} has no prepare_args(ty, val, stream=, retr=) method; "
                "an argument handler gives each launch argument as it is to be passed"
            )
    return tuple(value)


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"the option {name} must be True or False, got {value!r}")


def _fastmath(value: object) -> frozenset[str]:
    if value is True:
        return frozenset({"fast"})
    if value is False or value is None:
        return frozenset()
    if isinstance(value, dict):
        value = {flag for flag, on in value.items() if on}
    if isinstance(value, (set, frozenset, list, tuple)):
        flags = frozenset(value)
        unknown = sorted(str(f) for f in flags - FASTMATH_FLAGS)
        if unknown:
            raise ValueError(
                f"the option fastmath has unknown flags {unknown}; choose among {', '.join(sorted(FASTMATH_FLAGS))}"
            )
        return frozenset({"fast"}) if "fast" in flags else flags
    raise TypeError(f"the option fastmath must be True, False or a set of LLVM fast-math flags, got {value!r}")


def _max_registers(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"the option max_registers must be an int, got {value!r}")
    low, high = MAX_REGISTERS_RANGE
    if not low <= value <= high:
        raise ValueError(f"the option max_registers must be between {low} and {high}, got {value}")
    return value


def _launch_bounds(value: object) -> tuple[int, ...]:
    if value is None or value == ():
        return ()
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3 or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise TypeError(f"the option launch_bounds must be an int or a tuple of 1 to 3 ints, got {value!r}")
    if any(v <= 0 for v in items):
        raise ValueError(f"the option launch_bounds must hold positive ints, got {value!r}")
    return items


def _inline(value: object) -> str:
    if isinstance(value, bool):  # Numba-CUDA's older spelling
        value = "always" if value else "never"
    if callable(value):
        raise ValueError(
            "the option inline takes no cost model (a function deciding per call, numba's inlining of its IR): "
            "cumlir's optimisers decide with inline='auto' (or 'never'); inline='always' inlines every call"
        )
    if value not in INLINE_MODES:
        raise ValueError(f"the option inline must be 'never', 'always' or 'auto', got {value!r}")
    return value


NRT_VARIABLES = ("CUMLIR_ENABLE_NRT", "NUMBA_CUDA_ENABLE_NRT")


def _nrt(value: bool | None) -> bool | None:
    """nrt=None takes the environment's switch (cumlir's, else Numba-CUDA's); without one it
    stays None: automatic, on for the code that needs it (docs/nrt.md)."""
    if value is None:
        for name in NRT_VARIABLES:
            setting = os.environ.get(name)
            if setting is not None and setting.strip() != "":
                return _env_flag(name, setting)
        return None
    _check_bool("nrt", value)
    return value


def _env_flag(name: str, setting: str) -> bool:
    try:
        return bool(int(setting))
    except ValueError:
        raise ValueError(f"the environment variable {name} must be 0 or 1, got {setting!r}") from None


def _carveout(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        # any case: Numba-CUDA spells "MaxL1", numba-cuda-mlir "maxl1"
        by_lower = {name.lower(): percent for name, percent in CARVEOUT_NAMES.items()}
        if value.lower() not in by_lower:
            raise ValueError(
                f"the option shared_memory_carveout must be one of {', '.join(CARVEOUT_NAMES)} or a percentage, got {value!r}"
            )
        return by_lower[value.lower()]
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value <= 100:
        raise ValueError(f"the option shared_memory_carveout must be an int from -1 to 100, got {value!r}")
    return value


def _link_items(link: object) -> tuple[LinkItem, ...]:
    """Link items checked when the options are built: a bad path suffix is reported here."""
    items = link if isinstance(link, (list, tuple)) else [link]
    return tuple(as_linkable(item) for item in items)


def link_digest(item: LinkItem) -> str:
    """The kind, name and contents of a link item (a path is read now), for cache keys."""
    code = load(item)
    nrt = ":nrt" if code.nrt else ""
    return f"{type(code).__name__}:{code.name}{nrt}:{hashlib.sha256(code.bytes).hexdigest()[:16]}"


# -- numba-cuda-mlir's keywords, translated into the fields they set ------------------------


def _translated(where: str, keywords: Mapping[str, Any]) -> dict[str, Any]:
    """*keywords* with numba-cuda-mlir's spellings made fields: the dump switches gathered into
    ``dumps``, ``cc`` into ``chip``, a kernel's ``abi``/``abi_info`` into ``capi``."""
    result = dict(keywords)
    dumps = set(result.pop("dumps", ()) or ())
    for name in [*DUMPS, *DUMP_ALIASES]:
        if name not in result:
            continue
        value = result.pop(name)
        if name == "profile_jit" and isinstance(value, (str, os.PathLike)):
            path = os.fspath(value)
            if not isinstance(path, str) or not path:
                raise TypeError(
                    f"{where}: profile_jit is True or the path of a file to save the profile to, got {value!r}"
                )
            result["profile_file"] = path
            value = True
        _check_bool(name, value)
        if value:
            dumps.update(DUMP_ALIASES.get(name, (name,)))
    if dumps:
        result["dumps"] = frozenset(dumps)
    if result.get("cc") is not None:
        cc = result.pop("cc")
        chip = result.get("chip")
        if chip is not None and _chip(chip) != _chip(cc):
            raise ValueError(f"{where}: cc={cc!r} and chip={result['chip']!r} name different compute capabilities")
        if chip is None or not _target(chip)[1]:  # the spelling with a target's suffix wins
            result["chip"] = cc
    result.pop("cc", None)
    abi = result.pop("abi", "numba")
    if abi != "numba":
        raise TypeError(
            f"{where}: abi={abi!r}: a @cuda.jit function is called with Numba's ABI; to export a device "
            "function with the C ABI use cuda.compile(f, sig, abi='c')"
        )
    abi_info = result.pop("abi_info", None)
    if abi_info:
        if not isinstance(abi_info, dict) or set(abi_info) - {"abi_name"}:
            raise ValueError(f"{where}: abi_info takes one key, 'abi_name', got {abi_info!r}")
        symbol = abi_info.get("abi_name")
        if result.get("capi") not in (None, False, True, symbol):
            raise ValueError(f"{where}: capi={result['capi']!r} and abi_info={abi_info!r} name different symbols")
        result["capi"] = symbol
    return result


def _opt_together(where: str, chosen: dict[str, Any]) -> None:
    """``opt`` (Numba-CUDA's) and ``opt_level`` (numba-cuda-mlir's) set one thing: given
    together they must agree; ``opt_level`` alone sets ``opt``."""
    level = chosen.get("opt_level")
    if level is None:
        return
    _opt_level(level > 0 if isinstance(level, int) else True, level)  # its own checks first: type and range
    if "opt" in chosen and bool(chosen["opt"]) != (level > 0):
        raise ValueError(
            f"{where}: opt={chosen['opt']!r} and opt_level={level!r} disagree; "
            "give one of them (opt_level=0 is opt=False, 1 to 3 are opt=True)"
        )
    chosen["opt"] = level > 0


def _index_bits(value: object) -> int | None:
    if value is None or value in INDEX_BITS and not isinstance(value, bool):
        return value
    raise ValueError(f"the option index_bits must be 32, 64 or None (chosen by each launch), got {value!r}")


def _opt_level(opt: bool, level: object) -> int:
    if level is None:
        return 3 if opt else 0
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"the option opt_level must be an int from 0 to 3, got {level!r}")
    if level not in OPT_LEVELS:
        raise ValueError(f"the option opt_level must be between 0 and 3, got {level}")
    if (level > 0) != opt:
        raise ValueError(f"the options opt={opt} and opt_level={level} disagree")
    return level


def _chip(value: object) -> tuple[int, int] | None:
    """The compute capability of a chip option (see _target)."""
    return _target(value)[0]


def _target(value: object) -> tuple[tuple[int, int] | None, str]:
    """A chip as "sm_90", "sm_90a" (architecture-specific), "sm_100f" (a family's), a (major,
    minor) pair (numba-cuda-mlir's ``cc``) or (major, minor, "a") (Numba-CUDA's): the compute
    capability and its target's suffix ("", "a" or "f")."""
    if value is None:
        return None, ""
    if isinstance(value, str):
        form = _CHIP.match(value)
        if form is None or len(form.group(1)) < 2:
            raise ValueError(
                f"the option chip must be 'sm_' and a compute capability, as 'sm_90' or 'sm_100', got {value!r}"
            )
        if form.group(2) not in ("", "a", "f"):
            raise ValueError(
                f"the option chip={value!r}: cumlir compiles for a chip ('sm_90'), its architecture-specific "
                f"target ('sm_90a') or its family target ('sm_100f'), not '{form.group(2)}'; "
                f"use chip='sm_{form.group(1)}'"
            )
    elif not isinstance(value, tuple):
        raise TypeError(f"the option chip must be a string such as 'sm_90' or a (major, minor) tuple, got {value!r}")
    try:
        return parse_target(value)
    except ValueError as e:
        raise ValueError(f"the option chip: {e}") from None


def _features(
    value: object, backend: object, chip: tuple[int, int] | None, arch_specific: bool | str = False
) -> str | None:
    """The PTX ISA version LLVM's NVPTX writes, "+ptxNN" (libNVVM chooses its own)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _PTX_FEATURE.match(value):
        raise ValueError(f"the option features must be a PTX ISA version as '+ptx80' (PTX 8.0), got {value!r}")
    if backend not in backends.reading("features"):
        takers = " or ".join(f"backend={b!r}" for b in backends.reading("features"))
        raise ValueError(
            f"the option features={value!r} applies to {takers}; backend={backend!r} chooses the PTX version"
        )
    if chip is not None:
        check_ptx_feature(value, chip, arch_specific)
    return value


def check_ptx_feature(feature: str, cc: tuple[int, int], arch_specific: bool | str = False) -> None:
    """A PTX version of ``features`` must be one the chip *cc* (its ``a`` or ``f`` target) exists in."""
    version = int(feature[len("+ptx") :])
    least = min_ptx(cc, arch_specific)
    if version < least:
        name = f"sm_{cc[0]}{cc[1]}{target_suffix(arch_specific)}"
        raise ValueError(f"the option features={feature!r} is older than {name} allows: it needs +ptx{least} or later")


def _ptxas_options(value: object) -> tuple[str, ...]:
    if value is None or value == ():
        return ()
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TypeError(f"the option ptxas_options must be a string of ptxas options, got {value!r}")


def _capi(value: object) -> bool | str:
    if isinstance(value, bool):
        return value
    if not isinstance(value, str) or not _C_IDENTIFIER.match(value):
        raise ValueError(
            f"the option capi must be True, False or a C identifier for the kernel's symbol, got {value!r}"
        )
    return value


def _dumps(value: object) -> frozenset[str]:
    names = frozenset(value)  # type: ignore[call-overload]
    unknown = sorted(names - set(DUMPS))
    if unknown:
        raise ValueError(f"unknown dumps {unknown}; choose among {', '.join(DUMPS)}")
    return names
