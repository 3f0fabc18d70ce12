"""Run the fuzzer: ``python -m tests.fuzz [--programs N] [--seed S | --only S1,S2] [--workers K]
[--gpu | --simulator] [--budget SECONDS] [--report FILE]``.

Checks the programs drawn from seeds S, S+1, ... S+N-1 (tests/fuzz/check.py) in K worker
processes:

- by default, compiled by both code generators and assembled by ptxas;
- ``--simulator``: run on cumlir's CPU simulator and compared with the host (numba's CPU
  compilation), no GPU needed;
- ``--gpu``: run on the GPU by both code generators (``fma=False`` and contracted) and by
  numba-cuda, and in ``--simulator-workers`` more processes on the simulator; every
  party's result is compared with the host's, the simulator's and numba-cuda's.

Prints one JSON line of counts (per party: ran, failed; per pair of parties: agreed,
differed; programs per second; ``next_seed``, the first seed not checked when the budget
ran out, to start the next call from) and every problem with its seed (the program is
``tests.fuzz.grammar.program(seed).source``).
"""

import argparse
import json
import multiprocessing
import sys
import time

from . import workers


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m tests.fuzz",
        description="Check generated programs: compile them (the default), or run them on the simulator "
        "or the GPU and compare every party's results (tests/fuzz/__main__.py says more).",
    )
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--budget", type=float, default=float("inf"), help="seconds")
    parser.add_argument("--only", help="a comma-separated list of seeds to check instead")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--gpu", action="store_true", help="run on the GPU and compare")
    modes.add_argument("--simulator", action="store_true", help="run on the simulator and compare with the host")
    parser.add_argument(
        "--simulator-workers",
        type=int,
        help="with --gpu: processes running the simulator (default: a third of --workers)",
    )
    parser.add_argument(
        "--stall", type=float, default=300.0, help="seconds without a result after which the run stops (a worker died)"
    )
    parser.add_argument("--report", help="a JSON file for the counts and problems")
    return parser


class Tally:
    """The counts of a run, and its problems by seed."""

    def __init__(self, mode):
        self.counts = {"mode": mode, "programs": 0, "typed": 0, "compiled": {}, "shapes": {}, "features": {}}
        self.counts.update(parties={}, comparisons={}, **{"numba-cuda failed": 0})
        self.problems = {}

    def _add(self, table, key, field=None):
        if field is None:
            table[key] = table.get(key, 0) + 1
        else:
            table.setdefault(key, {}).setdefault(field, 0)
            table[key][field] += 1

    def add(self, outcome):
        from .check import comparisons

        c = self.counts
        c["programs"] += 1
        c["typed"] += outcome.typed
        c["numba-cuda failed"] += bool(outcome.reference_failures)
        self._add(c["shapes"], outcome.shape or "untyped")
        for feature in outcome.features:
            self._add(c["features"], feature)
        for backend in outcome.compiled:
            self._add(c["compiled"], backend)
        for party in outcome.outputs:
            self._add(c["parties"], party, "ran")
        for party in outcome.failed:
            self._add(c["parties"], party, "failed")
        found = list(outcome.problems)
        for pair, problem in comparisons(outcome):
            self._add(c["comparisons"], pair, "agreed" if problem is None else "differed")
            if problem is not None:
                found.append(problem)
        if found:
            self.problems[outcome.seed] = found


def _merge(gpu, simulated):
    """One outcome of a program from a GPU worker's and a simulator worker's."""
    if "simulator" in simulated.outputs:
        gpu.outputs["simulator"] = simulated.outputs["simulator"]
    gpu.failed.update(simulated.failed)
    gpu.problems += [p for p in simulated.problems if p.startswith("simulator")]
    return gpu


def _pools(args):
    """The pools of worker processes, by mode."""
    context = multiprocessing.get_context("spawn")
    if not args.gpu:
        mode = "simulator" if args.simulator else "compile"
        return {mode: context.Pool(args.workers, initializer=workers.setup, initargs=(mode,))}
    simulating = args.simulator_workers if args.simulator_workers is not None else max(1, args.workers // 3)
    pools = {"gpu": context.Pool(max(1, args.workers - simulating), initializer=workers.setup, initargs=("gpu",))}
    if simulating:
        pools["simulator"] = context.Pool(simulating, initializer=workers.setup, initargs=("simulator",))
    return pools


def main(argv=None):
    args = _parser().parse_args(argv)
    began = time.perf_counter()
    mode = "gpu" if args.gpu else "simulator" if args.simulator else "compile"
    tally = Tally(mode)
    seeds = [int(s) for s in args.only.split(",")] if args.only else list(range(args.seed, args.seed + args.programs))
    pools = _pools(args)
    pending = {
        name: {seed: pool.apply_async(workers.check_one, (seed,)) for seed in seeds} for name, pool in pools.items()
    }
    done = set()
    last = time.perf_counter()
    try:
        while len(done) < len(seeds) and time.perf_counter() - began <= args.budget:
            ready = [s for s in seeds if s not in done and all(p[s].ready() for p in pending.values())]
            if ready:
                last = time.perf_counter()
            elif time.perf_counter() - last > args.stall:
                # a worker that crashed (or hangs) never returns its program: name the first
                # seeds still out, one of which it was checking
                waiting = [s for s in seeds if s not in done][: len(pools) * args.workers]
                tally.problems[waiting[0]] = [
                    f"no result in {args.stall:.0f} s for seeds {waiting}: a worker died or hangs"
                ]
                break
            for seed in ready:
                outcomes = {name: p[seed].get() for name, p in pending.items()}
                outcome = outcomes.get("gpu") or next(iter(outcomes.values()))
                if "gpu" in outcomes and "simulator" in outcomes:
                    outcome = _merge(outcomes["gpu"], outcomes["simulator"])
                tally.add(outcome)
                done.add(seed)
            if not ready:
                time.sleep(0.05)
    finally:
        for pool in pools.values():
            pool.terminate()
    seconds = time.perf_counter() - began
    counts = tally.counts
    counts["seconds"] = round(seconds, 1)
    counts["programs per second"] = round(len(done) / seconds, 2)
    left = [s for s in seeds if s not in done]
    counts["next_seed"] = min(left) if left else (max(seeds) + 1 if seeds else args.seed)
    counts["programs with problems"] = len(tally.problems)
    print(json.dumps(counts))
    for seed, found in sorted(tally.problems.items()):
        for line in found:
            print(f"seed {seed}: {line}")
    if args.report:
        with open(args.report, "w") as out:
            json.dump({"counts": counts, "problems": tally.problems}, out, indent=1)
    return 1 if tally.problems else 0


if __name__ == "__main__":
    sys.exit(main())
