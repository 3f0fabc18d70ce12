"""reduce_into over 2**28 int32 with a cumlir LTO-IR operator against the same algorithm
with CCCL's built-in OpKind.PLUS, measured in one run (informational).

    source .gpu/prelude.sh && python3 benchmarks/cccl_reduce.py
"""

import numpy as np
from timing import median_ms


def add(a, b):
    return a + b


def main(n=2**28):
    import cuda.compute
    import cupy as cp
    from cuda.compute import OpKind

    from cumlir.interop.cccl import raw_op

    d_in = cp.asarray(np.random.default_rng(0).integers(0, 4, n, dtype=np.int32))
    init = np.zeros(1, np.int32)
    rows = []
    for label, op in (("cumlir LTO-IR add", raw_op(add, [np.int32, np.int32])), ("OpKind.PLUS", OpKind.PLUS)):
        out = cp.zeros(1, np.int32)
        reducer = cuda.compute.make_reduce_into(d_in=d_in, d_out=out, op=op, h_init=init)
        arguments = {"d_in": d_in, "d_out": out, "num_items": n, "op": op, "h_init": init}
        scratch = cp.empty(reducer(temp_storage=None, **arguments), np.uint8)

        def run():
            reducer(temp_storage=scratch, **arguments)

        ms = median_ms(run)
        assert int(out.get()[0]) == int(d_in.sum(dtype=cp.int64))  # at most 3 * 2**28: no int32 overflow
        rows.append((label, ms, n * 4 / ms / 1e6))
    print(f"reduce_into, {n} int32 ({cp.cuda.runtime.getDeviceProperties(0)['name'].decode()})")
    print(f"{'operator':>20} {'ms':>9} {'GB/s':>9}")
    for label, ms, gbs in rows:
        print(f"{label:>20} {ms:9.3f} {gbs:9.1f}")
    print(f"cumlir / OpKind.PLUS time ratio: {rows[0][1] / rows[1][1]:.3f}")


if __name__ == "__main__":
    main()
