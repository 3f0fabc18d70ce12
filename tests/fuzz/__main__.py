"""Run the fuzzer: ``python -m tests.fuzz [--programs N] [--seed S | --only S1,S2] [--workers K] [--gpu]``.

Checks the programs drawn from seeds S, S+1, ... (tests/fuzz/check.py) in K worker
processes, each with its own CUDA context on a GPU, for at most ``--budget`` seconds; prints
how many were typed, compiled, run and compared, and every problem with its seed (the
program is ``tests.fuzz.grammar.program(seed).source``).
"""

import argparse
import json
import multiprocessing
import sys
import time

from . import workers


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--budget", type=float, default=float("inf"), help="seconds")
    parser.add_argument("--only", help="a comma-separated list of seeds to check instead")
    parser.add_argument("--gpu", action="store_true", help="run the programs and compare them")
    parser.add_argument("--report", help="a JSON file for the counts and problems")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    counts = {"programs": 0, "typed": 0, "compiled": {}, "compared": 0, "numba-cuda failed": 0}
    problems = {}
    seeds = [int(s) for s in args.only.split(",")] if args.only else range(args.seed, args.seed + args.programs)
    jobs = [(seed, args.gpu) for seed in seeds]
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.workers, initializer=workers.setup, initargs=(args.gpu,)) as pool:
        for seed, typed, compiled, compared, found, unreferenced in pool.imap_unordered(
            workers.check_one, jobs, chunksize=4
        ):
            counts["numba-cuda failed"] += bool(unreferenced)
            counts["programs"] += 1
            counts["typed"] += typed
            for backend in compiled:
                counts["compiled"][backend] = counts["compiled"].get(backend, 0) + 1
            counts["compared"] += compared
            if found:
                problems[seed] = found
            if time.perf_counter() - began > args.budget:
                pool.terminate()
                break
    counts["seconds"] = round(time.perf_counter() - began, 1)
    print(json.dumps(counts))
    for seed, found in sorted(problems.items()):
        for line in found:
            print(f"seed {seed}: {line}")
    if args.report:
        with open(args.report, "w") as out:
            json.dump({"counts": counts, "problems": problems}, out, indent=1)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
