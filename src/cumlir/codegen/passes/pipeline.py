"""The MLIR passes of the compiler's stages before code generation, for every code generator.

  optimized  linalg -> parallel loops -> grid-stride loops (GPU ufuncs), inline device
             functions, canonicalize, CSE
  llvm       structured control flow -> cf, everything -> LLVM dialect (math ops
             become libdevice calls), drop the casts used to build memref descriptors;
             counted loops with a runtime step marked for unrolling (counted_loops.py),
             loops over a range of constant length too (constant_trip_loops.py)

Each transforms the module in place; the order is the compiler's (compiler.py), which
then lets the code generator prepare the module (``Backend.prepare``) and make its code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir, passmanager
from mlir.dialects import llvm

from ... import backends
from ...marks import (
    CHIP_AT_LEAST,
    CHIP_PATH_PTX,
    CHIP_PATHS,
    FUNCTION_FASTMATH,
    NEEDS_ARCH_SPECIFIC,
    NEEDS_CHIP,
    NEEDS_PTX,
    PARALLEL_LOOPS_MARK,
    UNCONTRACTED,
)
from ...mlir.contexts import thread_pass_managers
from ...options import check_ptx_feature, llvm_fastmath
from .. import targets
from . import by_value_params, constant_trip_loops, counted_loops, shared_alignment
from .parallel_loops import distribute

if TYPE_CHECKING:
    from ...chips import ComputeCapability
    from ...options import Options

STAGES = {
    "optimized": "builtin.module(gpu.module(inline,canonicalize,cse,symbol-dce))",
    "llvm": "builtin.module(gpu.module(convert-scf-to-cf,convert-to-llvm{dynamic=1}),"
    "reconcile-unrealized-casts,gpu.module(canonicalize))",
}
# a module of kernels alone has nothing to inline (the inliner would canonicalize twice)
OPTIMIZED_WITHOUT_CALLS = "builtin.module(gpu.module(canonicalize,cse,symbol-dce))"
# the loops of GPU ufuncs: linalg -> scf.parallel; views of core axes (memref.subview) need
# expand-strided-metadata, and the affine.apply it makes lower-affine, before convert-to-llvm
PARALLEL_LOOPS = "builtin.module(gpu.module(convert-linalg-to-parallel-loops,expand-strided-metadata,lower-affine))"
# then the grid-stride loops become blocks, so the inliner can inline multi-block functions
# (an assert, a loop) called in them: an scf.for body is one block
LOOPS_TO_BLOCKS = "builtin.module(gpu.module(convert-scf-to-cf))"

NVPTX_DATA_LAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"


def pass_manager(pipeline: str, options: Options | None = None) -> passmanager.PassManager:
    """The parsed pass manager of a textual *pipeline* in the current MLIR context, made once
    per thread: a pass manager runs on one module at a time, so threads never share one.
    Options asking to print the IR around every pass (``print_before_all``,
    ``print_after_all``) get one of their own, printing on stderr."""
    printing = _ir_printing(options)
    if printing:
        pm = passmanager.PassManager.parse(pipeline)
        pm.enable_ir_printing(**printing)
        return pm
    kept = thread_pass_managers(ir.Context.current)
    pm = kept.get(pipeline) if kept is not None else None
    if pm is None:
        pm = passmanager.PassManager.parse(pipeline)
        if kept is not None:
            kept[pipeline] = pm
    return pm


def _ir_printing(options: Options | None) -> dict[str, bool]:
    """enable_ir_printing's switches for the options' print_before_all / print_after_all."""
    if options is None:
        return {}
    before, after = "print_before_all" in options.dumps, "print_after_all" in options.dumps
    return {"print_before_all": before, "print_after_all": after} if before or after else {}


def set_target(module: ir.Module, cc: ComputeCapability, options: Options) -> None:
    """Attach the NVVM target (chip, PTX version, LLVM optimisation level, FTZ) to the gpu.module,
    and the options' register and launch limits to its kernels."""
    gpu_module = gpu_module_of(module)
    flags = ", flags = {ftz}" if options.fast else ""
    arch_specific = targets.arch_specific(cc, options)
    suffix = targets.suffix(cc, options)  # "a" (sm_90a), "f" (sm_100f) or ""
    if CHIP_PATHS in gpu_module.attributes:  # first: a path kept may need a newer PTX ISA
        # the simulator's CPU runs no chip's instructions: it takes the paths written for every chip
        chip = (0, 0) if options.backend == backends.SIMULATOR else targets.parse_cc(cc)
        _settle_chip_conditions(gpu_module, chip)
    needed_ptx = check_needs(gpu_module, targets.parse_cc(cc), options.features, arch_specific)
    features = options.features or targets.ptx_feature(cc, debug=options.debug, arch_specific=suffix)
    if options.features:
        check_ptx_feature(options.features, targets.parse_cc(cc), suffix)
    elif needed_ptx > int(features[len("+ptx") :]):
        features = f"+ptx{needed_ptx}"
    target = ir.Attribute.parse(
        f'#nvvm.target<O = {options.opt_level}, chip = "{targets.chip(cc, suffix)}", features = "{features}"{flags}>'
    )
    gpu_module.attributes["targets"] = ir.ArrayAttr.get([target])
    # the NVPTX layout must be known when the module is translated to LLVM IR: loads and
    # stores without an explicit alignment take the layout's, and LLVM's default aligns
    # i64 to 4 bytes, which splits every 64-bit integer access in two
    gpu_module.attributes["llvm.data_layout"] = ir.StringAttr.get(NVPTX_DATA_LAYOUT)
    limits = kernel_limits(options)
    if limits:
        for op in gpu_module.regions[0].blocks[0].operations:
            if op.operation.name == "gpu.func" and "gpu.kernel" in op.attributes:
                for name, value in limits.items():
                    op.attributes[name] = value


def check_needs(
    gpu_module: ir.Operation, cc: tuple[int, int], features: str | None, arch_specific: bool = False
) -> int:
    """The PTX version the module's instructions need (0: none), once their chip is checked
    against *cc* (and its architecture-specific target, *arch_specific*) and their PTX version
    against the options' ``features``; the marks are removed."""
    attributes = gpu_module.attributes
    needed: dict[str, tuple[int, str]] = {}  # mark -> (chip or PTX version, what needs it)
    for mark in (NEEDS_ARCH_SPECIFIC, NEEDS_CHIP, NEEDS_PTX):
        if mark in attributes:
            needed[mark] = (ir.IntegerAttr(attributes[mark]).value, ir.StringAttr(attributes[f"{mark}_for"]).value)
            del attributes[mark]
            del attributes[f"{mark}_for"]
    if NEEDS_ARCH_SPECIFIC in needed:
        level, what = needed[NEEDS_ARCH_SPECIFIC]
        if not arch_specific or cc[0] * 10 + cc[1] != level:
            compiled = f"sm_{cc[0]}{cc[1]}{'a' if arch_specific else ''}"
            raise ValueError(
                f"{what} needs the architecture-specific target sm_{level}a; the code is compiled for "
                f"{compiled}: give the option chip='sm_{level}a' (a kernel so compiled runs on "
                f"{level // 10}.{level % 10} devices only)"
            )
    if NEEDS_CHIP in needed:
        level, what = needed[NEEDS_CHIP]
        if cc[0] * 10 + cc[1] < level:
            raise ValueError(
                f"{what} needs sm_{level} or newer; the code is compiled for sm_{cc[0]}{cc[1]} "
                f"(give cc=({level // 10}, {level % 10}) or compile for a newer device)"
            )
    if NEEDS_PTX not in needed:
        return 0
    version, what = needed[NEEDS_PTX]
    if features and int(features[len("+ptx") :]) < version:
        raise ValueError(
            f"{what} needs PTX ISA {version // 10}.{version % 10}; the option features={features!r} is older"
        )
    return version


def _settle_chip_conditions(gpu_module: ir.Operation, cc: tuple[int, int]) -> None:
    """Each i1 constant marked CHIP_AT_LEAST becomes whether *cc* is that chip or newer;
    canonicalization then keeps the one path it selects. A path kept that needs a PTX ISA
    (CHIP_PATH_PTX) records it as the module's need (check_needs)."""
    i1 = ir.IntegerType.get_signless(1)
    i32 = ir.IntegerType.get_signless(32)
    chip = cc[0] * 10 + cc[1]
    attributes = gpu_module.attributes

    def visit(op: ir.Operation) -> ir.WalkResult:
        if CHIP_AT_LEAST in op.attributes:
            kept = chip >= op.attributes[CHIP_AT_LEAST].value
            op.attributes["value"] = ir.IntegerAttr.get(i1, int(kept))
            del op.attributes[CHIP_AT_LEAST]
            if CHIP_PATH_PTX in op.attributes:
                ptx = op.attributes[CHIP_PATH_PTX].value
                del op.attributes[CHIP_PATH_PTX]
                if kept and (NEEDS_PTX not in attributes or ir.IntegerAttr(attributes[NEEDS_PTX]).value < ptx):
                    attributes[NEEDS_PTX] = ir.IntegerAttr.get(i32, ptx)
                    attributes[f"{NEEDS_PTX}_for"] = ir.StringAttr.get("the float8 conversion instructions")
        return ir.WalkResult.ADVANCE

    gpu_module.operation.walk(visit)
    del gpu_module.attributes[CHIP_PATHS]


def kernel_limits(options: Options) -> dict[str, ir.Attribute]:
    """NVVM attributes of a kernel for max_registers (``.maxnreg``) and launch_bounds
    (``.maxntid``, ``.minnctapersm``, ``.maxclusterrank``)."""
    i32 = ir.IntegerType.get_signless(32)
    limits: dict[str, ir.Attribute] = {}
    if options.max_registers is not None:
        limits["nvvm.maxnreg"] = ir.IntegerAttr.get(i32, options.max_registers)
    bounds = options.launch_bounds
    if bounds:
        limits["nvvm.maxntid"] = ir.DenseI32ArrayAttr.get([bounds[0], 1, 1])
    if len(bounds) > 1:
        limits["nvvm.minctasm"] = ir.IntegerAttr.get(i32, bounds[1])
    if len(bounds) > 2:
        limits["nvvm.cluster_max_blocks"] = ir.IntegerAttr.get(i32, bounds[2])
    return limits


def gpu_module_of(module: ir.Module) -> ir.Operation:
    for op in module.body.operations:
        if op.operation.name in ("gpu.module", "gpu.binary"):
            return op.operation
    raise LookupError("the module holds no gpu.module")


def run_stage(module: ir.Module, name: str, options: Options) -> None:
    """Run the MLIR stage *name* ("optimized" or "llvm") on *module*, in place."""
    if name not in STAGES:
        raise ValueError(f"unknown MLIR stage {name!r}; stages: {', '.join(STAGES)}")
    pipeline = STAGES[name]
    if name == "optimized":
        _parallel_loops(module)
        _fast_arithmetic(module, options)
        if not _has_functions(module):
            pipeline = OPTIMIZED_WITHOUT_CALLS
    pass_manager(pipeline, options).run(module.operation)
    if name == "llvm":
        by_value_params.apply(gpu_module_of(module))
        shared_alignment.apply(gpu_module_of(module))
        if options.opt:
            counted_loops.mark(gpu_module_of(module))
            constant_trip_loops.mark(gpu_module_of(module))
        if options.fast:
            _flush_denormals(module)


def _has_functions(module: ir.Module) -> bool:
    """Whether the gpu.module defines a function besides its kernels (one a kernel may call
    and the inliner inline; declarations of external ones, libdevice's, have no body)."""
    return any(
        op.operation.name in ("func.func", "llvm.func") and len(op.operation.regions[0].blocks)
        for op in gpu_module_of(module).regions[0].blocks[0].operations
    )


def _parallel_loops(module: ir.Module) -> None:
    """The loops of GPU ufuncs (linalg ops, scf.parallel), in modules lowering marked as
    holding them: lowered to scf.parallel and spread over the grid (parallel_loops.py)
    before inlining."""
    gpu_module = gpu_module_of(module)
    if PARALLEL_LOOPS_MARK in gpu_module.attributes:
        pass_manager(PARALLEL_LOOPS).run(module.operation)
        distribute(gpu_module)
        pass_manager(LOOPS_TO_BLOCKS).run(module.operation)
        del gpu_module.attributes[PARALLEL_LOOPS_MARK]


def _fast_arithmetic(module: ir.Module, options: Options) -> None:
    """Every floating-point operation gets the options' fast-math flags: ``contract`` by
    default (a*b+c may become one fma, as Numba-CUDA does: libNVVM's default -fma=1), and
    fastmath's; with fastmath=True ("fast") it may be reassociated, contracted and
    approximated (division and square root included), as with nvcc --use_fast_math.
    Operations lowering marked UNCONTRACTED (the ``_rn`` half-precision intrinsics, which
    CUDA never contracts) get only the fastmath flags asked for. A device function compiled
    with its own fastmath option (marked FUNCTION_FASTMATH by lowering) adds its flags to
    its operations, before they are inlined into their callers."""
    for op in gpu_module_of(module).regions[0].blocks[0].operations:
        flags, asked = options.arithmetic_flags, options.fastmath
        if FUNCTION_FASTMATH in op.attributes:
            own = asked | frozenset(op.attributes[FUNCTION_FASTMATH].value.split(","))
            asked = frozenset({"fast"}) if "fast" in own else own
            flags = asked | (options.arithmetic_flags - options.fastmath)
            del op.attributes[FUNCTION_FASTMATH]
        _set_fastmath(op.operation, flags, asked)


def _set_fastmath(root: ir.Operation, flags: frozenset[str], uncontracted_flags: frozenset[str]) -> None:
    """*flags* on every arith/math floating-point operation under *root*;
    *uncontracted_flags* on those marked UNCONTRACTED (the mark is dropped)."""
    chosen: dict[frozenset[str], ir.Attribute] = {}

    def attribute(flag_set: frozenset[str]) -> ir.Attribute:
        if flag_set not in chosen:
            spelled = llvm_fastmath(flag_set)
            chosen[flag_set] = ir.Attribute.parse(f"#arith.fastmath<{','.join(sorted(spelled))}>")
        return chosen[flag_set]

    def visit(op: ir.Operation) -> ir.WalkResult:
        if "fastmath" in op.attributes and op.name.split(".")[0] in ("arith", "math"):
            if UNCONTRACTED in op.attributes:
                del op.attributes[UNCONTRACTED]
                if uncontracted_flags:
                    op.attributes["fastmath"] = attribute(frozenset(uncontracted_flags))
            elif flags:
                op.attributes["fastmath"] = attribute(frozenset(flags))
        return ir.WalkResult.ADVANCE

    root.walk(visit)


def _flush_denormals(module: ir.Module) -> None:
    """fastmath=True also flushes float32 denormals to zero (the .ftz instructions)."""
    preserve_sign = ir.StringAttr.get("preserve-sign")

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "llvm.func":
            op.attributes["denormal_fp_math_f32"] = preserve_sign
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)


def llvm_ir_of(module: ir.Module) -> str:
    """LLVM IR text of the gpu.module after the "llvm" stage."""
    return str(llvm.translate_module_to_llvmir(gpu_module_of(module)))
