"""Loading a kernel asks the driver for the device runtime's counters only where the
kernel's image names them: a lookup that fails is a driver error, which compute-sanitizer
reports for every kernel that does not link the runtime."""

from cumlir.nrt import STATS_GLOBAL
from cumlir.runtime import driver as drv
from cumlir.runtime import nrt_stats


class _Kernel:
    """What register sets on a loaded kernel (weakly referenced, as kernels are)."""


class _Driver:
    class CUresult:
        CUDA_SUCCESS = 0

    def __init__(self):
        self.asked = []

    def cuModuleGetGlobal(self, module, name):
        self.asked.append(name)
        return (0, 0x1000, 32)


def test_only_images_naming_the_counters_are_asked(monkeypatch):
    fake = _Driver()
    monkeypatch.setattr(drv, "driver", lambda: fake)
    plain, linked = _Kernel(), _Kernel()
    nrt_stats.register(plain, None, "module", b"\x7fELF ... vadd ...")
    assert plain.uses_runtime is False and fake.asked == []
    nrt_stats.register(linked, None, "module", b"\x7fELF ... " + STATS_GLOBAL.encode() + b" ...")
    assert linked.uses_runtime is True and fake.asked == [STATS_GLOBAL.encode()]
