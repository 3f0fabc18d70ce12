"""mbarriers (sm_90): barriers in shared memory that count arriving threads and, for
asynchronous copies, bytes; by numba-cuda-mlir's ``cuda.intrin`` names (docs/hopper.md).

The barrier is the first element of a shared array of 64-bit integers
(``cuda.shared.array(1, np.uint64)``). ``mbarrier_init(bar, count)`` sets it to wait for
*count* arrivals; ``mbarrier_arrive(bar)`` arrives and returns the barrier's state token
(uint64); ``mbarrier_arrive_cluster(bar, rank)`` arrives at the barrier of the block of
cluster rank *rank* (its own rank too); ``mbarrier_arrive_expect_tx(bar, nbytes)`` arrives and adds *nbytes* to the bytes
the phase waits for; ``mbarrier_try_wait(bar, parity)`` waits until the phase of that parity
(0 or 1: phase k has parity k % 2) has completed; ``fence_mbarrier_init()`` makes
initialisations visible to the cluster and to asynchronous copies."""

from .. import Stub
from .._support.modules import llvm, templates, types
from .._support.ptx_asm import as_i32, check_barrier, check_integer, first_element_address, i64, require, statement

mbarrier_init = Stub(
    "mbarrier_init", "mbarrier_init(bar, count): make bar[0] a barrier whose phases wait for count arrivals (sm_90)."
)
mbarrier_arrive = Stub(
    "mbarrier_arrive", "mbarrier_arrive(bar): arrive at the barrier bar[0]; returns its state token, a uint64 (sm_90)."
)
mbarrier_arrive_cluster = Stub(
    "mbarrier_arrive_cluster",
    "mbarrier_arrive_cluster(bar, rank): arrive at the barrier bar[0] of the block of that rank in the cluster "
    "(release at cluster scope, sm_90).",
)
mbarrier_arrive_expect_tx = Stub(
    "mbarrier_arrive_expect_tx",
    "mbarrier_arrive_expect_tx(bar, nbytes): arrive at bar[0] and make its phase also wait for nbytes "
    "bytes of asynchronous copies (sm_90).",
)
mbarrier_try_wait = Stub(
    "mbarrier_try_wait",
    "mbarrier_try_wait(bar, parity): wait until the phase of bar[0] of that parity (0 or 1) has completed (sm_90).",
)
fence_mbarrier_init = Stub(
    "fence_mbarrier_init",
    "fence_mbarrier_init(): make the mbarrier initialisations before it visible to the cluster (sm_90).",
)


def _barrier_and_count(name, what):
    def typer(bar, count):
        check_barrier(name, bar)
        check_integer(f"intrin.{name}: the {what}", count)
        return templates.signature(types.none, bar, count)

    return typer


mbarrier_init.typer(_barrier_and_count("mbarrier_init", "count"))
mbarrier_arrive_expect_tx.typer(_barrier_and_count("mbarrier_arrive_expect_tx", "byte count"))
mbarrier_try_wait.typer(_barrier_and_count("mbarrier_try_wait", "phase parity"))
mbarrier_arrive_cluster.typer(_barrier_and_count("mbarrier_arrive_cluster", "rank"))


@mbarrier_arrive.typer
def _arrive_typer(bar):
    check_barrier("mbarrier_arrive", bar)
    return templates.signature(types.uint64, bar)


@fence_mbarrier_init.cases
def _fence_cases():
    return [templates.signature(types.none)]


def _address_and_i32(lower, sig, args):
    return [first_element_address(lower, sig.args[0], args[0]), as_i32(lower, sig.args[1], args[1])]


@mbarrier_init.lower("Any", "Any")
def _init(lower, sig, args):
    require(lower, "intrin.mbarrier_init", (8, 0), 70)
    statement("mbarrier.init.b64 [$0], $1;", _address_and_i32(lower, sig, args), ["l", "r"])


@mbarrier_arrive_expect_tx.lower("Any", "Any")
def _arrive_expect_tx(lower, sig, args):
    require(lower, "intrin.mbarrier_arrive_expect_tx", (9, 0), 80)
    statement("mbarrier.arrive.expect_tx.b64 _, [$0], $1;", _address_and_i32(lower, sig, args), ["l", "r"])


# the label is local to the braces: the loop may be inlined many times in one kernel
_TRY_WAIT = """{
\t.reg .pred done;
\tcumlir_mbarrier_wait:
\tmbarrier.try_wait.parity.b64 done, [$0], $1;
\t@!done bra cumlir_mbarrier_wait;
\t}"""


@mbarrier_try_wait.lower("Any", "Any")
def _try_wait(lower, sig, args):
    require(lower, "intrin.mbarrier_try_wait", (9, 0), 78)
    address, parity = _address_and_i32(lower, sig, args)
    statement(_TRY_WAIT, [address, parity], ["l", "r"])


@mbarrier_arrive.lower("Any")
def _arrive(lower, sig, args):
    require(lower, "intrin.mbarrier_arrive", (8, 0), 70)
    address = first_element_address(lower, sig.args[0], args[0])
    # the state changes with every arrival: read with side effects, never merged with another
    return llvm.inline_asm(i64(), [address], "mbarrier.arrive.b64 $0, [$1];", "=l,l,~{memory}", has_side_effects=True)


@fence_mbarrier_init.lower
def _fence(lower, sig, args):
    require(lower, "intrin.fence_mbarrier_init", (9, 0), 80)
    statement("fence.mbarrier_init.release.cluster;")


# mapa and the arrive take the barrier's shared::cta address, 32 bits as CUTLASS's are; a
# consumer's release of a stage another block's copies fill is an arrival there
_ARRIVE_CLUSTER = """{
\t.reg .b64 cta64;
\t.reg .b32 cta, remote;
\tcvta.to.shared.u64 cta64, $0;
\tcvt.u32.u64 cta, cta64;
\tmapa.shared::cluster.u32 remote, cta, $1;
\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];
\t}"""


@mbarrier_arrive_cluster.lower("Any", "Any")
def _arrive_cluster(lower, sig, args):
    require(lower, "intrin.mbarrier_arrive_cluster", (9, 0), 80)
    statement(_ARRIVE_CLUSTER, _address_and_i32(lower, sig, args), ["l", "r"])
