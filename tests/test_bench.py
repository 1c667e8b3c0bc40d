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
    assert "".join(name for name, _, _ in rows if name != "e") == "aahbcdijjkfffg"
    assert all(float(ratio) > 0 for _, ratio, _ in rows)
    # Time rows give a CPU and a wall ratio; memory rows (d, f and the second j) only one.
    walls = [wall != "-" for _, _, wall in rows if _ != "e"]
    assert walls == [True, True, True, True, True, False, True, True, False, True, False, False, False, True]


MEMORY = BENCH.parent / "memory.py"


def test_quick_memory_bench_measures_every_syntax():
    done = subprocess.run([sys.executable, str(MEMORY), "--quick"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = re.findall(r"^(json|jsonl|yaml|python) +\d+ +\d+ +(\d+\.\d) +(-?\d+) ", done.stdout, flags=re.MULTILINE)
    assert sorted({syntax for syntax, _, _ in rows}) == ["json", "jsonl", "python", "yaml"]
    assert all(float(peak) > 0 for _, peak, _ in rows)
