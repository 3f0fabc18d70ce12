"""The "nvvm" code generator: the LLVM dialect printed as LLVM IR for libNVVM, which makes
PTX or LTO-IR (libnvvm.py); the LLVM 7 printer (llvm7*.py) and the intrinsics it knows
(intrinsics_nvvm.py). See docs/nvvm.md."""
