"""MLIR module -> LLVM dialect -> PTX."""
