"""A smoke run of the benchmark script: it works and reports every scenario as a ratio.

The ratios themselves are not asserted: timing depends on the machine and its
load; `python bench/run.py` on a quiet machine is how they are measured.
"""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "run.py"


def test_quick_bench_reports_every_scenario():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--big"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = re.findall(r"^\(([a-k])\) .* (\d+\.\d+)x +(\d+\.\d+x|-) ", done.stdout, flags=re.MULTILINE)
    # (e), against the reference on Node, runs only where node and the reference are found.
    assert "".join(name for name, _, _ in rows if name != "e") == "aahbbcdijjkfffg"
    assert all(float(ratio) > 0 for _, ratio, _ in rows)
    # Time rows give a CPU and a wall ratio (the second b is its floor); memory rows (d, f and
    # the second j) only one.
    walls = [wall != "-" for _, _, wall in rows if _ != "e"]
    assert walls == [True, True, True, True, True, True, False, True, True, False, True, False, False, False, True]


MEMORY = BENCH.parent / "memory.py"


def test_quick_memory_bench_measures_every_syntax():
    done = subprocess.run([sys.executable, str(MEMORY), "--quick"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = re.findall(r"^(json|jsonl|yaml|python) +\d+ +\d+ +(\d+\.\d) +(-?\d+) ", done.stdout, flags=re.MULTILINE)
    assert sorted({syntax for syntax, _, _ in rows}) == ["json", "jsonl", "python", "yaml"]
    assert all(float(peak) > 0 for _, peak, _ in rows)


FLOOR = BENCH.parent / "floor.py"


def test_the_floor_of_the_warm_run_reads_every_regular_file_and_no_symlink(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("x.json", "a/y.json", "a/b/z.json"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    (tmp_path / "a" / "link.json").symlink_to(tmp_path / "x.json")
    done = subprocess.run([sys.executable, str(FLOOR), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3\n"
