"""Linkage of LLVM dialect functions and globals, as LLVM 7 text spells it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .llvm7_errors import Llvm7Error

if TYPE_CHECKING:
    from mlir import ir

LINKAGES = {
    "external": "",
    "private": "private ",
    "internal": "internal ",
    "linkonce_odr": "linkonce_odr ",
    "weak_odr": "weak_odr ",
    "linkonce": "linkonce ",
    "weak": "weak ",
    "common": "common ",
}


def linkage_of(op: ir.Operation) -> str:
    text = str(op.attributes["linkage"]) if "linkage" in op.attributes else "#llvm.linkage<external>"
    name = text.removeprefix("#llvm.linkage<").removesuffix(">")
    if name not in LINKAGES:
        symbol = str(op.attributes["sym_name"]).strip('"')
        raise Llvm7Error(f"the LLVM 7 printer does not support linkage {name!r} (on @{symbol})")
    return name
