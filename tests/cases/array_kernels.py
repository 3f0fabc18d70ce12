"""Array kernels shared by the CPU tier (PTX + ptxas) and the GPU tier.

The "programs" are plain Python functions over arrays that use no CUDA intrinsic:
the GPU tests run each one as a kernel with a single thread and also call it on
NumPy arrays on the host, and the two results must agree.
"""

import numpy as np

from cumlir import cuda

# ---- element access over 1-d to 4-d arrays -------------------------------------------------


def copy_1d(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i]


def copy_2d(a, out):
    i = cuda.grid(1)
    if i < a.size:
        n1 = a.shape[1]
        out[i // n1, i % n1] = a[i // n1, i % n1]


def copy_3d(a, out):
    i = cuda.grid(1)
    if i < a.size:
        n1, n2 = a.shape[1], a.shape[2]
        i2 = i % n2
        i1 = (i // n2) % n1
        i0 = i // (n1 * n2)
        out[i0, i1, i2] = a[i0, i1, i2]


def copy_4d(a, out):
    i = cuda.grid(1)
    if i < a.size:
        n1, n2, n3 = a.shape[1], a.shape[2], a.shape[3]
        i3 = i % n3
        i2 = (i // n3) % n2
        i1 = (i // (n2 * n3)) % n1
        i0 = i // (n1 * n2 * n3)
        out[i0, i1, i2, i3] = a[i0, i1, i2, -n3 + i3]


COPY_KERNELS = {1: copy_1d, 2: copy_2d, 3: copy_3d, 4: copy_4d}


def scale_0d(a, out):
    out[()] = a[()] * 3


# ---- single-thread programs compared with NumPy on the host ------------------------------


def views_2d(a, out):
    v = a[1:5, ::2]
    out[0] = v.shape[0]
    out[1] = v.shape[1]
    out[2] = v[2, 1]
    w = a[::-1, 3]
    out[3] = w[0]
    out[4] = w.size
    t = a.T
    out[5] = t[3, 1]
    s = a[-3:]
    out[6] = s[0, -1]
    e = a[..., 2]
    out[7] = e[4]
    n = a[None, 2]
    out[8] = n[0, 3] + n.ndim
    r = a[2]
    out[9] = r[5]
    out[10] = a.strides[0]
    out[11] = a.strides[1]
    out[12] = a.itemsize
    out[13] = a.nbytes
    k = a[7:2:-2, 5:0:-3]
    out[14] = k[1, 1]
    out[15] = k.shape[0]
    out[16] = k.shape[1]
    out[17] = a[5:2].size
    total = 0.0
    for row in a[::2]:
        for x in row[1::3]:
            total += x
    out[18] = total
    q = a[1:][::-1][2:, 1:][0]
    out[19] = q[0]
    out[20] = t.strides[0] + k.strides[0] * 10 + k.strides[1] * 1000
    out[21] = a[-1, -2]


def views_4d(a, out):
    v = a[1:, ::-1, 1, ::2]
    out[0] = v.shape[0] * 100 + v.shape[1] * 10 + v.shape[2]
    out[1] = v[1, 0, 1]
    out[2] = v[-1, -1, -1]
    w = a[2, ..., 1]
    out[3] = w[1, 2]
    out[4] = w.shape[0] * 10 + w.shape[1]
    u = a.T
    out[5] = u[3, 2, 0, 1]
    out[6] = a[1][2][3][0]
    out[7] = a[:, :, :, 2:3].size


def assign_views(a, b):
    a[1:3, :] = 5
    a[:, 0] = a[:, 1]
    a[4, 1::2] = b[5, ::-2][1:]
    a[6:8, 1:4] = b[0, 2:5]
    a[-1] = b[-1, ::-1]
    a[8, ...] = -1
    b[::2, 1] = 2.5


def reshape_and_view(a, out):
    r = a.reshape((2, 3, 4))
    out[0] = r[1, 2, 3]
    out[1] = r.shape[2]
    m = a.reshape(4, -1)
    out[2] = m[3, 1]
    out[7] = m.shape[1]
    i = a.view(np.int32)
    out[3] = i[5]
    out[4] = a.view(np.uint8).shape[0]
    out[5] = a.view(np.uint16)[9]
    out[6] = a.reshape(6, 4)[::-1].T[1, 4]


def sum_vector(v):
    total = 0.0
    for x in v:
        total += x
    return total


_device_sum = cuda.jit(device=True)(sum_vector)


def views_through_device_function(a, out):
    out[0] = _device_sum(a[1:, 2])
    out[1] = _device_sum(a[3, ::-1])
    out[2] = _device_sum(a.T[1])


def host_views_through_device_function(a, out):
    out[0] = sum_vector(a[1:, 2])
    out[1] = sum_vector(a[3, ::-1])
    out[2] = sum_vector(a.T[1])


def reshape_fortran(a, out):
    out[0] = a.reshape(a.size)[0]


def out_of_bounds(a, i):
    a[i] = 1.0


def out_of_bounds_2d(a, i):
    a[1, i] = 1.0


def pick_from_pair(pair, k):
    return pair[0][k] + pair[1][k]


_device_pick = cuda.jit(device=True)(pick_from_pair)


def tuple_of_arrays(a, b, out):
    pair = (a, b[::-1])
    out[0] = _device_pick(pair, 1)
    x, y = pair
    out[1] = x[2] * y[0]


def host_tuple_of_arrays(a, b, out):
    pair = (a, b[::-1])
    out[0] = pick_from_pair(pair, 1)
    x, y = pair
    out[1] = x[2] * y[0]
