"""Install size: cumlir installed from this checkout into a fresh virtual environment, with no
extras and with ``[tools]``; prints the size of site-packages by distribution (the files its
RECORD lists, with the top-level names they install) and the total. Needs pip's index
(PyPI) or its cache; takes minutes (the CUDA wheels are large).

    python3 benchmarks/install_size.py                 # no extras, then [tools]
    python3 benchmarks/install_size.py --extras ""     # only the runtime install
    python3 benchmarks/install_size.py --extras "" tools test
"""

import argparse
import csv
import os
import pathlib
import subprocess
import sys
import sysconfig
import tempfile
import venv

ROOT = pathlib.Path(__file__).resolve().parent.parent
MB = 1e6


def install(where, extras):
    """A virtual environment in *where* with cumlir (and *extras*) installed; its site-packages."""
    venv.EnvBuilder(with_pip=True).create(where)
    python = where / "bin" / "python"
    target = f"{ROOT}[{extras}]" if extras else str(ROOT)
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", target], check=True)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    return pathlib.Path(purelib.stdout.strip())


def size_of(path):
    try:
        return path.lstat().st_size
    except FileNotFoundError:  # RECORD lists .pyc files that are written lazily
        return 0


def by_distribution(site):
    """{distribution: (bytes, top-level names)} from each RECORD; the rest of site-packages
    (caches written after installing, say) under "(not in any RECORD)"."""
    sizes, listed = {}, set()
    for info in sorted(site.glob("*.dist-info")):
        name = info.name.removesuffix(".dist-info")  # the distribution and its version
        total, tops = 0, set()
        with open(info / "RECORD", newline="") as f:
            for row in csv.reader(f):
                path = (site / row[0]).resolve()
                if path in listed:
                    continue
                listed.add(path)
                total += size_of(path)
                top = pathlib.PurePosixPath(row[0]).parts[0]
                if not top.endswith(".dist-info") and not top.startswith(".."):
                    tops.add(top.removesuffix(".py"))
        sizes[name] = (total, sorted(tops))
    rest = sum(size_of(p) for p in site.rglob("*") if p.is_file() and p.resolve() not in listed)
    sizes["(not in any RECORD)"] = (rest, [])
    return sizes


def table(title, sizes):
    total = sum(size for size, _ in sizes.values())
    print(f"\n{title}: {total / MB:.0f} MB in site-packages")
    print(f"| {'distribution':36} | {'MB':>7} | top-level |")
    print(f"|{'-' * 38}|{'-' * 9}|-----------|")
    for name, (size, tops) in sorted(sizes.items(), key=lambda item: -item[1][0]):
        print(f"| {name:36} | {size / MB:7.1f} | {', '.join(tops)} |")
    print(f"| {'total':36} | {total / MB:7.1f} | |")
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extras", nargs="*", default=["", "tools"], help='extras to measure ("" for none)')
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]} on {sysconfig.get_platform()}, cumlir from {ROOT}")
    with tempfile.TemporaryDirectory(prefix="cumlir-install-") as temp:
        for extras in args.extras:
            where = pathlib.Path(temp) / (extras or "runtime")
            site = install(where, extras)
            table(f"pip install .{f'[{extras}]' if extras else ''}", by_distribution(site))
            subprocess.run(["rm", "-rf", os.fspath(where)], check=True)


if __name__ == "__main__":
    main()
