"""Kernels shared by the CPU tests (compiled to PTX, checked by ptxas) and the GPU
tests (run and compared with NumPy)."""

import operator

from cumlir import cuda

BINARY_OPERATORS = {
    "add": (operator.add, "+"),
    "sub": (operator.sub, "-"),
    "mul": (operator.mul, "*"),
    "truediv": (operator.truediv, "/"),
    "floordiv": (operator.floordiv, "//"),
    "mod": (operator.mod, "%"),
    "pow": (operator.pow, "**"),
    "and": (operator.and_, "&"),
    "or": (operator.or_, "|"),
    "xor": (operator.xor, "^"),
    "lshift": (operator.lshift, "<<"),
    "rshift": (operator.rshift, ">>"),
    "eq": (operator.eq, "=="),
    "ne": (operator.ne, "!="),
    "lt": (operator.lt, "<"),
    "le": (operator.le, "<="),
    "gt": (operator.gt, ">"),
    "ge": (operator.ge, ">="),
}


def binary_kernel(name):
    """A kernel computing ``out[i] = a[i] <op> b[i]`` for the named operator."""
    symbol = BINARY_OPERATORS[name][1]
    source = (
        f"def binary_{name}(a, b, out):\n"
        "    i = cuda.grid(1)\n"
        "    if i < out.size:\n"
        f"        out[i] = a[i] {symbol} b[i]\n"
    )
    namespace = {"cuda": cuda}
    exec(compile(source, f"<binary_{name}>", "exec"), namespace)
    return namespace[f"binary_{name}"]


def conversion_kernel(target):
    """A kernel computing ``out[i] = np.<target>(a[i])`` (``bool(a[i])`` for bool)."""
    call = "bool" if target == "bool" else f"np.{target}"
    source = (
        f"def convert_to_{target}(a, out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = {call}(a[i])\n"
    )
    import numpy as np

    namespace = {"cuda": cuda, "np": np}
    exec(compile(source, f"<convert_to_{target}>", "exec"), namespace)
    return namespace[f"convert_to_{target}"]


def unary_minus(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = -a[i]


def logical(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        out[i] = (x > 0 and y > 0) or (not (x < y) and x != 3)


def branches(a, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    x = a[i]
    if x < -10:
        r = 1
    elif x < 0:
        r = 2
    elif x == 0:
        r = 3
    else:
        r = 4
    out[i] = r


def ranged_sums(a, out):
    # out[i] = sum over several ranges with positive, negative and non-unit steps
    i = cuda.grid(1)
    if i < out.size:
        n = a[i]
        s = 0
        for k in range(n):
            s += k
        for k in range(n, -n, -3):
            s += 2 * k
        for k in range(-n, n, 7):
            s -= k
        out[i] = s


def unsigned_ranges(a, out):
    i = cuda.grid(1)
    if i < out.size:
        n = a[i]
        s = 0
        for k in range(n):
            s += k
        for k in range(2, n, 3):
            s += k
        for k in range(n, 0, -2):
            s += k
        out[i] = s


def loop_control(a, out):
    # while with break and continue
    i = cuda.grid(1)
    if i < out.size:
        n = a[i]
        count = 0
        k = 0
        while True:
            k += 1
            if k > n:
                break
            if k % 3 == 0:
                continue
            count += k
        out[i] = count


def early_return(a, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    if a[i] < 0:
        out[i] = -1
        return
    out[i] = a[i] * 2


def negative_index(a, out):
    i = cuda.grid(1)
    n = a.size
    if i < n:
        out[i] = a[i - n] + a[-1]


def shapes(a, out):
    i = cuda.grid(1)
    if i == 0:
        out[0] = len(a)
        out[1] = a.shape[0]
        out[2] = a.size


def grid_2d(out):
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * 1000 + y + w * 0 + h * 0


def grid_3d(out):
    x, y, z = cuda.grid(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = (x * 100 + y) * 100 + z


def registers(out):
    # every thread records its indices and the launch shape
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = cuda.threadIdx.x
        out[i, 1] = cuda.blockIdx.x
        out[i, 2] = cuda.blockDim.x
        out[i, 3] = cuda.gridDim.x
        out[i, 4] = cuda.gridsize(1)
        out[i, 5] = cuda.threadIdx.y + cuda.threadIdx.z + cuda.blockIdx.y + cuda.blockIdx.z
        out[i, 6] = cuda.blockDim.y * cuda.blockDim.z * cuda.gridDim.y * cuda.gridDim.z


def registers_3d(out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = cuda.gridsize(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        expect_x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        expect_y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        expect_z = cuda.blockIdx.z * cuda.blockDim.z + cuda.threadIdx.z
        ok = x == expect_x and y == expect_y and z == expect_z
        ok = ok and nx == cuda.blockDim.x * cuda.gridDim.x and ny == cuda.blockDim.y * cuda.gridDim.y
        ok = ok and nz == cuda.blockDim.z * cuda.gridDim.z
        out[x, y, z] = 1 if ok else 2
