"""Device time of back-to-back launches, apart from the host's launch overhead, and the
device's ceilings (copy bandwidth, float32 and float64 FMA throughput).

A gate kernel holds the stream (it spins until the host writes a flag in mapped host
memory) while the start event, the launches and the stop event are queued behind it;
the host then opens the gate, so the events time the kernels alone, back to back.
The gate gives up after a few seconds (a launch that waited for the device would
otherwise never return); the measurement is then marked as not gated."""

import ctypes
import statistics

import numpy as np

from .twin import Twin, _check

TOOLS_SOURCE = r"""
extern "C" __global__ void gate(volatile int* flags, long long timeout_ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flags[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > (unsigned long long)timeout_ns) { flags[1] = 1; return; }
        __nanosleep(500);
    }
}

#define CHAINS(T, F)                                                            \
    T x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;                   \
    T x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;                        \
    for (int i = 0; i < iters; i++) {                                           \
        x0 = F(x0, a, b); x1 = F(x1, a, b); x2 = F(x2, a, b); x3 = F(x3, a, b);  \
        x4 = F(x4, a, b); x5 = F(x5, a, b); x6 = F(x6, a, b); x7 = F(x7, a, b);  \
    }                                                                           \
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;

extern "C" __global__ void fma_f32(float* out, int iters, float a, float b) { CHAINS(float, fmaf) }
extern "C" __global__ void fma_f64(double* out, int iters, double a, double b) { CHAINS(double, fma) }
"""
FMA_CHAINS = 8
GATE_TIMEOUT_NS = 5_000_000_000


class Gate:
    def __init__(self, tools):
        from cuda.bindings import driver

        self._tools = tools
        flags = getattr(driver, "CU_MEMHOSTALLOC_DEVICEMAP", 2) | getattr(driver, "CU_MEMHOSTALLOC_PORTABLE", 1)
        self._host = int(_check(driver.cuMemHostAlloc(8, flags), "cuMemHostAlloc"))
        self._device = ctypes.c_void_p(
            int(_check(driver.cuMemHostGetDevicePointer(self._host, 0), "cuMemHostGetDevicePointer"))
        )
        self._flags = (ctypes.c_int32 * 2).from_address(self._host)
        self.gave_up = False

    def close(self):
        self._flags[0] = 0
        self._flags[1] = 0
        self._tools("gate", 1, 1, self._device, np.int64(GATE_TIMEOUT_NS))

    def open(self):
        self._flags[0] = 1

    def held(self):
        """Whether the last closing held until it was opened."""
        return self._flags[1] == 0


class Timer:
    """Median device milliseconds per launch of ``launch()``."""

    def __init__(self, cupy, cc, repeats, batch):
        self.cupy = cupy
        self.tools = Twin(TOOLS_SOURCE, cc)
        self.gate = Gate(self.tools)
        self.repeats = repeats
        self.batch = batch
        self.ungated = 0  # samples where the gate gave up (a launch waited for the device)

    def median_ms(self, launch, warmup=3):
        cp = self.cupy
        for _ in range(warmup):
            launch()
        cp.cuda.runtime.deviceSynchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        samples = []
        for _ in range(self.repeats):
            self.gate.close()
            start.record()
            for _ in range(self.batch):
                launch()
            stop.record()
            self.gate.open()
            stop.synchronize()
            if not self.gate.held():
                self.ungated += 1
            samples.append(cp.cuda.get_elapsed_time(start, stop) / self.batch)
        return statistics.median(samples)

    def copy_gbs(self, nbytes):
        """Device-to-device cudaMemcpy bandwidth (bytes read + written per second / 1e9)."""
        cp = self.cupy
        src = cp.random.random(nbytes // 4, dtype=np.float32)
        dst = cp.empty_like(src)
        rt = cp.cuda.runtime

        def copy():
            rt.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes, rt.memcpyDeviceToDevice, 0)

        ms = self.median_ms(copy)
        return 2 * src.nbytes / ms / 1e6

    def fma_gflops(self, dtype, iters=4096):
        """FMA throughput of independent chains on every SM (2 flops per FMA)."""
        cp = self.cupy
        sms = cp.cuda.Device().attributes["MultiProcessorCount"]
        grid, threads = sms * 8, 256
        out = cp.empty(grid * threads, dtype)
        name = "fma_f32" if dtype == np.float32 else "fma_f64"
        a, b = dtype(0.999), dtype(1e-3)
        ms = self.median_ms(lambda: self.tools(name, grid, threads, out, np.int32(iters), a, b))
        return 2 * FMA_CHAINS * iters * grid * threads / ms / 1e6
