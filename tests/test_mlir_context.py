"""The MLIR context a thread compiles in is replaced after CONTEXT_USES compilations (a
context keeps every type and attribute made in it): compilations on either side of the
change give the same code."""

from cumlir import cuda
from cumlir.mlir import contexts as mlir_context

SIG = "void(float32[:], float32[:])"


@cuda.jit(device=True)
def _twice(x):
    return x * 2.0


def _kernel(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = _twice(x[i]) + 0.5


def test_a_thread_gets_a_fresh_context_after_its_uses_and_compiles_the_same(monkeypatch):
    monkeypatch.setattr(mlir_context, "CONTEXT_USES", 2)
    seen, codes = [], []
    for backend in ("nvptx", "nvvm"):
        for _ in range(5):
            ptx, _ = cuda.compile_ptx(_kernel, SIG, cc=(9, 0), backend=backend)
            codes.append((backend, ptx))
            seen.append(mlir_context._thread.context)
    assert len({id(c) for c in seen}) >= 5  # replaced every second compilation
    for backend, ptx in codes:
        assert ptx == next(p for b, p in codes if b == backend)
    assert "mul" in codes[0][1]


def test_the_context_is_kept_until_its_uses_are_spent(monkeypatch):
    monkeypatch.setattr(mlir_context, "CONTEXT_USES", 1000)
    cuda.compile_ptx(_kernel, SIG, cc=(9, 0))
    first = mlir_context._thread.context
    cuda.compile_ptx(_kernel, SIG, cc=(9, 0))
    assert mlir_context._thread.context is first


def test_types_kept_across_compilations_are_made_in_each_new_context(monkeypatch):
    # the raw pointer's model is kept from one compilation to the next; its MLIR type is not
    from .cases.argument_kernels import SIGNATURES

    monkeypatch.setattr(mlir_context, "CONTEXT_USES", 1)
    kernel, sig = SIGNATURES["typed_pointer"]
    first, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0))
    again, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0))
    assert first == again


def test_an_extension_model_type_made_in_a_replaced_context_is_made_again(monkeypatch):
    # docs/extending.md's boxed integer: its model holds an LLVM struct type it made itself
    from .cases import extension_kernels as ek

    monkeypatch.setattr(mlir_context, "CONTEXT_USES", 1)
    kernel = ek.boxed_kernel.py_func
    first, _ = cuda.compile_ptx(kernel, "void(int64[:], int64[:])", cc=(9, 0))
    again, _ = cuda.compile_ptx(kernel, "void(int64[:], int64[:])", cc=(9, 0))
    assert first == again
