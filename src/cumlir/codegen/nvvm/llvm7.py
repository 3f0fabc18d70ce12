"""A printer from the MLIR LLVM dialect to LLVM 7.0 textual IR, the dialect libNVVM
reads for sm_75 ... sm_90.

What differs from modern LLVM IR, and how the printer bridges it:
  - typed pointers: every pointer value is ``i8 addrspace(N)*``; loads, stores, GEPs and
    allocas bitcast to and from the element type around each use (llvm7_ops.py);
  - block arguments become phi nodes; an edge that needs its own phi entry (both arms of
    a conditional branch to one block) gets a block of its own;
  - kernels are named in ``!nvvm.annotations`` and kept alive through ``@llvm.used``, or
    nvJitLink drops them from LTO-IR without a word;
  - only ops and intrinsics in the printer's tables are accepted: libNVVM takes unknown
    intrinsic names silently and ptxas fails much later.

Constants, poison and global addresses are folded into their uses (LLVM IR has no
instruction for them), so one prepass gives every such value its literal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mlir import ir

from . import (
    llvm7_constants,
    llvm7_debug,
    llvm7_nvvm_ops,  # noqa: F401  (its printers fill llvm7_ops.PRINTERS when imported)
    llvm7_ops,
    llvm7_types,
)
from .llvm7_errors import Llvm7Error
from .llvm7_linkage import LINKAGES, linkage_of

NVVM_DATA_LAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64"
    "-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)
NVVM_TRIPLE = "nvptx64-nvidia-cuda"
NVVM_IR_VERSION = (2, 0, 3, 2)  # libNVVM 13's nvvm.ir_version(), for printing without libNVVM

_KERNEL_ATTRIBUTES = ("gpu.kernel", "nvvm.kernel")
# launch bounds carried by MLIR function attributes -> nvvm.annotations keys
_LAUNCH_BOUNDS = {"nvvm.maxntid": "maxntid", "nvvm.reqntid": "reqntid"}
_LAUNCH_SCALARS = {
    "nvvm.minctasm": "minctasm",
    "nvvm.maxnreg": "maxnreg",
    "nvvm.cluster_max_blocks": "cluster_max_blocks",
}


def print_module(
    gpu_module: ir.Operation,
    ir_version: Sequence[int] = NVVM_IR_VERSION,
    line_tables: bool = False,
    variables: bool = False,
) -> str:
    """LLVM 7 text of the ``gpu.module`` (or ``builtin.module``) *gpu_module* after the "llvm" stage;
    with *line_tables*, each instruction carries its Python source line; with *variables*
    too, the variables ``llvm.intr.dbg.declare`` names are described (full debug information)."""
    return ModulePrinter(gpu_module, ir_version, line_tables, variables).run()


def _string_attr(op: ir.Operation, name: str) -> str | None:
    attr = op.attributes[name] if name in op.attributes else None
    return None if attr is None else str(attr).strip('"')


class ModulePrinter:
    def __init__(
        self,
        gpu_module: ir.Operation,
        ir_version: Sequence[int] = NVVM_IR_VERSION,
        line_tables: bool = False,
        variables: bool = False,
    ) -> None:
        self.ir_version = ir_version
        self.nodes: list[str] = []  # metadata node definitions, numbered in order
        self.named_metadata: dict[str, list[str]] = {}  # name -> node references
        # what a node says -> its reference, for nodes many uses share
        self.shared_nodes: dict[tuple[Any, ...], str] = {}
        self.line_tables = llvm7_debug.LineTables(self, variables) if line_tables or variables else None
        self.ops = list(gpu_module.regions[0].blocks[0].operations)
        self.globals: dict[str, tuple[llvm7_types.Type, int]] = {}  # symbol -> (value Type, address space)
        self.functions: dict[str, llvm7_types.Type] = {}  # symbol -> function Type
        # (symbol, function Type, annotations)
        self.kernels: list[tuple[str, llvm7_types.Type, list[tuple[str, int | str]]]] = []
        self.intrinsics: dict[str, str] = {}  # declaration text by intrinsic name, for those the body uses

    def run(self) -> str:
        for op in self.ops:  # (functions and globals have a sym_name: never None)
            name = op.operation.name
            if name == "llvm.func":
                self.functions[_string_attr(op, "sym_name")] = llvm7_types.of(op.attributes["function_type"].value)  # type: ignore[index]
            elif name == "llvm.mlir.global":
                space = op.attributes["addr_space"].value if "addr_space" in op.attributes else 0
                self.globals[_string_attr(op, "sym_name")] = (llvm7_types.of(op.attributes["global_type"].value), space)  # type: ignore[index]
        body = []
        for op in self.ops:
            printer = _TOP_LEVEL.get(op.operation.name)
            if printer is None:
                raise Llvm7Error(f"the LLVM 7 printer does not support the module-level op {op.operation.name!r}")
            body.append(printer(self, op.operation))
        head = [f'target datalayout = "{NVVM_DATA_LAYOUT}"', f'target triple = "{NVVM_TRIPLE}"', ""]
        return "\n".join(head + [b for b in body if b] + list(self.intrinsics.values()) + self._metadata()) + "\n"

    def use_intrinsic(self, name: str, declaration: str) -> None:
        self.intrinsics.setdefault(name, declaration)

    def _function(self, op: ir.Operation) -> str:
        return FunctionPrinter(self, op).run()

    def _global(self, op: ir.Operation) -> str:
        return llvm7_constants.global_definition(self, op)

    def _module_flags(self, op: ir.Operation) -> str:
        # FTZ and precise division/square root reach libNVVM as options (libnvvm.py), not flags
        return ""

    def node(self, text: str) -> str:
        """A new numbered metadata node holding *text*; its reference ``!N``."""
        self.nodes.append(f"!{len(self.nodes)} = {text}")
        return f"!{len(self.nodes) - 1}"

    def shared_node(self, text: str) -> str:
        """The one numbered node of the module holding *text*."""
        key = ("text", text)
        if key not in self.shared_nodes:
            self.shared_nodes[key] = self.node(text)
        return self.shared_nodes[key]

    def range_node(self, low: int, high: int) -> str:
        """The metadata node of the i32 range [low, high), one per module."""
        key = ("range", low, high)
        if key not in self.shared_nodes:
            self.shared_nodes[key] = self.node(f"!{{i32 {low}, i32 {high}}}")
        return self.shared_nodes[key]

    def loop_unroll_node(self, count: int | None) -> str:
        """A new loop identity (LLVM wants one distinct node per loop) asking to unroll it
        *count* times, or fully where *count* is None."""
        loop = f"!{len(self.nodes)}"
        self.nodes.append(f"{loop} = distinct !{{{loop}, !{len(self.nodes) + 1}}}")
        self.node('!{!"llvm.loop.unroll.full"}' if count is None else f'!{{!"llvm.loop.unroll.count", i32 {count}}}')
        return loop

    def _metadata(self) -> list[str]:
        lines = []
        if self.kernels:
            refs = ", ".join(f"i8* bitcast ({fn.text}* @{sym} to i8*)" for sym, fn, _ in self.kernels)
            lines.append(f'@llvm.used = appending global [{len(self.kernels)} x i8*] [{refs}], section "llvm.metadata"')
        annotations = []
        for sym, fn, extra in self.kernels:
            annotations.append(self.node(f'!{{{fn.text}* @{sym}, !"kernel", i32 1}}'))
            annotations += [
                self.node(f'!{{{fn.text}* @{sym}, !"{key}", {value if isinstance(value, str) else f"i32 {value}"}}}')
                for key, value in extra
            ]
        if annotations:
            self.named_metadata["nvvm.annotations"] = annotations
        version = ", ".join(f"i32 {v}" for v in self.ir_version)
        self.named_metadata["nvvmir.version"] = [self.node(f"!{{{version}}}")]
        lines.append("")
        lines += [f"!{name} = !{{{', '.join(refs)}}}" for name, refs in self.named_metadata.items()]
        return lines + self.nodes

    def kernel_annotations(self, op: ir.Operation) -> list[tuple[str, int | str]]:
        extra: list[tuple[str, int | str]] = []
        for attr, key in _LAUNCH_BOUNDS.items():
            if attr in op.attributes:
                values = [int(v) for v in str(op.attributes[attr]).split(":")[1].strip(" >").split(",")]
                extra += [(f"{key}{axis}", v) for axis, v in zip("xyz", values)]
        for attr, key in _LAUNCH_SCALARS.items():
            if attr in op.attributes:
                extra.append((key, op.attributes[attr].value))
        return extra


def _by_value_parameters(op: ir.Operation) -> dict[int, tuple[llvm7_types.Type, int]]:
    """{position: (the stored Type, alignment)} of the function's ``llvm.byval`` parameters
    (TMA tensor maps, codegen/passes/by_value_params.py)."""
    if "arg_attrs" not in op.attributes:
        return {}
    found = {}
    for i, attrs in enumerate(ir.ArrayAttr(op.attributes["arg_attrs"])):
        attrs = ir.DictAttr(attrs)
        if "llvm.byval" in attrs:
            stored = llvm7_types.of(ir.TypeAttr(attrs["llvm.byval"]).value)
            align = ir.IntegerAttr(attrs["llvm.align"]).value if "llvm.align" in attrs else 8
            found[i] = (stored, align)
    return found


_TOP_LEVEL = {
    "llvm.func": ModulePrinter._function,
    "llvm.mlir.global": ModulePrinter._global,
    "llvm.module_flags": ModulePrinter._module_flags,
}


class FunctionPrinter:
    """One llvm.func: names for values and blocks, phis for block arguments, the body."""

    def __init__(self, module: ModulePrinter, op: ir.Operation) -> None:
        self.module = module
        self.op = op
        self.symbol: str = _string_attr(op, "sym_name")  # type: ignore[assignment]  # an llvm.func has one
        self.type = module.functions[self.symbol]
        self.names: dict[ir.Value, str] = {}  # Value -> operand text (an SSA name or a folded literal)
        self.lines: list[str] = []
        self._counter = 0
        self.labels: dict[ir.Block, str] = {}  # Block -> label
        self.incoming: dict[ir.Block, list[tuple[str, list[ir.Value]]]] = {}  # Block -> [(pred label, [Values])]
        # (terminator, successor index) -> label to branch to
        self.edge_labels: dict[tuple[ir.Operation, int], str] = {}
        self.edge_blocks: dict[str, list[str]] = {}  # block label -> lines of the edge blocks after it
        self.dbg = ""  # the source position appended to each instruction (lineinfo)
        # the pointer Value of an alloca -> the typed alloca it bitcasts (debug variables)
        self.allocas: dict[ir.Value, str] = {}

    # -- names -------------------------------------------------------------------------
    def fresh(self, hint: str = "t") -> str:
        self._counter += 1
        return f"%{hint}{self._counter}"

    def value(self, v: ir.Value) -> str:
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = self.fresh("v")
        return name

    def type_of(self, v: ir.Value) -> llvm7_types.Type:
        return llvm7_types.of(v.type)

    def typed(self, v: ir.Value) -> str:
        return f"{self.type_of(v).text} {self.value(v)}"

    def emit(self, text: str) -> None:
        self.lines.append("  " + text + self.dbg)

    def define(self, result: ir.Value, text: str) -> None:
        """Emit ``%name = text`` for the op result *result*."""
        self.emit(f"{self.value(result)} = {text}")

    def cast_pointer(self, v: ir.Value, elem: llvm7_types.Type) -> str:
        """A typed pointer to *elem* holding the ``i8 addrspace(N)*`` value *v*."""
        ptr = self.type_of(v)
        if ptr.kind != "ptr":
            raise Llvm7Error(f"expected a pointer, got {ptr.text}")
        name = self.fresh("p")
        self.emit(f"{name} = bitcast {ptr.text} {self.value(v)} to {llvm7_types.typed_pointer(elem, ptr.bits)}")
        return name

    # -- the function ------------------------------------------------------------------
    def run(self) -> str:
        op = self.op
        result, *params = self.type.members
        linkage = linkage_of(op)
        region = op.regions[0]
        if not list(region.blocks):
            vararg = ", ..." if self.type.vararg else ""
            return f"declare {result.text} @{self.symbol}({', '.join(p.text for p in params)}{vararg})\n"
        if self.type.vararg:
            raise Llvm7Error(f"variadic function definitions are not supported (@{self.symbol})")
        by_value = _by_value_parameters(op)
        params = [
            llvm7_types.Type("ptr", f"{by_value[i][0].text}*") if i in by_value else p for i, p in enumerate(params)
        ]
        if any(a in op.attributes for a in _KERNEL_ATTRIBUTES):
            kind = llvm7_types.function(result, params)
            annotations = self.module.kernel_annotations(op)
            if by_value:  # libNVVM reads these parameters where they lie: 1-based positions
                annotations.append(("grid_constant", "!{" + ", ".join(f"i32 {i + 1}" for i in sorted(by_value)) + "}"))
            self.module.kernels.append((self.symbol, kind, annotations))
        elif by_value:
            raise Llvm7Error(f"@{self.symbol}: by-value parameters are written for kernels only")
        blocks = list(region.blocks)
        for i, arg in enumerate(blocks[0].arguments):
            self.names[arg] = f"%arg{i}"
        for i, block in enumerate(blocks):
            self.labels[block] = f"bb{i}"
        llvm7_constants.fold(self, blocks)
        self._plan_phis(blocks)
        args = ", ".join(
            f"{p.text} byval align {by_value[i][1]} %arg{i}.byval" if i in by_value else f"{p.text} %arg{i}"
            for i, p in enumerate(params)
        )
        tables, scope_ref = self.module.line_tables, ""
        if tables is not None:
            self.scope, self.scope_line = tables.subprogram(self.symbol, op)
            scope_ref = f" !dbg {self.scope}"
        inline = " alwaysinline" if "always_inline" in op.attributes else ""  # forceinline=True
        out = [f"define {LINKAGES[linkage]}{result.text} @{self.symbol}({args}){inline}{scope_ref} {{"]
        for block in blocks:
            self.lines = []
            if block == blocks[0]:  # the function's body sees a by-value parameter as an i8*
                for i in sorted(by_value):
                    self.emit(f"%arg{i} = bitcast {params[i].text} %arg{i}.byval to i8*")
            self._block(block, entry=block == blocks[0])
            out.append(f"{self.labels[block]}:")
            out += self.lines
            out += self.edge_blocks.get(self.labels[block], [])
        out.append("}\n")
        return "\n".join(out)

    def _plan_phis(self, blocks: list[ir.Block]) -> None:
        for block in blocks:
            terminator = list(block.operations)[-1].operation
            pred = self.labels[block]
            seen = set()
            for index, (succ, operands) in enumerate(successors(terminator)):
                label = pred
                if succ in seen and operands:
                    # a second edge from one block to the same target: LLVM wants one phi
                    # entry per predecessor block, so this edge gets a block of its own
                    label = f"{pred}.e{index}"
                    self.edge_labels[(terminator, index)] = label
                    self.edge_blocks.setdefault(pred, []).extend([f"{label}:", f"  br label %{self.labels[succ]}"])
                seen.add(succ)
                self.incoming.setdefault(succ, []).append((label, operands))

    def target(self, terminator: ir.Operation, index: int, block: ir.Block) -> str:
        return "%" + self.edge_labels.get((terminator, index), self.labels[block])

    def _block(self, block: ir.Block, entry: bool = False) -> None:
        self.dbg = ""
        tables = self.module.line_tables
        for position, arg in enumerate([] if entry else block.arguments):
            if not self.incoming.get(block):
                raise Llvm7Error(f"block argument without predecessors in @{self.symbol}")
            entries = ", ".join(
                f"[ {self.value(operands[position])}, %{label} ]" for label, operands in self.incoming[block]
            )
            self.emit(f"{self.value(arg)} = phi {self.type_of(arg).text} {entries}")
        for op in block.operations:
            op = op.operation
            if op.name in llvm7_constants.FOLDED:
                continue
            printer = llvm7_ops.PRINTERS.get(op.name)
            if printer is None:
                raise Llvm7Error(
                    f"the LLVM 7 printer (nvvm code-generation path) does not support the op {op.name!r}"
                    f" (in @{self.symbol})"
                )
            if tables is not None:
                self.dbg = tables.location(op, self.scope, self.scope_line)
            printer(self, op)


def _segments(op: ir.Operation) -> list[int] | None:
    return list(op.attributes["operandSegmentSizes"]) if "operandSegmentSizes" in op.attributes else None


def successors(terminator: ir.Operation) -> list[tuple[ir.Block, list[ir.Value]]]:
    """[(Block, [operand Values])] for each successor of a terminator, in order."""
    op = terminator.operation
    blocks = list(op.successors)
    if not blocks:
        return []
    operands = list(op.operands)
    if op.name == "llvm.br":
        return [(blocks[0], operands)]
    # (conditional branches and switches have operandSegmentSizes: never None)
    if op.name == "llvm.cond_br":
        _, n_true, n_false = _segments(op)  # type: ignore[misc]
        return [(blocks[0], operands[1 : 1 + n_true]), (blocks[1], operands[1 + n_true : 1 + n_true + n_false])]
    if op.name == "llvm.switch":
        _, n_default, _ = _segments(op)  # type: ignore[misc]
        result = [(blocks[0], operands[1 : 1 + n_default])]
        start = 1 + n_default
        for block, size in zip(blocks[1:], list(op.attributes["case_operand_segments"])):
            result.append((block, operands[start : start + size]))
            start += size
        return result
    raise Llvm7Error(f"the LLVM 7 printer does not support the terminator {op.name!r}")
