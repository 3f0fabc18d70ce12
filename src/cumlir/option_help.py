"""``cuda.jit(help=True)``, numba-cuda-mlir's: the keywords of ``cuda.jit`` and what each does,
raised as SystemExit (the program stops, printing them). docs/architecture.md ("Options")
says more of each."""

from __future__ import annotations

# every keyword cuda.jit takes (tests/test_ncm_jit_options.py checks none is missing)
KEYWORDS = {
    "device": "True: a device function, called from kernels (default False: a kernel)",
    "debug": "device exceptions raised on the host, every index checked, line tables and DWARF",
    "opt": "True (default): optimise (O3); False: O0; an int 0-3 is opt_level",
    "opt_level": "the optimisation level, 0 to 3",
    "lineinfo": "line tables in the code, for profilers",
    "fastmath": "True (approximate division, sqrt and functions, flushed denormals; NaN and inf kept IEEE), "
    "or a set of LLVM fast-math flags (nnan, ninf, nsz, arcp, contract, afn, reassoc)",
    "fma": "True (default): a*b + c may be one fma; False: each operation rounded on its own",
    "max_registers": "the most registers a thread may use (1 to 255)",
    "launch_bounds": "N or (max threads per block, min blocks per SM, max blocks per cluster)",
    "inline": "'always' (or True): inlined wherever called; 'never' (False) or 'auto': the optimisers decide",
    "forceinline": "True: as inline='always'",
    "link": "files or link items (CUSource, PTXSource, LTOIR ...) linked with every kernel calling it",
    "lto": "True: compiled to LTO-IR and linked with link-time optimisation",
    "cache": "True: the compiled kernels kept in the on-disk cache",
    "shared_memory_carveout": "'MaxL1', 'MaxShared', 'default' or the percentage of L1 given to shared memory",
    "backend": "the code generator: 'nvptx' (default) or 'nvvm'",
    "index_bits": "None (default): each launch chooses 32- or 64-bit offsets by its arrays; 32 or 64",
    "nrt": "the device runtime (arrays made in device code); None (default): on where code needs it",
    "chip": "'sm_90' (or 'sm_90a'): the chip compiled for where no device or cc= gives one",
    "cc": "(9, 0): as chip",
    "features": "'+ptxNN': the PTX ISA version written (nvptx)",
    "ptxas_options": "options given to ptxas (a string or a list)",
    "capi": "True: the kernel is named after its function; a string: the kernel's symbol",
    "abi": "'numba' only (cuda.compile(abi='c') exports a device function with the C ABI)",
    "abi_info": "{'abi_name': name}: as capi=name",
    "signature": "'infer': compiled at decoration for the parameters' annotations",
    "annotations_as_signatures": "True: as signature='infer' where every parameter is annotated",
    "extensions": "argument handlers: each launch argument passes through their prepare_args",
    "simulate": "True: the kernel runs as its Python function, thread by thread",
    "experimental_ast_transforms": "accepted; consteval works wherever it is used",
    "boundscheck": "refused: debug=True checks every index",
    "dump": "dump_numba_ir and dump_mlir",
    "dump_ast": "the Python syntax tree of the function, on stderr",
    "dump_ast_after_all": "the same (cumlir rewrites only functions using consteval)",
    "dump_numba_ir": "the typed Numba IR, on stderr",
    "dump_mlir": "the MLIR module before the passes, on stderr",
    "dump_llvmir": "the LLVM IR given to the code generator, on stderr",
    "dump_ptx": "the PTX, on stderr",
    "dump_cubin": "the SASS of the cubin, on stderr",
    "print_before_all": "the MLIR before every pass, on stderr",
    "print_after_all": "the MLIR after every pass, on stderr",
    "profile_jit": "True: a cProfile of each compilation and its stage timings, on stderr; a path: saved there too",
    "help": "True: these lines, and the program stops (SystemExit)",
}


def help_text(reason: str) -> str:
    """The keywords and their effects, headed by why they are printed."""
    width = max(map(len, KEYWORDS))
    lines = [f"Printing the options because: {reason}", "", "cuda.jit keywords:"]
    lines += [f"  {name.ljust(width)}  {effect}" for name, effect in KEYWORDS.items()]
    lines += ["", "More in cumlir's docs/architecture.md, 'Options'."]
    return "\n".join(lines)
