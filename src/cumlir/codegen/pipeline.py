"""The MLIR pass pipeline, as a short list of named stages.

  optimize   inline device functions, canonicalize, CSE
  llvm       structured control flow -> cf, everything -> LLVM dialect (math ops
             become libdevice calls), drop the casts used to build memref descriptors
  ptx        the NVPTX back end (in process, O3, libdevice linked) -> PTX text

Each stage transforms the module in place; ``run_until`` stops after a named stage
so the command line can print any of them.
"""

from mlir import ir, passmanager
from mlir.dialects import gpu

from . import targets

STAGES = (
    ("optimize", "builtin.module(gpu.module(inline,canonicalize,cse,symbol-dce))"),
    (
        "llvm",
        "builtin.module(gpu.module(convert-scf-to-cf,convert-to-llvm{dynamic=1}),"
        "reconcile-unrealized-casts,gpu.module(canonicalize))",
    ),
    ("ptx", "builtin.module(gpu-module-to-binary{format=isa})"),
)

NVPTX_DATA_LAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"

_pass_managers = {}


def _pass_manager(pipeline):
    pm = _pass_managers.get(pipeline)
    if pm is None:
        pm = _pass_managers[pipeline] = passmanager.PassManager.parse(pipeline)
    return pm


def set_target(module, cc, options=None):
    """Attach the NVVM target (chip, PTX version, LLVM optimisation level, FTZ) to the gpu.module."""
    gpu_module = gpu_module_of(module)
    opt_level = 3 if options is None or options.opt else 0
    flags = ", flags = {ftz}" if options is not None and options.fastmath else ""
    target = ir.Attribute.parse(
        f'#nvvm.target<O = {opt_level}, chip = "{targets.chip(cc)}", features = "{targets.ptx_feature(cc)}"{flags}>'
    )
    gpu_module.attributes["targets"] = ir.ArrayAttr.get([target])
    # the NVPTX layout must be known when the module is translated to LLVM IR: loads and
    # stores without an explicit alignment take the layout's, and LLVM's default aligns
    # i64 to 4 bytes, which splits every 64-bit integer access in two
    gpu_module.attributes["llvm.data_layout"] = ir.StringAttr.get(NVPTX_DATA_LAYOUT)


def gpu_module_of(module):
    for op in module.body.operations:
        if op.operation.name in ("gpu.module", "gpu.binary"):
            return op.operation
    raise LookupError("the module holds no gpu.module")


def run_until(module, last_stage, options=None):
    """Run the stages in order up to and including *last_stage*."""
    names = [name for name, _ in STAGES]
    if last_stage not in names:
        raise ValueError(f"unknown stage {last_stage!r}; stages: {', '.join(names)}")
    fast = options is not None and options.fastmath
    if fast:
        _fast_arithmetic(module)
    for name, pipeline in STAGES:
        _pass_manager(pipeline).run(module.operation)
        if fast and name == "llvm":
            _flush_denormals(module)
        if name == last_stage:
            return


def _fast_arithmetic(module):
    """fastmath=True: every floating-point operation may be reassociated, contracted
    and approximated (division and square root included), as with nvcc --use_fast_math."""
    fast = ir.Attribute.parse("#arith.fastmath<fast>")

    def visit(op):
        if "fastmath" in op.attributes and op.name.split(".")[0] in ("arith", "math"):
            op.attributes["fastmath"] = fast
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)


def _flush_denormals(module):
    """fastmath=True also flushes float32 denormals to zero (the .ftz instructions)."""
    preserve_sign = ir.StringAttr.get("preserve-sign")

    def visit(op):
        if op.name == "llvm.func":
            op.attributes["denormal_fp_math_f32"] = preserve_sign
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)


def ptx_of(module):
    """The PTX text produced by the "ptx" stage."""
    binary = gpu_module_of(module)
    return bytes(gpu.ObjectAttr(binary.attributes["objects"][0]).object).decode()


def llvm_ir_of(module):
    """LLVM IR text of the gpu.module after the "llvm" stage."""
    from mlir.dialects import llvm

    return str(llvm.translate_module_to_llvmir(gpu_module_of(module)))
