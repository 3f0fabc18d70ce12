"""The marks one stage leaves on the MLIR module for a later stage to read: attributes
named by cumlir, set by lowering or a pass and consumed (most of them removed) by the
passes or a code generator. Both sides import the names from here, so that neither
imports the other for a string.
"""

# on an arith operation: one of CUDA's ``_rn`` half-precision intrinsics, which the default
# contraction into fma leaves alone (codegen/passes/pipeline.py, removed there)
UNCONTRACTED = "cumlir.uncontracted"

# on the gpu.module of a compilation holding the loops of GPU ufuncs (linalg, scf.parallel):
# the optimized stage lowers them and spreads them over the grid (removed there)
PARALLEL_LOOPS_MARK = "cumlir.parallel_loops"

# on a device function's func.func: its own fastmath flags (comma-separated), applied by the
# optimized stage before inlining (removed there)
FUNCTION_FASTMATH = "cumlir.fastmath"

# on the counter's llvm.add of a counted loop (codegen/passes/counted_loops.py): the llvm
# stage writes it no-signed-wrap, and the "nvvm" printer reads the mark to print ``nsw``
COUNTED_LOOP_COUNTER = "cumlir.counted_loop_counter"

# on an i1 arith.constant: true on chips of this compute capability (major * 10 + minor) and
# newer, settled by codegen/passes/pipeline.set_target; on the gpu.module: it holds such
# constants (lowering cannot know the chip: the narrow floats' hardware conversions)
CHIP_AT_LEAST = "cumlir.chip_at_least"
CHIP_PATH_PTX = "cumlir.chip_path_ptx"  # the PTX ISA (81 for 8.1) a CHIP_AT_LEAST path needs where it is kept
CHIP_PATHS = "cumlir.chip_paths"

# on the gpu.module: the oldest chip (major * 10 + minor) and PTX ISA version its code needs,
# each with the operation that needs it (a string attribute "<name>_for"), set by operations
# emitting newer instructions (operations/_support/ptx_asm.py) and checked by
# codegen/passes/pipeline.set_target, which raises the PTX version LLVM's NVPTX writes
NEEDS_CHIP = "cumlir.needs_chip"
NEEDS_PTX = "cumlir.needs_ptx"
# the same for an operation that needs a chip's architecture-specific target (sm_90a): the chip
NEEDS_ARCH_SPECIFIC = "cumlir.needs_arch_specific"

# on a kernel: its parameters passed by value and read in place (TMA tensor maps), an array of
# [index, bytes, alignment]; the llvm stage (codegen/passes/by_value_params.py) makes them
# ``llvm.byval`` ``nvvm.grid_constant`` parameters, which the code generators write as such
BY_VALUE_PARAMS = "cumlir.by_value_params"
# on the gpu module: the least alignment (bytes) of every shared array, set by operations that
# need it (TMA copies of a box: 128); applied at the llvm stage (codegen/passes/shared_alignment.py)
SHARED_ALIGNMENT = "cumlir.shared_alignment"
# on a gpu.module: the name of the dynamic shared buffer whose arrays round their start up in
# code, which the shared alignment pass leaves declared at the 16 bytes the driver gives
DYNAMIC_SHARED_ROUNDED = "cumlir.dynamic_shared_rounded"
