"""The ``cmath`` functions at infinite and NaN parts: C99's Annex G, as Python's cmath gives it.

Where a part of the argument is infinite or NaN, Python's cmath (like C99's Annex G) gives a
value that depends only on the kind of each part: -inf, a negative number, -0.0, +0.0, a
positive number, +inf or NaN (seven kinds, ``kind`` below). Each function's 7 x 7 table of
those values is made here when the module loads, by asking the interpreter's own ``cmath``
at one value of each kind, and lives in the kernel as a constant array (``TABLES``), read
(``value``) only on the cold path that ``cmath.py``'s functions take when a part is not
finite.

Two exceptions to "the kind of each part":

- exp, cosh, sinh and tanh of an infinite real part and a finite nonzero imaginary part y
  (and rect of an infinite radius at a finite nonzero angle) are infinities or zeros signed
  by cos(y) and sin(y), as their formulas give them: those take the finite path
  (``turned_infinity``), and their entries of the tables are never read.
- where Python raises ValueError (C99's "invalid": exp, cosh, sinh and tanh of an infinite
  imaginary part, rect at an infinite angle), the kernel gives C99's value instead, as
  Numba-CUDA's device code does (it raises nothing): the ``_invalid_*`` functions.

asin, atan, cos, sin, tan and log10 come from asinh, atanh, cosh, sinh, tanh and log (as in
CPython), so they need no table of their own.
"""

import cmath
import math

import numpy as np

from .._support.api import implementation

INF = math.inf
NAN = math.nan

# one value of each kind, in the order of ``kind``'s numbers
_ONE_OF_EACH_KIND = (-INF, -1.5, -0.0, 0.0, 1.5, INF, NAN)


def _invalid_exp(x, y):  # y infinite, x not NaN nor -inf
    return complex(INF, NAN) if x == INF else complex(NAN, NAN)


def _invalid_cosh(x, y):  # y infinite, x not NaN
    if math.isinf(x):
        return complex(INF, NAN)
    return complex(NAN, 0.0) if x == 0.0 else complex(NAN, NAN)


def _invalid_sinh(x, y):  # y infinite, x not NaN
    if math.isinf(x):
        return complex(INF, NAN)
    return complex(0.0, NAN) if x == 0.0 else complex(NAN, NAN)


def _invalid_tanh(x, y):  # y infinite, x finite
    return complex(x, NAN) if x == 0.0 else complex(NAN, NAN)


def _invalid_rect(r, phi):  # phi infinite, r nonzero and not NaN
    return complex(INF, NAN) if math.isinf(r) else complex(NAN, NAN)


def _of_parts(fn):
    return lambda x, y: fn(complex(x, y))


# function -> (Python's, of the two parts; C99's value where Python's raises ValueError, for
# the functions whose Python form raises at some infinite part)
_SOURCES = {
    "acos": (_of_parts(cmath.acos), None),
    "acosh": (_of_parts(cmath.acosh), None),
    "asinh": (_of_parts(cmath.asinh), None),
    "atanh": (_of_parts(cmath.atanh), None),
    "cosh": (_of_parts(cmath.cosh), _invalid_cosh),
    "exp": (_of_parts(cmath.exp), _invalid_exp),
    "log": (_of_parts(cmath.log), None),
    "sinh": (_of_parts(cmath.sinh), _invalid_sinh),
    "sqrt": (_of_parts(cmath.sqrt), None),
    "tanh": (_of_parts(cmath.tanh), _invalid_tanh),
    "rect": (cmath.rect, _invalid_rect),
}


def _table(name):
    """The values of cmath.<name> at one value of each kind of each part, row by row (the
    real part's kind): 49 entries, read at 7 * kind(x) + kind(y) where a part is not finite."""
    fn, invalid = _SOURCES[name]
    values = []
    for x in _ONE_OF_EACH_KIND:
        for y in _ONE_OF_EACH_KIND:
            if math.isfinite(x) and math.isfinite(y):
                values.append(complex(NAN, NAN))  # never read: finite parts take the finite path
                continue
            try:
                values.append(fn(x, y))
            except ValueError:
                values.append(invalid(x, y))
    # as pairs of float64 parts (a constant array of complex numbers is beyond the LLVM 7 printer)
    table = np.array([(v.real, v.imag) for v in values], np.float64)
    table.flags.writeable = False
    return table


ACOS = _table("acos")
ACOSH = _table("acosh")
ASINH = _table("asinh")
ATANH = _table("atanh")
COSH = _table("cosh")
EXP = _table("exp")
LOG = _table("log")
SINH = _table("sinh")
SQRT = _table("sqrt")
TANH = _table("tanh")
RECT = _table("rect")
TABLES = {
    "acos": ACOS,
    "acosh": ACOSH,
    "asinh": ASINH,
    "atanh": ATANH,
    "cosh": COSH,
    "exp": EXP,
    "log": LOG,
    "sinh": SINH,
    "sqrt": SQRT,
    "tanh": TANH,
    "rect": RECT,
}


@implementation
def kind(v):
    """0 for -inf, 1 negative, 2 -0.0, 3 +0.0, 4 positive, 5 +inf, 6 NaN (CPython's order)."""
    if v < 0.0:
        return 0 if math.isinf(v) else 1
    if v > 0.0:
        return 5 if math.isinf(v) else 4
    if v == 0.0:
        return 2 if math.copysign(1.0, v) < 0.0 else 3
    return 6


@implementation
def value(table, x, y):
    """The table's entry for the kinds of x and y."""
    k = 7 * kind(x) + kind(y)
    return complex(table[k, 0], table[k, 1])


@implementation
def turned_infinity(x, y):
    """Whether x is infinite and y finite and nonzero: where exp, cosh, sinh, tanh and rect
    are infinities or zeros turned by y, which their formulas give (these take the finite path)."""
    return math.isinf(x) and math.isfinite(y) and y != 0.0
