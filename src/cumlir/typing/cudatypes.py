"""Numba types that only exist on the CUDA target."""

from numba.core import types


class Dim3Register(types.Dummy):
    """threadIdx, blockIdx, blockDim or gridDim: read .x/.y/.z as int32."""

    def __init__(self, register):
        self.register = register
        super().__init__(name=f"cuda.{register}")

    @property
    def key(self):
        return self.register


thread_idx = Dim3Register("threadIdx")
block_idx = Dim3Register("blockIdx")
block_dim = Dim3Register("blockDim")
grid_dim = Dim3Register("gridDim")
