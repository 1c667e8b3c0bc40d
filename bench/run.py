"""Benchmarks of fixture-migrate against baselines measured in the same run.

Each scenario runs fixture-migrate as a subprocess over a synthetic tree
(`bench/generate.py`) and compares it with a baseline measured in turn with it
(baseline, scenario, baseline, scenario, ...), keeping the fastest run of each:
on a shared machine the fastest run is the one a busy neighbour disturbed least,
and taking turns exposes both to the same drift. Results are ratios, never
absolute times, so they hold on any machine.

The baseline B is a bare Python loop that reads each file, parses it with orjson
and serializes it back (one process).

    python bench/run.py            # the full run (10,000 files; memory at 100,000)
    python bench/run.py --quick    # a smoke run that checks the script works
    python bench/run.py --only b,g # only some scenarios (letters as below)

Scenarios and targets (issue "Speed round 2"):

  (a) migrate --check, cold (empty cache), 10,000 files, 90% canonical   <= 3x B
  (b) the same, run again on the unchanged tree (the cache)              <= 1x B
  (c) validate --no-ref-check over (a)'s tree                            <= 4x B
  (d) its peak RSS                                                       <= 100 MiB
  (e) normalize --output-format jsonl vs the contract's reference
      normalizer on Node (a loop calling normalizeFixtureFile on every
      file); run only where `node` and the normalizer are found          <= 1x
  (f) peak RSS of (a) at 100,000 files vs 10,000                         <= 1.2x
  (g) start-up: migrate --check on one file vs
      `python -c "import typer, orjson"`                                 <= 1.1x

The reference normalizer is not shipped: point `--reference` (or the
environment variable FIXTURE_MIGRATE_REFERENCE) at a copy of
`skills/spec-skill-audit/scripts/eval-fixture-normalizer.js` from the
spec-first repository.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402

BASELINE = """
import sys, orjson
for name in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with open(name, "rb") as handle:
        orjson.dumps(orjson.loads(handle.read()))
"""

ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
"""Every process measured may cache bytecode, as an installed tool does (pip compiles it at
install time; an editable install writes it on first use, which a warm-up run does first)."""


@dataclass
class Run:
    """One measured process: wall and CPU seconds, peak RSS in KiB, its stdout."""

    wall: float
    cpu: float
    rss_kib: int
    out: bytes = b""


def measure(argv: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    """Run `argv` (in `cwd`) to completion and return its own resource usage.

    Peak RSS comes from `/usr/bin/time` where it exists: a child forked straight from
    this (large) benchmark process would report this process's RSS as its own peak.
    """
    timer = shutil.which("time", path="/usr/bin:/bin")
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as usage_file:
        wrapped = [timer, "-f", "%e %U %S %M", "-o", usage_file.name, *argv] if timer else argv
        start = time.perf_counter()
        process = subprocess.Popen(wrapped, stdout=out, stderr=subprocess.DEVNULL, env=env or ENV, cwd=cwd)
        _, _, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        if timer:
            _, user, system, rss = usage_file.read().split()[-4:]
            return Run(wall, float(user) + float(system), int(rss), out.read())
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out.read())


def fastest(runs: list[Run]) -> Run:
    return min(runs, key=lambda run: run.wall)


def tool() -> list[str]:
    script = shutil.which("fixture-migrate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "fixture_migrate"]


@dataclass
class Result:
    name: str
    ours: float
    base: float
    limit: float
    unit: str = "s"
    base_name: str = "B"

    @property
    def ratio(self) -> float:
        return self.ours / self.base if self.base else float("inf")

    @property
    def met(self) -> bool:
        return self.ratio <= self.limit

    def line(self) -> str:
        verdict = "met" if self.met else "NOT MET"
        return (
            f"{self.name:<58} {self.ours:>8.3f}{self.unit:<4} {self.base:>8.3f}{self.unit:<4} "
            f"{self.ratio:>6.2f}x  <= {self.limit}x  {verdict}"
        )


def reference_normalizer(given: str | None) -> Path | None:
    candidate = given or os.environ.get("FIXTURE_MIGRATE_REFERENCE")
    if not candidate or not shutil.which("node"):
        return None
    path = Path(candidate).resolve()
    return path if path.is_file() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run (a few hundred files)")
    parser.add_argument("--files", type=int, default=10_000, help="files of the main tree")
    parser.add_argument("--memory-files", type=int, default=100_000, help="files of the tree of scenario (f)")
    parser.add_argument("--repeat", type=int, default=5, help="turns per scenario; the fastest run is kept")
    parser.add_argument("--reference", help="path of the reference eval-fixture-normalizer.js, for (e)")
    parser.add_argument("--only", help="run only these scenarios, letters separated by commas (`b,g`)")
    args = parser.parse_args(argv)
    wanted = set("abcdefg") if not args.only else {letter.strip() for letter in args.only.split(",")}
    if wanted - set("abcdefg") or not wanted:
        parser.error(f"--only takes scenario letters a to g, not {args.only!r}")
    if "d" in wanted:
        wanted.add("c")  # (d) is the peak RSS of (c)'s runs
    if args.quick:
        args.files, args.memory_files, args.repeat = 200, 2_000, 1

    cmd = tool()
    results: list[Result] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="fixture-migrate-bench-") as tmp:
        work = Path(tmp)

        def run(argv: list[str], *, env: dict[str, str] | None = None) -> Run:
            # Every process starts in the benchmark's own directory, as a user runs the tool
            # in the repository it checks: the configuration of wherever the benchmark was
            # started from (a checkout's pyproject.toml, say) is never looked for or read.
            return measure(argv, env=env, cwd=work)

        root, big_root, one_root = work / "tree", work / "big", work / "one"
        files = generate(root, args.files, canonical_share=0.9, seed=1)
        one_file = generate(one_root, 1, canonical_share=1.0, seed=3)[0]
        listing = work / "files.txt"
        listing.write_text("\n".join(str(path) for path in files), encoding="utf-8")
        cache = work / "cache"
        env = {**ENV, "FIXTURE_MIGRATE_CACHE_DIR": str(cache)}
        base_argv = [sys.executable, "-c", BASELINE, str(listing)]
        check = [*cmd, "migrate", "--check", "-q", "--repo-root", str(root), str(root)]
        validate = [*cmd, "validate", "--no-ref-check", "-q", "--repo-root", str(root), str(root)]
        normalize = [*cmd, "normalize", "--output-format", "jsonl", "--repo-root", str(root), str(root)]
        reference = reference_normalizer(args.reference) if "e" in wanted else None
        node_loop = ["node", str(HERE / "reference_loop.js"), str(reference), str(root), str(listing)]
        run(check, env=env)  # warm the bytecode and the disk cache

        runs: dict[str, list[Run]] = {name: [] for name in ("B", "cold", "rerun", "validate", "normalize", "node")}
        for _ in range(args.repeat if wanted & set("abce") else 0):
            runs["B"].append(run(base_argv))
            if "a" in wanted or "b" in wanted:
                if "a" in wanted or not runs["cold"]:  # (b) alone needs one cold run to fill the cache
                    shutil.rmtree(cache, ignore_errors=True)
                    runs["cold"].append(run(check, env=env))
                if "b" in wanted:
                    runs["rerun"].append(run(check, env=env))
            if "c" in wanted:
                runs["validate"].append(run(validate))
            if "e" in wanted:
                runs["normalize"].append(run(normalize))
                if reference is not None:
                    runs["node"].append(run(node_loop))
        n = len(files)
        base = fastest(runs["B"]) if runs["B"] else None
        if base is not None and "a" in wanted:
            cold = fastest(runs["cold"])
            results.append(Result(f"(a) migrate --check, cold, {n} files, 90% canonical", cold.wall, base.wall, 3.0))
        if base is not None and "b" in wanted:
            rerun = fastest(runs["rerun"])
            results.append(Result("(b) migrate --check, again on the unchanged tree", rerun.wall, base.wall, 1.0))
        if base is not None and "c" in wanted:
            checked = fastest(runs["validate"])
            results.append(Result("(c) validate --no-ref-check", checked.wall, base.wall, 4.0))
            notes.append(f"(d) validate peak RSS: {checked.rss_kib / 1024:.1f} MiB (target <= 100 MiB)")
        if "e" in wanted and reference is not None:
            ours, node = fastest(runs["normalize"]), fastest(runs["node"])
            same = sorted(ours.out.splitlines()) == sorted(node.out.splitlines())
            results.append(
                Result(
                    "(e) normalize --output-format jsonl vs the Node reference",
                    ours.wall,
                    node.wall,
                    1.0,
                    base_name="node",
                )
            )
            notes.append(f"(e) same cases as the reference: {'yes' if same else 'NO'}")
        elif "e" in wanted:
            notes.append("(e) skipped: no `node`, or no reference normalizer (--reference / FIXTURE_MIGRATE_REFERENCE)")

        if "f" in wanted:
            generate(big_root, args.memory_files, canonical_share=0.9, seed=1)
            big = run([*cmd, "migrate", "--check", "-q", "--no-cache", "--repo-root", str(big_root), str(big_root)])
            small = run([*cmd, "migrate", "--check", "-q", "--no-cache", "--repo-root", str(root), str(root)])
            results.append(
                Result(
                    f"(f) peak RSS of (a), {args.memory_files} vs {n} files",
                    big.rss_kib / 1024,
                    small.rss_kib / 1024,
                    1.2,
                    unit="MiB",
                    base_name=f"{n} files",
                )
            )
            shutil.rmtree(big_root)

        if "g" in wanted:
            starts: tuple[list[Run], list[Run]] = ([], [])
            one = [*cmd, "migrate", "--check", "-q", "--repo-root", str(one_root), str(one_file)]
            for _ in range(max(args.repeat * 4, 5)):
                starts[0].append(run([sys.executable, "-c", "import typer, orjson"]))
                starts[1].append(run(one))
            ours, base_start = fastest(starts[1]).wall, fastest(starts[0]).wall
            results.append(Result("(g) start-up, migrate --check on one file", ours, base_start, 1.1))

    print(
        f"machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"fastest of {args.repeat} turns"
    )
    print(f"{'scenario':<58} {'ours':>12} {'baseline':>12} {'ratio':>7}")
    for result in results:
        print(result.line())
    for note in notes:
        print(note)
    cpu = ", ".join(f"{name} {fastest(runs[name]).cpu:.2f}" for name in runs if runs[name])
    print(f"CPU seconds of the fastest runs: {cpu}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
