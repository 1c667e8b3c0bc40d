"""Benchmarks of fixture-migrate against baselines measured in the same run.

Each scenario runs fixture-migrate as a subprocess over a synthetic tree
(`bench/generate.py`) and compares its wall time, CPU time and peak RSS with a
baseline measured right beside it: a bare Python loop that reads each file,
parses it with orjson and serializes it back. Results are printed as ratios,
never as absolute targets, so they hold on any machine.

    python bench/run.py            # the full run (10,000 / 2,000 files)
    python bench/run.py --quick    # a smoke run that checks the script works

Targets (issue "Speed"): (a) migrate --check over 10,000 files, 90% canonical,
<= 1.5x the baseline; (b) migrate --diff over 2,000 legacy files <= 4x;
(c) normalize over 10,000 files <= 2x; (d) start-up on one file <= 1.3x
`python -c "import typer, orjson"`; (e) peak RSS of (a) <= 1.5x a one-file run;
(f) --jobs N >= 1.6x --jobs 1 on (b), with identical output.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate  # noqa: E402

BASELINE = """
import sys, orjson
for name in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with open(name, "rb") as handle:
        orjson.dumps(orjson.loads(handle.read()))
"""


ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
"""Every process measured may cache bytecode, as an installed tool does (pip compiles it at
install time; an editable install writes it on first use, which `main` does once first)."""


@dataclass
class Run:
    """One measured process: wall and CPU seconds, peak RSS in KiB, its stdout."""

    wall: float
    cpu: float
    rss_kib: int
    out: bytes = b""


def measure(argv: list[str], *, cwd: Path | None = None) -> Run:
    """Run `argv` to completion and return its own resource usage.

    Peak RSS comes from `/usr/bin/time` where it exists: a child forked straight from
    this (large) benchmark process would report this process's RSS as its own peak.
    """
    timer = shutil.which("time", path="/usr/bin:/bin")
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as usage_file:
        wrapped = [timer, "-f", "%e %U %S %M", "-o", usage_file.name, *argv] if timer else argv
        start = time.perf_counter()
        process = subprocess.Popen(wrapped, stdout=out, stderr=subprocess.DEVNULL, cwd=cwd, env=ENV)
        _, _, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = 0
        out.seek(0)
        if timer:
            _, user, system, rss = usage_file.read().split()[-4:]
            return Run(wall, float(user) + float(system), int(rss), out.read())
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out.read())


def best_of(argv: list[str], repeat: int, **kwargs) -> Run:
    """The run with the median wall time of `repeat` runs."""
    runs = sorted((measure(argv, **kwargs) for _ in range(repeat)), key=lambda run: run.wall)
    return runs[len(runs) // 2]


def fastest_interleaved(first: list[str], second: list[str], repeat: int) -> tuple[Run, Run]:
    """The fastest of `repeat` runs of each command, run in turn (first, second, first, ...).

    For start-up times of a tenth of a second, where a busy neighbour on a shared machine
    adds more than the difference measured: taking turns exposes both commands to the
    same drift, and the fastest run is the one least disturbed."""
    runs: tuple[list[Run], list[Run]] = ([], [])
    for _ in range(repeat):
        runs[0].append(measure(first))
        runs[1].append(measure(second))
    return min(runs[0], key=lambda run: run.wall), min(runs[1], key=lambda run: run.wall)


def tool() -> list[str]:
    script = shutil.which("fixture-migrate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "fixture_migrate"]


def baseline(files: list[Path], work: Path, repeat: int) -> Run:
    listing = work / f"files-{len(files)}.txt"
    listing.write_text("\n".join(str(path) for path in files), encoding="utf-8")
    return best_of([sys.executable, "-c", BASELINE, str(listing)], repeat)


@dataclass
class Result:
    name: str
    ours: float
    base: float
    limit: float
    unit: str = "s"
    higher_is_better: bool = False

    @property
    def ratio(self) -> float:
        return self.ours / self.base if self.base else float("inf")

    @property
    def met(self) -> bool:
        return self.ratio >= self.limit if self.higher_is_better else self.ratio <= self.limit

    def line(self) -> str:
        sign = ">=" if self.higher_is_better else "<="
        verdict = "met" if self.met else "NOT MET"
        return (
            f"{self.name:<46} {self.ours:>9.3f}{self.unit:<3} {self.base:>9.3f}{self.unit:<3} "
            f"{self.ratio:>6.2f}x  {sign} {self.limit}x  {verdict}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run (a few hundred files)")
    parser.add_argument("--check-files", type=int, default=10_000)
    parser.add_argument("--diff-files", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the median is kept")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="N for scenario (f)")
    args = parser.parse_args(argv)
    if args.quick:
        args.check_files, args.diff_files, args.repeat = 200, 60, 1

    cmd = tool()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="fixture-migrate-bench-") as tmp:
        work = Path(tmp)
        check_root, diff_root, one_root = work / "check", work / "diff", work / "one"
        check_files = generate(check_root, args.check_files, canonical_share=0.9, seed=1)
        diff_files = generate(diff_root, args.diff_files, canonical_share=0.0, seed=2)
        one_file = generate(one_root, 1, canonical_share=1.0, seed=3)[0]
        measure([*cmd, "migrate", "--diff", "--repo-root", str(diff_root), str(diff_root)])  # warm bytecode caches

        base_check = baseline(check_files, work, args.repeat)
        ours_check = best_of([*cmd, "migrate", "--check", "--repo-root", str(check_root), str(check_root)], args.repeat)
        results.append(
            Result(
                f"(a) migrate --check, {len(check_files)} files, 90% canonical", ours_check.wall, base_check.wall, 1.5
            )
        )

        base_diff = baseline(diff_files, work, args.repeat)
        diff_argv = [*cmd, "migrate", "--diff", "--repo-root", str(diff_root), str(diff_root)]
        ours_diff = best_of([*diff_argv, "--jobs", "1"], args.repeat)
        parallel = best_of([*diff_argv, "--jobs", str(args.jobs)], args.repeat)
        name = f"(b) migrate --diff --jobs {args.jobs}, {len(diff_files)} legacy files"
        results.append(Result(name, parallel.wall, base_diff.wall, 4.0))

        ours_norm = best_of([*cmd, "normalize", "--repo-root", str(check_root), str(check_root)], args.repeat)
        results.append(Result(f"(c) normalize, {len(check_files)} files", ours_norm.wall, base_check.wall, 2.0))

        base_start, ours_start = fastest_interleaved(
            [sys.executable, "-c", "import typer, orjson"],
            [*cmd, "migrate", "--check", "--repo-root", str(one_root), str(one_file)],
            max(args.repeat * 5, 5),
        )
        results.append(Result("(d) start-up, migrate --check on one file", ours_start.wall, base_start.wall, 1.3))

        ours_one = best_of([*cmd, "migrate", "--check", "--repo-root", str(one_root), str(one_file)], args.repeat)
        results.append(
            Result(
                "(e) peak RSS of (a) vs a one-file run", ours_check.rss_kib / 1024, ours_one.rss_kib / 1024, 1.5, "MiB"
            )
        )

        results.append(
            Result(
                f"(f) --jobs {args.jobs} vs --jobs 1 on (b)", ours_diff.wall, parallel.wall, 1.6, higher_is_better=True
            )
        )
        same_output = parallel.out == ours_diff.out

    print(
        f"machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print(f"{'scenario':<46} {'ours':>12} {'baseline':>12} {'ratio':>7}")
    for result in results:
        print(result.line())
    print(f"(f) output of --jobs {args.jobs} identical to --jobs 1: {'yes' if same_output else 'NO'}")
    print(
        f"CPU seconds: (a) {ours_check.cpu:.2f} vs {base_check.cpu:.2f}; (b) {ours_diff.cpu:.2f} vs {base_diff.cpu:.2f}; "
        f"(c) {ours_norm.cpu:.2f}"
    )
    return 0 if same_output else 1


if __name__ == "__main__":
    raise SystemExit(main())
