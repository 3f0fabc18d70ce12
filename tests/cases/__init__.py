"""Kernels and cases shared by the CPU tests (which compile them to PTX and check it with
ptxas) and the gpu tests (which run them and compare with a host reference)."""
