"""The simulator's runtime: a CUDA driver in host memory, and the CPU code's loader and launcher (docs/simulator.md)."""
