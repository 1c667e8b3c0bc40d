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


def _signal_handlers(_: int) -> tuple[object, object, int]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM), os.getpid()


def test_workers_leave_ctrl_c_to_the_parent():
    """A worker interrupted while taking a task or handing back a result would leave the
    pool's queue locked: workers ignore SIGINT, and SIGTERM still ends them."""
    previous = signal.signal(signal.SIGINT, lambda *_: None)  # as the command line's handler
    try:
        found = list(ordered_map(_signal_handlers, range(200), jobs=2, initializer=_noop, initargs=()))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert {pid for _, _, pid in found} - {os.getpid()}, "the work ran in worker processes"
    assert {(sigint, sigterm) for sigint, sigterm, _ in found} == {(signal.SIG_IGN, signal.SIG_DFL)}


def _slow_square(n: int) -> int:
    time.sleep(0.002)
    return n * n


def test_a_consumer_that_stops_ends_the_pool_promptly():
    results = ordered_map(_slow_square, range(5000), jobs=2, initializer=_noop, initargs=())
    started = time.monotonic()
    assert [next(results) for _ in range(3)] == [0, 1, 4]
    results.close()  # as a KeyboardInterrupt raised at the consumer's `yield` does
    # What is left in flight is at most a few chunks (about 0.1 s each); the 5,000 items
    # would take 5 s on two workers.
    assert time.monotonic() - started < 3


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    generate(root, 3000, canonical_share=0.9, seed=3, repeated_ids=True)
    return root


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc (Linux)")
@pytest.mark.parametrize(
    "signals",
    [(signal.SIGINT,), (signal.SIGINT, signal.SIGINT), (signal.SIGTERM,)],
    ids=["ctrl-c", "ctrl-c-twice", "sigterm"],
)
def test_a_signal_to_the_group_stops_a_run_on_workers(big_tree, signals):
    """A signal to the whole process group (Ctrl-C at a terminal, once or twice; SIGTERM
    from a CI runner cancelling a job) once the workers run: the run ends with 128 + the
    signal, says it was interrupted, and leaves no worker behind. It used to hang: a
    worker interrupted while taking a task left the pool's queue locked (about one run in
    four); a worker killed while handing back a result left the pool's reader waiting."""
    command = [sys.executable, "-m", "fixture_migrate", "validate", "--no-ref-check", "--jobs", "2", str(big_tree)]
    interrupted = 0
    for delay in (0.0, 0.05, 0.1, 0.15, 0.2):
        run = subprocess.Popen(
            command, cwd=big_tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        children = Path(f"/proc/{run.pid}/task/{run.pid}/children")
        workers: list[int] = []
        deadline = time.monotonic() + 20
        while run.poll() is None and time.monotonic() < deadline:
            workers = [int(pid) for pid in children.read_text().split()] if children.exists() else []
            if len(workers) >= 2:
                break
            time.sleep(0.01)
        time.sleep(delay)
        for signum in signals:
            try:
                os.killpg(run.pid, signum)
            except ProcessLookupError:
                pass
            time.sleep(0.02)
        try:
            _, err = run.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
            pytest.fail(f"the run hung after {signals}, {delay} s after its workers started")
        assert run.returncode in (1, 128 + signals[0]), err
        assert b"Traceback" not in err
        if run.returncode == 128 + signals[0]:
            assert err.endswith(b"interrupted (this command changes no file)\n"), err
            interrupted += 1
        time.sleep(0.2)
        assert all(_state(pid) in (None, "Z") for pid in workers), "a worker outlived the run"
    assert interrupted, "no run was still going when the signal came"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc (Linux)")
def test_a_library_caller_interrupted_on_workers_still_exits(big_tree):
    """`main([...])` called in-process, Ctrl-C once the workers run: it returns 130, and the
    caller's process then exits (its workers were not killed mid-result, which left the
    pool's reader waiting at the interpreter's exit)."""
    probe = (
        "import io, contextlib, os, signal, sys, threading, time\n"
        "from pathlib import Path\n"
        "from fixture_migrate.cli.app import main\n"
        "def fire():\n"
        "    children = Path(f'/proc/{os.getpid()}/task/{os.getpid()}/children')\n"
        "    while not (children.exists() and len(children.read_text().split()) >= 2):\n"
        "        time.sleep(0.01)\n"
        "    time.sleep(float(sys.argv[1]))\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "threading.Thread(target=fire, daemon=True).start()\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['validate', '-j', '2', '--no-ref-check', {str(big_tree)!r}])\n"
        "print(code)\n"
    )
    for delay in ("0.1", "0.2", "0.3"):
        try:
            done = subprocess.run([sys.executable, "-c", probe, delay], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("the caller's process did not exit after the interrupted run")
        assert done.returncode == 0, done.stderr
        assert done.stdout in ("130\n", "1\n"), done.stdout
