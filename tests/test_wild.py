"""Conformance over real repositories labeled by a person (`../shared/corpus/wild/`).

Each `trees/<owner>+<name>.tar.xz` is unpacked and `fixture-migrate migrate .` runs at its
root with default options. As the corpus README expects:

- no labeled non-fixture, no other tool's dataset and no file that cannot be parsed changes;
- every labeled fixture is migrated, or left as it is and named in the output;
- the run exits 0, unless a file that cannot be read lies in a skill's `evals/` folder;
- migrated cases carry their record's input and expected outcome in the canonical
  fields: at least 95% of those whose record had an input-like field have a non-empty
  `input`, at least 90% of those with an expected-like field a non-empty
  `expected_outcome` (or boundary evidence).

The input-like and expected-like names below are this test's own (what a reader of the
records would call them), not the tool's vocabulary, so the figures are not circular.
Skipped, with the reason, where the corpus is absent.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import tarfile
import time
from pathlib import Path

import pytest
import yaml
from fixture_migrate.cli.app import main
from fixture_migrate.migration.unreadable import in_skill_evals

WILD = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "wild"
ABSENT = f"the labeled wild corpus is absent ({WILD}); it lives beside the checkout in ../shared/corpus/wild"
LABELS = json.loads((WILD / "labels.json").read_text()) if (WILD / "labels.json").is_file() else {"repos": []}
REPOS = [r for r in LABELS["repos"] if (WILD / "trees" / f"{r['mirror']}.tar.xz").is_file()]

INPUT_LIKE = {
    "input", "prompt", "query", "question", "instruction", "task", "request", "message", "user_input",
    "user_intent", "intent", "input_shape", "user_prompt", "text",
}  # fmt: skip
EXPECTED_LIKE = {
    "expected_outcome", "expected", "expected_posture", "expected_signal", "expected_decision", "expected_failure",
    "expected_output", "expected_behavior", "expected_response", "expected_result", "expected_activation", "ideal",
    "target", "answer", "accept", "must_include", "must_not", "must_not_include", "forbidden_signals",
    "negative_signal", "should_trigger", "checks", "assertions", "expectations", "boundary_note",
}  # fmt: skip
TRIGGER_LISTS = {"should_trigger", "should_not_trigger", "positive", "negative", "near_miss", "near_neighbor"}
NAMED = {"changed", "unchanged", "unclaimed", "other_tool", "error"}


def _load(path: Path, raw: bytes):
    text = raw.decode("utf-8-sig")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if path.suffix in (".yaml", ".yml"):
        return yaml.safe_load(text)
    return json.loads(text)


def _records(doc):
    """(record, in a trigger list) of a source document."""
    if isinstance(doc, list):
        return [(r, False) for r in doc]
    for key in ("cases", "examples"):
        if isinstance(doc.get(key), list):
            return [(r, False) for r in doc[key]]
    return [(r, True) for key, value in doc.items() if key in TRIGGER_LISTS and isinstance(value, list) for r in value]


def _filled(value) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list):
        return any(_filled(v) for v in value)
    if isinstance(value, dict):
        return any(_filled(v) for v in value.values())
    return False


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _migrate(repo, tmp_path_factory):
    """Unpack `repo` and run `fixture-migrate migrate .` at its root: `(root, exit code, JSON
    report, files before, files after, stderr)`."""
    root = tmp_path_factory.mktemp(repo["mirror"].replace("+", "_"))
    with tarfile.open(WILD / "trees" / f"{repo['mirror']}.tar.xz") as tar:
        tar.extractall(root, filter="data")
    before = _snapshot(root)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["migrate", "--output-format", "json", "--repo-root", ".", "."])
    finally:
        os.chdir(cwd)
    return root, code, json.loads(out.getvalue()), before, _snapshot(root), err.getvalue()


def _shared_run(repo, tmp_path_factory):
    """`_migrate(repo)`, made once per test session. Without xdist, here. Across xdist
    workers, the run of each repository is made by the first worker to claim it, and left
    (pickled) in the session's shared temporary directory for the others; a worker that
    needs a repository another is still running runs the repositories nobody has claimed
    yet, then takes the one it needs."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _migrate(repo, tmp_path_factory)
    shared = tmp_path_factory.getbasetemp().parent / "wild-runs"
    shared.mkdir(exist_ok=True)

    def done(mirror):
        return shared / f"{mirror}.pickle"

    def claimed(other):
        try:
            os.close(os.open(shared / f"{other['mirror']}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        try:
            found = ("run", _migrate(other, tmp_path_factory))
        except Exception as exc:  # noqa: BLE001 - the worker that needs it reports it
            found = ("failed", f"{type(exc).__name__}: {exc}")
        temp = shared / f"{other['mirror']}.part"
        temp.write_bytes(pickle.dumps(found))
        temp.rename(done(other["mirror"]))
        return True

    mine = done(repo["mirror"])
    if not claimed(repo):
        for other in REPOS:
            if mine.exists():
                break
            if not done(other["mirror"]).exists():
                claimed(other)
        deadline = time.monotonic() + 900
        while not mine.exists():
            assert time.monotonic() < deadline, f"no worker finished the run of {repo['mirror']}"
            time.sleep(0.05)
    kind, value = pickle.loads(mine.read_bytes())
    assert kind == "run", f"the run of {repo['mirror']} failed: {value}"
    return value


@pytest.fixture(scope="module", params=REPOS, ids=[r["mirror"] for r in REPOS])
def wild(request, tmp_path_factory):
    """One labeled repository and its run (`_migrate`), made once per session whatever the
    number of xdist workers (`_shared_run`); pytest groups the tests of a repository, so a
    worker holds one repository's run in memory at a time."""
    return request.param, _shared_run(request.param, tmp_path_factory)


pytestmark = pytest.mark.skipif(not REPOS, reason=ABSENT)


def test_non_fixtures_and_other_tools_files_are_untouched(wild):
    repo, (_, _, _, before, after, _) = wild
    for path in repo["not_fixtures"] + repo["other_eval_datasets"]:
        assert after.get(path) == before[path], f"{path} changed"


def test_files_that_cannot_be_parsed_are_untouched(wild):
    repo, (_, _, _, before, after, _) = wild
    for path in (b["path"] for b in repo["broken"]):
        assert after.get(path) == before[path], f"{path} changed"


def test_every_fixture_is_migrated_or_named(wild):
    repo, (_, _, report, before, after, _) = wild
    statuses = {Path(f["path"]).as_posix().removeprefix("./"): f["status"] for f in report["files"]}
    for path in repo["fixtures"]:
        migrated = after.get(path) != before[path]
        assert migrated or statuses.get(path) in NAMED, f"{path}: {statuses.get(path)}"


def test_at_least_95_percent_of_fixtures_are_migrated_not_merely_named(wild):
    repo, (_, _, report, before, after, _) = wild
    statuses = {Path(f["path"]).as_posix().removeprefix("./"): f["status"] for f in report["files"]}
    fixtures = repo["fixtures"]
    done = [p for p in fixtures if after.get(p) != before[p] or statuses.get(p) == "unchanged"]
    assert len(done) >= 0.95 * len(fixtures), sorted(set(fixtures) - set(done))


def test_exit_code(wild):
    repo, (root, code, _, _, _, err) = wild
    broken_in_evals = any(in_skill_evals(root / b["path"], root) for b in repo["broken"])
    assert code == (2 if broken_in_evals else 0), err[-2000:]


def test_meaning_lands_in_the_canonical_fields(wild):
    repo, (_, _, report, before, after, _) = wild
    news = {Path(f["path"]).as_posix().removeprefix("./"): f.get("new_path") for f in report["files"]}
    had_input = has_input = had_expected = has_expected = 0
    for path in repo["fixtures"]:
        if after.get(path) == before[path]:
            continue
        new_path = (news.get(path) or path).removeprefix("./")
        source, migrated = _load(Path(path), before[path]), _load(Path(new_path), after[new_path])
        cases = migrated["cases"] if isinstance(migrated, dict) else migrated
        records = _records(source)
        assert len(records) == len(cases), path
        for (record, listed), case in zip(records, cases, strict=True):
            fields = record if isinstance(record, dict) else {"input": record}
            if any(k in INPUT_LIKE and _filled(v) for k, v in fields.items()):
                had_input += 1
                has_input += _filled(case.get("input"))
            if listed or any(k in EXPECTED_LIKE and v not in (None, "", [], {}) for k, v in fields.items()):
                had_expected += 1
                has_expected += (
                    _filled(case.get("expected_outcome"))
                    or _filled(case.get("boundary_note"))
                    or _filled(case.get("forbidden_signals"))
                )
    if had_input:
        assert has_input / had_input >= 0.95, (has_input, had_input)
    if had_expected:
        assert has_expected / had_expected >= 0.90, (has_expected, had_expected)
