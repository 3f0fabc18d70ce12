"""Text split at its top-level commas: the arguments of a call or a signature, whose types
and constant expressions hold commas inside brackets (read by typing's messages and by the
CPU code generator's rewriting of LLVM IR)."""

from __future__ import annotations


def top_level_parts(text: str, brackets: str = "([{") -> list[str]:
    """The comma-separated parts of *text* outside the opening *brackets* (and their closing
    ones), stripped; an empty text has none."""
    closing = {"(": ")", "[": "]", "{": "}", "<": ">"}
    closers = "".join(closing[b] for b in brackets)
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in brackets:
            depth += 1
        elif c in closers:
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text.strip():
        parts.append(text[start:].strip())
    return parts
