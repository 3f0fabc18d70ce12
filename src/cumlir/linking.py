"""nvJitLink: PTX (and later LTO-IR and other link items) -> cubin for one chip."""

from .codegen import targets


class LinkError(RuntimeError):
    """nvJitLink failed; the message includes its error log."""


def link_ptx(ptx, cc, name="cumlir"):
    """A cubin for compute capability *cc* from PTX text."""
    from cuda.bindings import nvjitlink

    data = ptx.encode() if isinstance(ptx, str) else ptx
    options = [f"-arch={targets.chip(cc)}"]
    handle = nvjitlink.create(len(options), options)
    try:
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            raise LinkError(f"nvJitLink could not link {name}: {e}\n{_error_log(nvjitlink, handle)}") from None
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)


def _error_log(nvjitlink, handle):
    try:
        size = nvjitlink.get_error_log_size(handle)
        log = bytearray(size)
        nvjitlink.get_error_log(handle, log)
        return log.rstrip(b"\0").decode(errors="replace")
    except Exception:  # the log is a courtesy; the error itself was already raised
        return ""
