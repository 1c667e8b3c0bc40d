"""The hooks of `.pre-commit-hooks.yaml`, run by the real pre-commit in a temporary git repository.

pre-commit installs this checkout (a snapshot of it with its uncommitted changes,
committed as one revision) into a virtualenv of its own, with pip, as a user's
`pre-commit install` would, once for the module: every test names the hooks in a
`.pre-commit-config.yaml` and runs them from the same pre-commit cache. (`try-repo`
would install the project again for every run.) That needs a package index (the usual
one or a configured mirror); where pip cannot install the project at all, the tests are
skipped, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.helpers import ROOT
from tests.runner import write_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

LEGACY = (ROOT / "examples" / "legacy" / "review-examples.json").read_text(encoding="utf-8")
CANONICAL = """\
{
  "schema_version": "spec-first.workflow-eval-fixtures.v1",
  "skill": "demo",
  "cases": [{"id": "a", "input": "x", "coverage_tags": ["trigger"], "expected_outcome": "y"}]
}
"""


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=test@example.invalid", "-c", "user.name=test", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the hook repository is installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout as it is on disk (tracked and untracked, not ignored files), committed
    in a repository of its own: one revision, so pre-commit installs it once (try-repo on a
    checkout with uncommitted changes makes a new revision, and a new install, per run)."""
    snapshot = tmp_path_factory.mktemp("hook-repo")
    listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    _git(snapshot, "init", "-q")
    _git(snapshot, "add", ".")
    _git(snapshot, "commit", "-qm", "snapshot")
    return snapshot


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a legacy fixture, a canonical one, an excluded legacy one and
    a JSON file outside evals/."""
    write_files(
        tmp_path,
        {
            "skills/demo/evals/review-examples.json": LEGACY,
            "skills/demo/evals/cases.json": CANONICAL,
            "skills/kept/evals/old-examples.json": LEGACY,
            "package.json": '{"name": "demo", "examples": []}\n',
            "pyproject.toml": '[tool.fixture-migrate]\nexclude = ["skills/kept"]\n',
        },
    )
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def _pre_commit(repo: Path, args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(home), NO_COLOR="1")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color=never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    output = done.stdout + done.stderr
    if "An error has occurred" in output and ("pip" in output or "Initializing environment" in output):
        log_path = home / "pre-commit.log"
        log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else output
        if "install" in log:
            pytest.skip(f"pre-commit could not install the hook repository with pip here: {log.strip()[-400:]}")
    return done


def _configure(repo: Path, hook_repo: Path, *hooks: str) -> None:
    """Name `hooks` of `hook_repo` in the repository's `.pre-commit-config.yaml`, committed."""
    rev = _git(hook_repo, "rev-parse", "HEAD").strip()
    listed = "".join(f"      - id: {hook}\n" for hook in hooks)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n{listed}", encoding="utf-8"
    )
    _git(repo, "add", ".pre-commit-config.yaml")
    _git(repo, "commit", "-qm", "hooks")


def _run_hook(repo: Path, hook: str, home: Path, hooks: Path) -> subprocess.CompletedProcess[str]:
    _configure(repo, hooks, hook)
    return _pre_commit(repo, ["run", "--all-files"], home)


def test_manifest_declares_both_hooks():
    manifest = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for hook in manifest}
    assert set(hooks) == {"fixture-migrate", "fixture-migrate-check"}
    assert hooks["fixture-migrate"]["entry"] == "fixture-migrate migrate --force-exclude"
    assert hooks["fixture-migrate-check"]["entry"] == "fixture-migrate migrate --check --diff --force-exclude"
    assert all(hook["language"] == "python" for hook in hooks.values())


def test_fixer_hook_rewrites_and_fails(repo, pre_commit_home, hook_repo):
    done = _run_hook(repo, "fixture-migrate", pre_commit_home, hook_repo)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "files were modified by this hook" in output
    assert "migrated skills/demo/evals/review-examples.json (prompt_examples_v1)" in output

    migrated = json.loads((repo / "skills/demo/evals/review-examples.json").read_text(encoding="utf-8"))
    assert migrated["schema_version"] == "spec-first.workflow-eval-fixtures.v1"
    assert (repo / "skills/demo/evals/cases.json").read_text(encoding="utf-8") == CANONICAL
    assert (repo / "skills/kept/evals/old-examples.json").read_text(encoding="utf-8") == LEGACY  # excluded
    assert (repo / "package.json").read_text(encoding="utf-8") == '{"name": "demo", "examples": []}\n'
    assert _git(repo, "status", "--porcelain").splitlines() == [" M skills/demo/evals/review-examples.json"]


def test_check_hook_shows_the_diff_and_writes_nothing(repo, pre_commit_home, hook_repo):
    done = _run_hook(repo, "fixture-migrate-check", pre_commit_home, hook_repo)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "--- a/skills/demo/evals/review-examples.json" in output
    assert '+  "schema_version": "spec-first.workflow-eval-fixtures.v1",' in output
    assert "skills/kept" not in output
    assert _git(repo, "status", "--porcelain") == ""


def test_configured_hooks_fail_then_pass(repo, pre_commit_home, hook_repo):
    """Both hooks from a .pre-commit-config.yaml, as the README shows it: they fail while a
    legacy fixture is there, and pass once the fixer's rewrite is staged."""
    _configure(repo, hook_repo, "fixture-migrate", "fixture-migrate-check")
    first = _pre_commit(repo, ["run", "--all-files"], pre_commit_home)
    assert first.returncode == 1, first.stdout + first.stderr
    assert first.stdout.count("Failed") == 1  # the fixer; the check then sees the rewritten file
    _git(repo, "add", ".")
    second = _pre_commit(repo, ["run", "--all-files"], pre_commit_home)
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("Passed") == 2
