"""The warm-up a first launch starts (runtime/warm_up.py): it loads what the kernel will
need on another thread and never raises there; errors stay with the calls that need them."""

import pytest

from cumlir.runtime import driver

from .support import python_output


def test_the_warm_up_loads_the_linker_once_and_quietly():
    out = python_output(
        "import sys\n"
        "from cumlir.runtime import warm_up\n"
        "warm_up.start(); warm_up.start()\n"
        "assert len(warm_up._started) == 1\n"
        "warm_up._started[0].join()\n"
        "print('cuda.bindings.nvjitlink' in sys.modules)"
    )
    assert out == "True"


@pytest.mark.skipif(driver.is_available(), reason="checks the error of a machine without a GPU")
def test_without_a_gpu_the_launch_still_says_why():
    out = python_output(
        "from cumlir import cuda\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    a[0] = 1\n"
        "import numpy as np\n"
        "try:\n"
        "    k[1, 1](np.zeros(1))\n"
        "except Exception as e:\n"
        "    print(type(e).__name__)\n"
    )
    assert out == "CudaSupportError"
