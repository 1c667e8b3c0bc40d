"""Benchmarks of fixture-migrate against baselines measured in the same run.

Each scenario runs fixture-migrate as a subprocess over a synthetic tree
(`bench/generate.py`) and compares it with a baseline measured in turn with it
(baseline, scenario, baseline, scenario, ...), keeping the fastest run of each:
on a shared machine the fastest run is the one a busy neighbour disturbed least,
and taking turns exposes both to the same drift. Results are ratios, never
absolute times, so they hold on any machine.

Every row gives two ratios: CPU (user + sys of the whole process tree, workers
included, as `wait4` reports them) and wall. The goals are stated in CPU, for
runs on one process (`--jobs 1`): CPU does not depend on whether a second core
happens to be free on a shared machine.

The baseline B is a bare Python loop that reads each file of the same tree,
parses it with orjson and serializes it back (one process).

    python bench/run.py            # the full run (10,000 files)
    python bench/run.py --big      # also the rows at 100,000 files (memory)
    python bench/run.py --quick    # a smoke run that checks the script works
    python bench/run.py --only b,g # only some scenarios (letters as below)

Scenarios and goals (issue "Speed round 3"; CPU ratios, `--jobs 1`):

  (a) migrate --check --no-cache, cold, 10,000 files, 90% canonical      <= 4x B
      (and the same on every CPU, for its wall time)
  (h) the same over a tree of canonical files only                       <= 2.5x B
  (b) migrate --check again on the unchanged tree (the cache)            <= 0.6x B
      and, without a goal, its floor (`bench/floor.py`): the start-up, walk,
      reads below the root, hashes and identity checks a warm run cannot skip
  (c) validate --no-ref-check over (a)'s tree                            <= 6x B
  (d) its peak RSS                                                       <= 100 MiB
  (i) validate --no-ref-check over a 1,000-file tree like (a)'s          <= 6x B
  (j) validate --no-ref-check over (a)'s tree with unique case ids       <= 6x B
      and its peak RSS                                                   <= 100 MiB
  (k) validate --no-ref-check over (a)'s tree with the canonical ids
      repeating per skill (some 130,000 duplicate ids at 10,000 files)   <= 6x B
  (e) normalize --output-format jsonl vs the contract's reference
      normalizer on Node (a loop calling normalizeFixtureFile on every
      file); run only where `node` and the normalizer are found          <= 1x
  (f) with --big: peak RSS at 100,000 files of (a) (vs 10,000, <= 1.2x),
      of (j) (<= 100 MiB) and of (b) (<= 60 MiB)
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
        # CPU: what `wait4` reports of the process waited for and every descendant it
        # waited for (the worker processes), to the microsecond (`time` prints 10 ms).
        cpu = usage.ru_utime + usage.ru_stime
        if timer:
            rss = usage_file.read().split()[-1]
            return Run(wall, cpu, int(rss), out.read())
        return Run(wall, cpu, usage.ru_maxrss, out.read())


def fastest(runs: list[Run]) -> Run:
    return min(runs, key=lambda run: run.wall)


def tool() -> list[str]:
    script = shutil.which("fixture-migrate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "fixture_migrate"]


@dataclass
class Result:
    """One row: ours against a baseline, both in CPU and in wall seconds (or one value,
    in `unit`, for a memory row); the goal holds on CPU (`limit`, a ratio)."""

    name: str
    ours: Run | float
    base: Run | float
    limit: float
    unit: str = "s"
    goal: bool = True  # False: a row shown for its wall time, without a goal of its own

    def ratios(self) -> tuple[float, float | None]:
        """(CPU ratio, wall ratio); a memory row has only the first."""
        if isinstance(self.ours, Run) and isinstance(self.base, Run):
            return _ratio(self.ours.cpu, self.base.cpu), _ratio(self.ours.wall, self.base.wall)
        assert isinstance(self.ours, float) and isinstance(self.base, float)
        return _ratio(self.ours, self.base), None

    @property
    def met(self) -> bool:
        return not self.goal or self.ratios()[0] <= self.limit

    def line(self) -> str:
        verdict = ("met" if self.met else "NOT MET") if self.goal else "(no goal)"
        main, wall = self.ratios()
        if isinstance(self.ours, Run) and isinstance(self.base, Run):
            values = f"{self.ours.cpu:>8.3f}s {self.base.cpu:>8.3f}s"
        else:
            values = f"{self.ours:>7.1f}{self.unit} {self.base:>7.1f}{self.unit}"
        shown = f"{wall:>6.2f}x" if wall is not None else "     -"
        limit = f"<= {self.limit}x" if self.goal else ""
        return f"{self.name:<60} {values} {main:>6.2f}x  {shown}  {limit:<9} {verdict}"


def _ratio(ours: float, base: float) -> float:
    return ours / base if base else float("inf")


def reference_normalizer(given: str | None) -> Path | None:
    candidate = given or os.environ.get("FIXTURE_MIGRATE_REFERENCE")
    if not candidate or not shutil.which("node"):
        return None
    path = Path(candidate).resolve()
    return path if path.is_file() else None


LETTERS = "abcdefghijk"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run (a few hundred files)")
    parser.add_argument("--files", type=int, default=10_000, help="files of the main tree")
    parser.add_argument("--small-files", type=int, default=1_000, help="files of the tree of scenario (i)")
    parser.add_argument("--big", action="store_true", help="also the rows at --memory-files files (f)")
    parser.add_argument("--memory-files", type=int, default=100_000, help="files of the trees of scenario (f)")
    parser.add_argument("--repeat", type=int, default=5, help="turns per scenario; the fastest run is kept")
    parser.add_argument("--reference", help="path of the reference eval-fixture-normalizer.js, for (e)")
    parser.add_argument("--only", help="run only these scenarios, letters separated by commas (`b,g`)")
    args = parser.parse_args(argv)
    every = set(LETTERS) - ({"f"} if not args.big else set())
    wanted = every if not args.only else {letter.strip() for letter in args.only.split(",")}
    if wanted - set(LETTERS) or not wanted:
        parser.error(f"--only takes scenario letters a to k, not {args.only!r}")
    if "d" in wanted:
        wanted.add("c")  # (d) is the peak RSS of (c)'s runs
    if args.quick:
        args.files, args.small_files, args.memory_files, args.repeat = 200, 100, 2_000, 1

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

        def listing(name: str, paths: list[Path]) -> Path:
            out = work / f"{name}.txt"
            out.write_text("\n".join(str(path) for path in paths), encoding="utf-8")
            return out

        trees: dict[str, tuple[Path, Path]] = {}  # name: (root, listing)

        def tree(name: str, files: int, **kwargs: object) -> tuple[Path, Path]:
            if name not in trees:
                root = work / name
                trees[name] = (root, listing(name, generate(root, files, **kwargs)))  # type: ignore[arg-type]
            return trees[name]

        root, files_txt = tree("tree", args.files, canonical_share=0.9, seed=1)
        n = args.files
        one_root = work / "one"
        one_file = generate(one_root, 1, canonical_share=1.0, seed=3)[0]
        cache = work / "cache"
        env = {**ENV, "FIXTURE_MIGRATE_CACHE_DIR": str(cache)}

        def base(listed: Path) -> list[str]:
            return [sys.executable, "-c", BASELINE, str(listed)]

        def check(at: Path, *extra: str) -> list[str]:
            return [*cmd, "migrate", "--check", "-q", *extra, "--repo-root", str(at), str(at)]

        def validate(at: Path, *extra: str) -> list[str]:
            return [*cmd, "validate", "--no-ref-check", "-q", *extra, "--repo-root", str(at), str(at)]

        one = ["--jobs", "1"]
        # (letter, row name, our argv, the baseline's tree listing, goal (None: none), env)
        rows: list[tuple[str, str, list[str], Path, float | None, dict[str, str] | None]] = []
        if "a" in wanted:
            rows.append(("a", f"(a) migrate --check --no-cache, cold, {n} files, --jobs 1", check(root, "--no-cache", *one), files_txt, 4.0, None))
            rows.append(("a", "(a) the same on every CPU", check(root, "--no-cache"), files_txt, None, None))
        if "h" in wanted:
            canon, canon_txt = tree("canonical", args.files, canonical_share=1.0, seed=1)
            rows.append(("h", "(h) the same, canonical files only, --jobs 1", check(canon, "--no-cache", *one), canon_txt, 2.5, None))
        if "b" in wanted:
            run(check(root, *one), env=env)  # fills the cache
            rows.append(("b", "(b) migrate --check again, unchanged tree (cache), --jobs 1", check(root, *one), files_txt, 0.6, env))
            floor = [sys.executable, str(HERE / "floor.py"), str(root)]
            rows.append(("b", "(b) its floor: walk, read below the root, hash (floor.py)", floor, files_txt, None, None))
        if "c" in wanted:
            rows.append(("c", f"(c) validate --no-ref-check, {n} files, --jobs 1", validate(root, *one), files_txt, 6.0, None))
        if "i" in wanted:
            small, small_txt = tree("small", args.small_files, canonical_share=0.9, seed=1)
            rows.append(("i", f"(i) validate --no-ref-check, {args.small_files} files, --jobs 1", validate(small, *one), small_txt, 6.0, None))
        if "j" in wanted:
            unique, unique_txt = tree("unique", args.files, canonical_share=0.9, seed=1, unique_ids=True)
            rows.append(("j", f"(j) validate --no-ref-check, {n} files, unique ids, --jobs 1", validate(unique, *one), unique_txt, 6.0, None))
        if "k" in wanted:
            repeated, repeated_txt = tree("repeated", args.files, canonical_share=0.9, seed=1, repeated_ids=True)
            rows.append(("k", f"(k) validate --no-ref-check, {n} files, repeated ids, --jobs 1", validate(repeated, *one), repeated_txt, 6.0, None))
        reference = reference_normalizer(args.reference) if "e" in wanted else None
        if "e" in wanted and reference is not None:
            node_loop = ["node", str(HERE / "reference_loop.js"), str(reference), str(root), str(files_txt)]
            normalize = [*cmd, "normalize", "--output-format", "jsonl", *one, "--repo-root", str(root), str(root)]
        elif "e" in wanted:
            notes.append("(e) skipped: no `node`, or no reference normalizer (--reference / FIXTURE_MIGRATE_REFERENCE)")
        run(check(root, "--no-cache"))  # warm the bytecode and the disk cache

        measured: dict[int, tuple[list[Run], list[Run]]] = {i: ([], []) for i in range(len(rows))}
        node_runs: tuple[list[Run], list[Run]] = ([], [])
        for _ in range(args.repeat):
            for i, (_, _, argv_, listed, _, env_) in enumerate(rows):
                measured[i][0].append(run(base(listed)))
                measured[i][1].append(run(argv_, env=env_))
            if "e" in wanted and reference is not None:
                node_runs[0].append(run(node_loop))
                node_runs[1].append(run(normalize))
        for i, (letter, name, _, _, limit, _) in enumerate(rows):
            ours = fastest(measured[i][1])
            results.append(Result(name, ours, fastest(measured[i][0]), limit or 0.0, goal=limit is not None))
            if letter in "cj":
                mib = max(run_.rss_kib for run_ in measured[i][1]) / 1024
                label = "(d) validate peak RSS" if letter == "c" else "(j) its peak RSS"
                results.append(Result(f"{label}, MiB vs the goal", mib, 100.0, 1.0, unit="M"))
        if "e" in wanted and reference is not None:
            ours, node = fastest(node_runs[1]), fastest(node_runs[0])
            same = sorted(ours.out.splitlines()) == sorted(node.out.splitlines())
            results.append(Result("(e) normalize --output-format jsonl vs Node, --jobs 1", ours, node, 1.0))
            notes.append(f"(e) same cases as the reference: {'yes' if same else 'NO'}")

        if "f" in wanted:
            big = work / "big"
            generate(big, args.memory_files, canonical_share=0.9, seed=1)
            m = args.memory_files
            cold_big = run(check(big, "--no-cache", *one))
            cold_small = run(check(root, "--no-cache", *one))
            results.append(Result(f"(f) peak RSS of (a), {m} vs {n} files", cold_big.rss_kib / 1024, cold_small.rss_kib / 1024, 1.2, unit="M"))
            big_env = {**ENV, "FIXTURE_MIGRATE_CACHE_DIR": str(work / "big-cache")}
            run(check(big, *one), env=big_env)
            warm_big = run(check(big, *one), env=big_env)
            results.append(Result(f"(f) peak RSS of (b), {m} files, MiB vs the goal", warm_big.rss_kib / 1024, 60.0, 1.0, unit="M"))
            shutil.rmtree(big)
            generate(big, args.memory_files, canonical_share=0.9, seed=1, unique_ids=True)
            checked_big = run(validate(big, *one))
            results.append(Result(f"(f) peak RSS of (j), {m} files, MiB vs the goal", checked_big.rss_kib / 1024, 100.0, 1.0, unit="M"))
            shutil.rmtree(big)

        if "g" in wanted:
            starts: tuple[list[Run], list[Run]] = ([], [])
            single = [*cmd, "migrate", "--check", "-q", "--repo-root", str(one_root), str(one_file)]
            for _ in range(max(args.repeat * 4, 5)):
                starts[0].append(run([sys.executable, "-c", "import typer, orjson"]))
                starts[1].append(run(single))
            results.append(Result("(g) start-up, migrate --check on one file", fastest(starts[1]), fastest(starts[0]), 1.1))

    print(
        f"machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"fastest of {args.repeat} turns; the goal holds on the CPU ratio"
    )
    print(f"{'scenario':<60} {'ours':>9} {'baseline':>9} {'CPU':>7}  {'wall':>6}")
    for result in results:
        print(result.line())
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
