"""Peak memory against file size, per syntax: what the per-syntax size limits rest on.

For each syntax (JSON, JSON Lines, YAML, Python) and each size, one legacy fixture of
small cases (a prompt-examples/v1 file; a bare case list in Python) of about that size
is written to a temporary directory, and `fixture-migrate migrate --check` runs on it
in a fresh process with the syntax's size limit raised out of the way. The peak RSS of
that process (`VmHWM`, else `getrusage`) is reported, with its start-up RSS (a run on a one-case file)
taken off and the rest divided by the file's size: the memory each MiB of input costs.
(A Python module over 64 KiB is read on its tokens, while the one-case start-up run
parses with libcst, which costs a few MiB more: Python's figures under 256 KiB read
low, even below zero; the larger sizes are the ones to go by.)

    python bench/memory.py                         # every syntax, sizes up to the limits
    python bench/memory.py --syntax python --sizes 256,1024,4096
    python bench/memory.py --tiny                  # cases of a few bytes: the most memory per MiB
    python bench/memory.py --quick                 # a smoke run (tests/test_bench.py)

README "Safety" quotes a run of it; `fixture_migrate.formats.limits.SIZE_LIMITS` holds the
limits chosen from it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUFFIXES = {"json": ".json", "jsonl": ".jsonl", "yaml": ".yaml", "python": ".py"}
FULL_SIZES = {
    "json": [256, 1024, 4096],
    "jsonl": [256, 1024, 4096],
    "yaml": [256, 1024, 4096],
    "python": [256, 1024, 4096, 16384],
}
QUICK_SIZES = [8]

CHILD = """
import resource, sys
from fixture_migrate.cli.app import main
code = main(sys.argv[1:])
try:  # the high-water mark of this process's own address space (getrusage's survives exec)
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("peak-rss-kib", peak, file=sys.stderr)
sys.exit(code)
"""


TINY = False  # --tiny: the smallest cases (a few bytes a value), the most nodes per MiB


def case(i: int) -> dict[str, str]:
    if TINY:
        return {"name": f"c{i}", "user_intent": f"q{i}", "expected_posture": f"a{i}"}
    return {"name": f"Case {i}", "user_intent": f"Say hello to visitor number {i}.", "expected_posture": f"Hello {i}."}


def fixture_text(syntax: str, size: int) -> tuple[str, int]:
    """A legacy fixture of `syntax` of at least `size` bytes, and its number of cases."""
    cases: list[dict[str, str]] = []
    lines: list[str] = []
    total = 0
    while total < size:
        item = case(len(cases))
        cases.append(item)
        if syntax == "json":
            text = json.dumps(item, indent=2)
        elif syntax == "jsonl":
            text = json.dumps(
                {
                    "id": f"c{len(cases)}",
                    "prompt": item["user_intent"],
                    "baseline_output": "x",
                    "with_skill_output": item["expected_posture"],
                }
            )
        elif syntax == "yaml":
            text = "\n".join(f"    {key}: {value}" for key, value in item.items()).replace("    ", "  - ", 1)
        else:
            text = "    {" + ", ".join(f"{key!r}: {value!r}" for key, value in item.items()) + "},"
        lines.append(text)
        total += len(text) + 1
    if syntax == "json":
        payload = {"schema_version": "prompt-examples/v1", "skill": "demo", "examples": cases}
        return json.dumps(payload, indent=2) + "\n", len(cases)
    if syntax == "jsonl":
        return "\n".join(lines) + "\n", len(cases)
    if syntax == "yaml":
        return "schema_version: prompt-examples/v1\nskill: demo\nexamples:\n" + "\n".join(lines) + "\n", len(cases)
    return "CASES = [\n" + "\n".join(lines) + "\n]\n", len(cases)


def peak_rss(path: Path, root: Path) -> tuple[int, float, int]:
    """`(peak RSS in KiB, seconds, exit code)` of `migrate --check` on `path`."""
    env = {**os.environ, **{f"FIXTURE_MIGRATE_MAX_{s.upper()}_BYTES": str(1 << 30) for s in SUFFIXES}}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "migrate", "--check", "-q", "--repo-root", str(root), str(path)],
        capture_output=True,
        text=True,
        env=env,
    )
    took = time.perf_counter() - start
    found = [line for line in done.stderr.splitlines() if line.startswith("peak-rss-kib ")]
    if not found:
        raise SystemExit(f"no measurement for {path}: {done.stderr[-2000:]}")
    return int(found[-1].split()[1]), took, done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--syntax", action="append", choices=sorted(SUFFIXES), help="measure only these")
    parser.add_argument("--sizes", help="comma-separated sizes in KiB (default: per syntax)")
    parser.add_argument("--quick", action="store_true", help="a smoke run on tiny files")
    parser.add_argument("--tiny", action="store_true", help="cases of a few bytes a value (the worst case per MiB)")
    args = parser.parse_args(argv)
    global TINY
    TINY = args.tiny
    syntaxes = args.syntax or list(SUFFIXES)
    print(f"{'syntax':7} {'file KiB':>9} {'cases':>7} {'peak MiB':>9} {'MiB/MiB':>8} {'seconds':>8}")
    with tempfile.TemporaryDirectory(prefix="fixture-migrate-memory-") as temp:
        root = Path(temp)
        (root / ".git").mkdir()
        # An evals folder: a local family (the Python case list) is migrated only there.
        home = root / "evals"
        home.mkdir()
        for syntax in syntaxes:
            tiny = home / f"tiny{SUFFIXES[syntax]}"
            tiny.write_text(fixture_text(syntax, 1)[0])
            base, _, _ = peak_rss(tiny, root)
            sizes = (
                QUICK_SIZES
                if args.quick
                else [int(s) for s in args.sizes.split(",")]
                if args.sizes
                else FULL_SIZES[syntax]
            )
            for kib in sizes:
                path = home / f"x{kib}{SUFFIXES[syntax]}"
                text, cases = fixture_text(syntax, kib * 1024)
                path.write_text(text)
                size = path.stat().st_size
                peak, took, code = peak_rss(path, root)
                if code != 1:
                    raise SystemExit(f"{path.name}: migrate --check exited {code}, not 1")
                per_mib = (peak - base) / (size / 1024)
                print(f"{syntax:7} {size / 1024:9.0f} {cases:7} {peak / 1024:9.1f} {per_mib:8.0f} {took:8.1f}")
                path.unlink()
            print(f"{syntax:7} start-up peak {base / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
