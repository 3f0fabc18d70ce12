"""The CUDA runtime side: context, modules, memory, streams and kernel launches,
through the driver API of cuda.bindings (imported on first use)."""
