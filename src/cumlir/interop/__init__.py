"""Bridges to libraries that call cumlir-compiled code from their own kernels."""
