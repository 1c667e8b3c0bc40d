"""A state machine that runs `migrate` over a small tree while another writer edits,
appends, renames, swaps the folder for a symlink, kills the run, or runs a second
migrate over the same tree, each exactly at one step of the write path
(`steps.set_step_hook`). After every step, no byte of any
fixture is lost: each file is the last version its writer left, or that version
migrated (a JSON Lines file: the file, or its `.json`, or both after a kill between
the two), and nothing outside the repo root has changed.

Each run is a forked child, so a kill is a real one (`os._exit` at the step: no cleanup,
a temporary file may stay, which walks skip). Example counts are modest (the `ci`
profile); `HYPOTHESIS_PROFILE=long` searches longer.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import traceback
from pathlib import Path

import pytest
from fixture_migrate.cli import commands
from fixture_migrate.cli.report import Report
from fixture_migrate.files import steps
from fixture_migrate.files.steps import STEPS
from fixture_migrate.files.writes import TEMP_SUFFIX
from fixture_migrate.migration.engine import Engine, Options
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {
    "prd.json": ROOT / "examples" / "legacy" / "prd-evals.json",
    "review.json": ROOT / "examples" / "legacy" / "review-examples.json",
    "cases.jsonl": ROOT / "examples" / "legacy" / "output-cases.jsonl",
    "review.yaml": ROOT / "examples" / "yaml-python" / "review-examples.yaml",
    "test_routing.py": ROOT / "examples" / "yaml-python" / "test_routing_cases.py",
}
LINE = (
    b'{"id": "added-%d", "prompt": "Added.", "baseline_output": "x", "with_skill_output": "kept", "assertions": []}\n'
)
ACTIONS = ["none", "edit", "edit_by_rename", "append", "rename", "swap", "kill", "second_run"]
KILLED = 137


def tree_files(folder: Path) -> dict[str, bytes]:
    """Every regular file under `folder` (symlinks not followed), temporary files left out."""
    found = {}
    for directory, _, filenames in os.walk(folder):
        for name in filenames:
            path = Path(directory) / name
            if not name.endswith(TEMP_SUFFIX) and not path.is_symlink():
                found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


class MigrateUnderConcurrentWriters(RuleBasedStateMachine):
    @initialize()
    def make_tree(self) -> None:
        self.top = Path(tempfile.mkdtemp(prefix="fixture-migrate-concurrency-"))
        self.root = self.top / "repo"
        self.evals = self.root / "skills" / "demo" / "evals"
        self.evals.mkdir(parents=True)
        (self.root / ".git").mkdir()
        self.outside = self.top / "outside"
        self.outside.mkdir()
        # Outside holds the same files under the same names: a write that leaves the root
        # through a swapped folder would find them, and must not touch them.
        self.latest: dict[str, bytes] = {}  # logical file (its current name) -> the writer's last bytes
        self.history: dict[str, list[bytes]] = {}  # every version a JSON Lines file has had
        self.sample: dict[str, bytes] = {}  # logical file -> the legacy sample it started as
        for name, sample in SAMPLES.items():
            data = sample.read_bytes()
            self.sample[name] = data
            (self.evals / name).write_bytes(data)
            (self.outside / name).write_bytes(data)
            self.latest[name] = data
            self.history[name] = [data]
        self.outside_before = tree_files(self.outside)
        # The model plans in an empty tree of the same shape, so what is on disk (a .json left
        # beside its .jsonl) never changes what a file's migration is.
        self.model_root = self.top / "model"
        self.engine = Engine(Options(repo_root=self.model_root))
        self.counter = 0

    def teardown(self) -> None:
        steps.set_step_hook(None)
        shutil.rmtree(self.top, ignore_errors=True)

    # -- the model ------------------------------------------------------------------------

    def migrated(self, name: str, data: bytes) -> tuple[str, bytes]:
        """Where `data`, the bytes of the file `name`, lands migrated, and its bytes (the
        file itself when there is nothing to migrate)."""
        path = self.model_root / "skills" / "demo" / "evals" / name
        result = self.engine.plan_bytes(path, data)
        assert result.status != "error", (name, result.error)
        if result.status != "changed":
            return name, data
        assert result.new_bytes is not None
        return (result.new_path or path).name, result.new_bytes

    # -- the run, and the other writer -------------------------------------------------------

    def act(self, action: str, target: str) -> bytes | None:
        """The other writer's move, made (in the child) at the chosen step; returns the
        bytes it left in `target` when it wrote them."""
        path = self.evals / target
        if action == "kill":
            os._exit(KILLED)
        if action == "edit" and path.exists():
            data = path.read_bytes() + b"\n"
            path.write_bytes(data)
            return data
        if action == "edit_by_rename" and path.exists():
            temp = path.with_name(".editor-save")
            data = path.read_bytes() + b"\n\n"
            temp.write_bytes(data)
            os.replace(temp, path)
            return data
        if action == "append" and path.exists() and target.endswith(".jsonl"):
            with path.open("ab") as handle:
                handle.write(LINE % self.counter)
            return path.read_bytes()
        if action == "second_run":
            # Another fixture-migrate run over the same tree, start to end, inside this one.
            commands.run_migrate(
                [self.root],
                Options(repo_root=self.root),
                commands.MigrateMode(),
                out=io.StringIO(),
                report=Report(err=io.StringIO()),
            )
            return None
        if action == "rename" and path.exists():
            os.rename(path, path.with_name("renamed-" + target))
        elif action == "swap":
            shutil.move(str(self.evals), str(self.evals.with_name(".held")))
            self.evals.symlink_to(self.outside, target_is_directory=True)
        return None

    def run_child(self, step: str, nth: int, action: str, target: str | None) -> tuple[int, str | None, bytes | None]:
        """Run `migrate` in a forked child that makes `action` on `target` (None: the file
        being written) at the `nth` time it reaches `step`; returns its exit code, the file
        the action was made on (None when it was not made) and the bytes it wrote there."""
        fired, written = self.top / "fired", self.top / "written"
        fired.unlink(missing_ok=True)
        written.unlink(missing_ok=True)
        log = self.top / "child-error"
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 99
            try:
                seen = [0]

                def hook(name: str, path: str) -> None:
                    if name == step:
                        seen[0] += 1
                        if seen[0] == nth:
                            acted_on = target or os.path.basename(path)
                            fired.write_text(acted_on)
                            data = self.act(action, acted_on)
                            if data is not None:
                                written.write_bytes(data)

                steps.set_step_hook(hook)
                code = commands.run_migrate(
                    [self.root],
                    Options(repo_root=self.root),
                    commands.MigrateMode(),
                    out=io.StringIO(),
                    report=Report(err=io.StringIO()),
                )
            except BaseException:  # noqa: BLE001 - reported to the parent through the log
                log.write_text(traceback.format_exc())
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if log.exists():
            pytest.fail(log.read_text())
        return (
            code,
            fired.read_text() if fired.exists() else None,
            written.read_bytes() if written.exists() else None,
        )

    def settle(self, action: str, target: str, data: bytes | None) -> None:
        """Update the model after the other writer's `action` on `target` was made (`data`
        the bytes it wrote there)."""
        self.counter += 1
        if data is not None:
            self.latest[target] = data
            self.history.setdefault(target, []).append(data)
        elif action == "rename":
            new = "renamed-" + target
            if (self.evals / new).exists():
                self.latest[new] = self.latest.pop(target)
                self.history[new] = self.history.pop(target)
                self.sample[new] = self.sample.pop(target)
        elif action == "swap":
            # The writer puts the folder back, as it was moved: whatever the run did with it.
            self.evals.unlink()
            shutil.move(str(self.evals.with_name(".held")), str(self.evals))

    @rule(
        step=st.sampled_from(STEPS),
        nth=st.integers(min_value=1, max_value=3),
        action=st.sampled_from(ACTIONS),
        pick=st.integers(min_value=-2, max_value=len(SAMPLES) - 1),
    )
    def migrate_with_a_concurrent_writer(self, step: str, nth: int, action: str, pick: int) -> None:
        self.put_back_legacy_versions()  # so the run has every kind of write to make
        # pick < 0: the other writer acts on the very file being written at that step.
        target = sorted(self.latest)[pick % len(self.latest)] if pick >= 0 else None
        code, acted_on, data = self.run_child(step, nth, action, target)
        assert code in (0, 2, KILLED), f"exit {code}"
        if acted_on is not None:
            event(f"{action} at {step}")
            if action == "swap" or acted_on in self.latest:  # else the .json a move creates: not there yet
                self.settle(action, acted_on, data)
        else:
            assert code != KILLED

    @rule()
    def migrate_undisturbed(self) -> None:
        code, _, _ = self.run_child("never", 1, "none", "")
        assert code in (0, 2)
        for name, data in self.latest.items():
            new_name, new = self.migrated(name, data)
            if new_name == name:
                assert (self.evals / name).read_bytes() == new, f"{name} is not migrated by an undisturbed run"

    def put_back_legacy_versions(self) -> None:
        """The writer undoes every migration: a new legacy version of each file (a JSON
        Lines file again in place of its `.json`)."""
        self.counter += 1
        for name in list(self.latest):
            path = self.evals / name
            if name.endswith(".jsonl"):
                new_name, _ = self.migrated(name, self.latest[name])
                (self.evals / new_name).unlink(missing_ok=True)
                data = self.sample[name] + LINE % self.counter
            else:
                data = self.sample[name] + b"\n" * (1 + self.counter % 3)
            path.write_bytes(data)
            self.latest[name] = data
            self.history[name] = [data]

    @rule(pick=st.integers(min_value=0, max_value=len(SAMPLES) - 1))
    def write_a_legacy_version_between_runs(self, pick: int) -> None:
        """The writer puts a legacy version back (a new one), so later runs migrate again."""
        target = sorted(self.latest)[pick % len(self.latest)]
        path = self.evals / target
        if target.endswith(".jsonl"):
            if path.exists():
                self.settle("append", target, self.act("append", target))
            return
        data = self.sample[target] + b"\n" * (1 + self.counter % 3)
        path.write_bytes(data)
        self.settle("edit", target, data)

    # -- what must hold after every step ----------------------------------------------------------

    @invariant()
    def nothing_outside_the_root_changed(self) -> None:
        assert tree_files(self.outside) == self.outside_before
        assert sorted(p.name for p in self.outside.iterdir() if p.name.endswith(TEMP_SUFFIX)) == []

    @invariant()
    def no_byte_of_any_fixture_is_lost(self) -> None:
        now = {name: data for name, data in tree_files(self.evals).items() if "/" not in name}
        accounted: set[str] = set()
        for name, data in self.latest.items():
            new_name, new = self.migrated(name, data)
            if new_name == name:
                assert now.get(name) in (data, new), f"{name}: neither the writer's last version nor its migration"
                accounted.add(name)
                continue
            # A JSON Lines file: its last version is still there, or its migration took its place.
            moved = {self.migrated(name, old)[1] for old in self.history[name]}
            if name in now:
                assert now[name] == data, f"{name}: not the writer's last version"
                assert now.get(new_name) in (None, *moved), f"{new_name}: not a migration of {name}"
            else:
                assert now.get(new_name) == new, f"{name} is gone and {new_name} is not its migration"
            accounted.update({name, new_name})
        stray = set(now) - accounted - {".editor-save"}
        assert not stray, f"files nobody wrote: {sorted(stray)}"


MigrateUnderConcurrentWriters.TestCase.settings = settings(
    max_examples=int(os.environ.get("FIXTURE_MIGRATE_STATE_EXAMPLES", "15")),
    stateful_step_count=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_migrate_under_concurrent_writers = MigrateUnderConcurrentWriters.TestCase
