"""What the parties' results of one program must agree to, and where they do not.

The host and every device party that rounds each operation on its own (cumlir with
``fma=False``, the simulator) agree on integers and booleans exactly and on floats to a
few ulps of the ``math`` functions (libdevice, the host's libm), grown by what follows
them: 1024 units in the last place of float32 or float64, 16 of float16 or bfloat16 (whose
ulp is 2**13 or 2**16 times a float32's), of the least precise float type the program
uses, times the larger of the value and one. Against numba-cuda, which may fuse a
different product and sum into one fma, four times that.
"""

import numpy as np

HOST_ULPS = 1024
NARROW_ULPS = 16
CONTRACTED = 4  # times the host's tolerance, between parties that contract differently
_EPS = {
    "float16": 2.0**-10,
    "bfloat16": 2.0**-7,
    "float32": float(np.finfo(np.float32).eps),
    "float64": float(np.finfo(np.float64).eps),
}


def tolerance(types):
    """The relative difference allowed between two results of a program that computes
    in *types* (numba's names) and rounds each operation on its own."""
    allowed = [_EPS["float64"] * HOST_ULPS]
    for t in types:
        if t in ("float16", "bfloat16"):
            allowed.append(_EPS[t] * NARROW_ULPS)
        elif t in ("float32", "complex64"):
            allowed.append(_EPS["float32"] * HOST_ULPS)
    return max(allowed)


def disagreeing(device, reference, eps, ulps):
    """Where two results disagree: integers and booleans where they differ, floats where NaN
    is not matched by NaN or they differ by more than *ulps* units of *eps* (the precision
    the program computed in) times the larger of the magnitude and one; complex numbers
    where either part does."""
    if device.dtype.kind == "c":
        real = disagreeing(device.real, reference.real, eps, ulps)
        return real | disagreeing(device.imag, reference.imag, eps, ulps)
    if device.dtype.kind != "f":
        return device != reference
    nan = np.isnan(reference)
    scale = np.maximum(np.abs(reference.astype(np.float64)), 1.0) * eps * ulps
    with np.errstate(invalid="ignore"):  # inf - inf: equal infinities are matched below
        close = np.abs(device.astype(np.float64) - reference.astype(np.float64)) <= scale
    return np.where(nan, ~np.isnan(device), ~(close | (device == reference)))


def pairs(parties):
    """The comparisons to make among the *parties* that ran: (party, reference, contracted)."""
    rounded = [p for p in parties if p.endswith("fma=False") or p == "simulator"]
    made = []
    for p in rounded:
        if "host" in parties:
            made.append((p, "host", False))
    for p in rounded:
        if p != "simulator" and "simulator" in parties:
            made.append((p, "simulator", False))
    for p in parties:
        if p.startswith("cumlir") and not p.endswith("fma=False") or p == "simulator":
            if "numba-cuda" in parties:
                made.append((p, "numba-cuda", True))
    return made


def compare(outputs, inputs_at, relative):
    """Compare the *outputs* (party -> array) pairwise; *inputs_at* gives the inputs an
    element read, *relative* is the host's tolerance. Returns (pair name, problem or None) per comparison."""
    found = []
    for party, reference, contracted in pairs(outputs):
        wrong = np.flatnonzero(
            disagreeing(outputs[party], outputs[reference], relative * (CONTRACTED if contracted else 1), 1)
        )
        name = f"{party} vs {reference}"
        if not wrong.size:
            found.append((name, None))
            continue
        bad = int(wrong[0])
        found.append((
            name,
            f"{party} differs from {reference} at {bad} ({wrong.size} elements): inputs "
            f"{inputs_at(bad)}, {party} {outputs[party][bad]!r}, {reference} {outputs[reference][bad]!r}",
        ))  # fmt: skip
    return found
