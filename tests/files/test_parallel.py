"""Worker processes: ordered results, and no worker outlives a killed run."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixture_migrate.files.parallel import ordered_map

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import generate  # noqa: E402


def _square(n: int) -> int:
    return n * n


def _noop() -> None:
    pass


def test_results_come_in_input_order_on_several_processes():
    items = list(range(200))
    assert list(ordered_map(_square, items, jobs=2, initializer=_noop, initargs=())) == [n * n for n in items]


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return None


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc (Linux)")
def test_workers_end_when_the_run_is_killed(tmp_path):
    generate(tmp_path, 400, canonical_share=0.0, seed=7)
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fixture_migrate",
            "migrate",
            "--diff",
            "--jobs",
            "2",
            "--repo-root",
            str(tmp_path),
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    children: list[int] = []
    deadline = time.monotonic() + 20
    while len(children) < 2 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
        found = Path(f"/proc/{run.pid}/task/{run.pid}/children")
        children = [int(pid) for pid in found.read_text().split()] if found.exists() else []
    if run.poll() is not None:
        pytest.skip("the run ended before its workers could be seen")
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_state(pid) not in (None, "Z") for pid in children):
        time.sleep(0.05)
    assert children and all(_state(pid) in (None, "Z") for pid in children)


def test_a_huge_jobs_value_is_capped_at_the_cpus():
    items = list(range(100))
    assert list(ordered_map(_square, items, jobs=10**20, initializer=_noop, initargs=())) == [n * n for n in items]


def test_chunks_grow_once_every_worker_has_work():
    from fixture_migrate.files.parallel import CHUNK, LARGE_CHUNK, Done, _segments

    items = [*range(CHUNK * 3), Done("x"), *range(LARGE_CHUNK * 2 + 5)]
    segments = list(_segments(iter(items), CHUNK, grow_after=2))
    sizes = [(ready, len(chunk)) for ready, chunk in segments]
    assert sizes == [
        (False, CHUNK),
        (False, CHUNK),
        (False, CHUNK),  # cut short by the known result
        (True, 1),
        (False, LARGE_CHUNK),
        (False, LARGE_CHUNK),
        (False, 5),
    ]
    flat = [value for ready, chunk in segments for value in chunk]
    assert flat == [item.value if isinstance(item, Done) else item for item in items]
    assert all(len(chunk) <= LARGE_CHUNK for _, chunk in segments)
