"""What a device exception code means: the exception a raise site raises on the host.

Plain data without numba or MLIR, so that a kernel read from the on-disk cache can
report its device exceptions without loading the compiler."""

from dataclasses import dataclass


@dataclass(frozen=True)
class RaiseSite:
    exc_class: type
    args: tuple
    location: str  # "file:line"

    def exception(self, thread: int) -> BaseException:
        message = self.args[0] if len(self.args) == 1 else ", ".join(map(str, self.args))
        text = f"{message} (raised on the device by thread {thread}, at {self.location})"
        return self.exc_class(text)
