"""One root rule for every path a user names (issue 22, item 3): a PATH, a DEST (`import
--out`, `export --out`), an `export` PATH, a `--source-ref`, a configured `include` or a
promptfoo `file://` reference that lies outside the repo root, with `..` collapsed, is
refused with exit 2 by every command and API function, whether it gets there through
`..`, an absolute path or a symlink; nothing outside is read or written.

With a root named (`--repo-root`, the API's `repo_root`) every spelling is checked against
it. With none named, the root is the one found to hold the named paths
(`files.paths.root_for_paths`): `..` and an absolute path name the same file and find the
same root, so they are judged alike; a symlink leaving the root it lies in is refused; and
paths that no one root holds (some in the repository, some outside it) are refused."""

from __future__ import annotations

import json
from pathlib import Path

import fixture_migrate
import pytest

from tests.helpers import CANONICAL, LEGACY
from tests.runner import run_cli

SAMPLES = '{"input": [{"role": "user", "content": "2+2?"}], "ideal": "4"}\n'


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "skills" / "demo" / "evals").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "skills" / "demo" / "evals" / "canonical.json").write_text(CANONICAL)
    (root / "skills" / "demo" / "evals" / "samples.jsonl").write_text(SAMPLES)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.json").write_text(LEGACY)
    (outside / "samples.jsonl").write_text(SAMPLES)
    (root / "link").symlink_to(outside, target_is_directory=True)
    return root


def spelling(kind: str, root: Path, name: str) -> tuple[str, str]:
    """A path to `outside/name` spelled `kind`, and the reason code its refusal carries."""
    return {
        "dotdot": (f"../outside/{name}", "path_outside_repo"),
        "inner-dotdot": (f"skills/../../outside/{name}", "path_outside_repo"),
        "absolute": (str(root.parent / "outside" / name), "path_outside_repo"),
        "symlink": (f"link/{name}", "symlink_outside_repo"),
    }[kind]


SPELLINGS = ["dotdot", "inner-dotdot", "absolute", "symlink"]
READERS = [
    ["migrate"],
    ["migrate", "--check"],
    ["migrate", "--diff"],
    ["validate"],
    ["normalize"],
    ["detect"],
    ["suggest"],
]


def _outside_state(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root.parent / "outside").iterdir())}


@pytest.mark.parametrize("kind", SPELLINGS)
@pytest.mark.parametrize("command", READERS, ids=lambda c: "-".join(c))
def test_a_named_path_outside_the_root_is_refused(tree, monkeypatch, capsys, command, kind):
    path, code = spelling(kind, tree, "o.json")
    before = _outside_state(tree)
    done = run_cli([*command, "--repo-root", ".", path], tree, monkeypatch, capsys)
    assert done.code == 2, done
    assert code in done.out + done.err, done
    assert "secret" not in done.out and '"Greets"' not in done.out  # nothing of it read out
    assert _outside_state(tree) == before


@pytest.mark.parametrize("kind", SPELLINGS)
@pytest.mark.parametrize("command", ["import", "export"])
def test_a_dest_outside_the_root_is_refused(tree, monkeypatch, capsys, command, kind):
    path, code = spelling(kind, tree, "new.json" if command == "import" else "new.jsonl")
    before = _outside_state(tree)
    if command == "import":
        args = ["import", "skills/demo/evals/samples.jsonl", "--skill", "math", "--out", path]
    else:
        args = ["export", "skills/demo/evals/canonical.json", "--to", "inspect", "--out", path]
    done = run_cli([*args, "--repo-root", "."], tree, monkeypatch, capsys)
    assert done.code == 2, done
    assert code in done.out + done.err, done
    assert _outside_state(tree) == before  # nothing created there


@pytest.mark.parametrize("ref", ["../outside/o.json", "skills/../../outside/o.json"])
def test_a_source_ref_outside_the_root_is_refused(tree, monkeypatch, capsys, ref):
    args = ["import", "skills/demo/evals/samples.jsonl", "--skill", "math", "--out", "evals/new.json"]
    done = run_cli([*args, "--source-ref", ref, "--repo-root", "."], tree, monkeypatch, capsys)
    assert done.code == 2, done
    assert "path_outside_repo" in done.err
    assert not (tree / "evals" / "new.json").exists()


@pytest.mark.parametrize("kind", SPELLINGS)
def test_an_import_source_outside_the_root_is_refused_without_a_source_ref(tree, monkeypatch, capsys, kind):
    path, code = spelling(kind, tree, "samples.jsonl")
    expected = "source_outside_repo" if code == "path_outside_repo" else code
    done = run_cli(["import", path, "--skill", "m", "--out", "new.json", "--repo-root", "."], tree, monkeypatch, capsys)
    assert done.code == 2 and expected in done.err, done
    assert not (tree / "new.json").exists()


def _api_calls(root: Path, path: str):
    return {
        "plan_file": lambda: _raise(fixture_migrate.plan_file(path, repo_root=root).error),
        "migrate_file": lambda: fixture_migrate.migrate_file(path, repo_root=root),
        "normalize": lambda: fixture_migrate.normalize(path, repo_root=root),
        "validate": lambda: fixture_migrate.validate(path, repo_root=root),
    }


def _raise(error):
    assert error is not None
    raise error


@pytest.mark.parametrize("kind", SPELLINGS)
@pytest.mark.parametrize("name", ["plan_file", "migrate_file", "normalize", "validate"])
def test_the_api_refuses_a_path_outside_the_root(tree, monkeypatch, kind, name):
    monkeypatch.chdir(tree)
    path, code = spelling(kind, tree, "o.json")
    before = _outside_state(tree)
    with pytest.raises(fixture_migrate.MigrationError) as raised:
        _api_calls(tree, path)[name]()
    assert raised.value.code == code
    assert _outside_state(tree) == before


@pytest.mark.parametrize("kind", SPELLINGS)
@pytest.mark.parametrize("name", ["import_file", "export_file"])
def test_the_api_refuses_a_dest_outside_the_root(tree, monkeypatch, kind, name):
    monkeypatch.chdir(tree)
    before = _outside_state(tree)
    evals = tree / "skills" / "demo" / "evals"
    with pytest.raises(fixture_migrate.MigrationError) as raised:
        if name == "import_file":
            path, code = spelling(kind, tree, "new.json")
            fixture_migrate.import_file(evals / "samples.jsonl", path, skill="m", repo_root=tree)
        else:
            path, code = spelling(kind, tree, "new.jsonl")
            fixture_migrate.export_file(evals / "canonical.json", path, to="inspect", repo_root=tree)
    assert raised.value.code == code
    assert _outside_state(tree) == before


def test_a_path_inside_the_root_spelled_with_dotdot_is_still_read(tree, monkeypatch, capsys):
    done = run_cli(
        ["validate", "--no-ref-check", "--repo-root", ".", "skills/demo/../demo/evals/canonical.json"],
        tree,
        monkeypatch,
        capsys,
    )
    assert done.code == 0, done
    assert json.loads(CANONICAL)["cases"][0]["id"] == "a"


SPELLED = ["dotdot", "inner-dotdot", "absolute"]
"""The spellings that name `outside/` itself (a symlink names a place inside the root)."""
COMMANDS = [*READERS, ["consumers"]]


def _codes(done) -> set[str]:
    import re

    return set(re.findall(r"\[([a-z_]+)\]", done.out + done.err))


@pytest.mark.parametrize("kind", SPELLINGS)
def test_consumers_refuses_a_named_path_outside_the_root(tree, monkeypatch, capsys, kind):
    path, code = spelling(kind, tree, "o.json")
    before = _outside_state(tree)
    done = run_cli(["consumers", "--fix", "--repo-root", ".", path], tree, monkeypatch, capsys)
    assert done.code == 2 and code in _codes(done), done
    assert _outside_state(tree) == before


@pytest.mark.parametrize("kind", SPELLINGS)
def test_an_export_path_outside_the_root_is_refused(tree, monkeypatch, capsys, kind):
    (tree.parent / "outside" / "canon.json").write_text(CANONICAL)
    path, code = spelling(kind, tree, "canon.json")
    done = run_cli(["export", path, "--to", "inspect", "--out", "n.jsonl", "--repo-root", "."], tree, monkeypatch, capsys)
    assert done.code == 2 and code in _codes(done), done
    assert not (tree / "n.jsonl").exists()


@pytest.mark.parametrize("kind", SPELLINGS)
def test_every_spelling_of_a_source_ref_outside_the_root_is_refused(tree, monkeypatch, capsys, kind):
    ref, code = spelling(kind, tree, "o.json")
    args = ["import", "skills/demo/evals/samples.jsonl", "--skill", "math", "--out", "evals/new.json"]
    for authority in ("source", "historical"):
        done = run_cli(
            [*args, "--source-ref", ref, "--source-ref-authority", authority, "--repo-root", "."], tree, monkeypatch, capsys
        )
        assert done.code == 2 and code in _codes(done), done
        assert not (tree / "evals" / "new.json").exists()


INCLUDES = {
    "dotdot": ("../outside/*.json", "path_outside_repo"),
    "inner-dotdot": ("skills/../../outside/*.json", "path_outside_repo"),
    "absolute": ("{outside}/*.json", "path_outside_repo"),
    "symlink": ("link/*.json", "symlink_outside_repo"),
}
EVERY_COMMAND = [
    *COMMANDS,
    ["import", "skills/demo/evals/samples.jsonl", "--skill", "m", "--out", "new.json"],
    ["export", "skills/demo/evals/canonical.json", "--to", "inspect", "--out", "n.jsonl"],
]


@pytest.mark.parametrize("kind", SPELLINGS)
@pytest.mark.parametrize("command", EVERY_COMMAND, ids=lambda c: "-".join(c[:2]))
def test_every_command_refuses_an_include_outside_the_root(tree, monkeypatch, capsys, command, kind):
    glob, code = INCLUDES[kind]
    glob = glob.format(outside=tree.parent / "outside")
    (tree / "pyproject.toml").write_text(f'[tool.fixture-migrate]\ninclude = ["{glob}"]\n')
    done = run_cli([*command, *([] if command[0] in ("import", "export") else ["."])], tree, monkeypatch, capsys)
    assert done.code == 2 and code in _codes(done), done
    assert not (tree / "new.json").exists() and not (tree / "n.jsonl").exists()


def _promptfoo_tree(tree: Path, kind: str) -> Path:
    outside = tree.parent / "outside"
    (outside / "t.yaml").write_text("- vars: {q: secret}\n")
    config = tree / "evals" / "promptfooconfig.yaml"
    config.parent.mkdir()
    (config.parent / "link").symlink_to(outside, target_is_directory=True)
    ref = {
        "dotdot": "../../outside/t.yaml",
        "inner-dotdot": "link/../../../outside/t.yaml",
        "absolute": str(outside / "t.yaml"),
        "symlink": "link/t.yaml",
    }[kind]
    config.write_text(f"prompts: [x]\ntests: file://{ref}\n")
    return config


@pytest.mark.parametrize("named", [True, False], ids=["repo-root", "found-root"])
@pytest.mark.parametrize("kind", SPELLINGS)
def test_every_spelling_of_a_promptfoo_reference_outside_is_refused(tree, monkeypatch, capsys, kind, named):
    _promptfoo_tree(tree, kind)
    args = ["import", "evals/promptfooconfig.yaml", "--skill", "m", "--out", "evals/new.json"]
    done = run_cli([*args, *(["--repo-root", "."] if named else [])], tree, monkeypatch, capsys)
    assert done.code == 2 and "ref_outside" in _codes(done), done
    assert "secret" not in done.out + done.err
    assert not (tree / "evals" / "new.json").exists()


def _more_api_calls(root: Path, path: str):
    return {
        "find_consumers": lambda: fixture_migrate.find_consumers(path, repo_root=root, fix=True),
        "fixture_files": lambda: fixture_migrate.fixture_files(path, repo_root=root),
        "export_file-path": lambda: fixture_migrate.export_file(path, "n.jsonl", to="inspect", repo_root=root),
    }


@pytest.mark.parametrize("kind", SPELLINGS)
@pytest.mark.parametrize("name", ["find_consumers", "fixture_files", "export_file-path"])
def test_the_other_api_functions_refuse_a_path_outside_the_root(tree, monkeypatch, kind, name):
    monkeypatch.chdir(tree)
    (tree.parent / "outside" / "canon.json").write_text(CANONICAL)
    path, code = spelling(kind, tree, "canon.json" if name == "export_file-path" else "o.json")
    before = _outside_state(tree)
    with pytest.raises(fixture_migrate.MigrationError) as raised:
        _more_api_calls(tree, path)[name]()
    assert raised.value.code == code
    assert _outside_state(tree) == before
    assert not (tree / "n.jsonl").exists()


# --- a root found, not named ------------------------------------------------------------------


def _without_path(done, path: str) -> tuple[int, str, str]:
    return done.code, done.out.replace(path, "PATH"), done.err.replace(path, "PATH")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c))
def test_with_a_found_root_dotdot_and_an_absolute_path_are_judged_alike_and_a_symlink_is_refused(
    tree, monkeypatch, capsys, command
):
    """Without --repo-root the root is the one that holds the named path: `../outside/o.json`
    and its absolute spelling find the same root (the folder `outside`, in no repository) and
    give the same result; through the repository's symlink it leaves the repository's root."""
    results = []
    for kind in SPELLED:
        path, _ = spelling(kind, tree, "o.json")
        (tree.parent / "outside" / "o.json").write_text(LEGACY)
        done = run_cli([*command, path], tree, monkeypatch, capsys)
        assert done.code != 2, done
        results.append(_without_path(done, path))
    assert results[0] == results[1] == results[2]
    (tree.parent / "outside" / "o.json").write_text(LEGACY)
    done = run_cli([*command, "link/o.json"], tree, monkeypatch, capsys)
    assert done.code == 2 and "symlink_outside_repo" in _codes(done), done
    assert (tree.parent / "outside" / "o.json").read_text() == LEGACY


@pytest.mark.parametrize("kind", SPELLED)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c))
def test_with_a_found_root_paths_no_one_root_holds_are_refused(tree, monkeypatch, capsys, command, kind):
    """A path of the repository named with one outside it: no one root holds both (a root
    above the repository would change how its own files are read), so the one outside the
    repository's root is refused, whatever its spelling."""
    path, code = spelling(kind, tree, "o.json")
    before = _outside_state(tree)
    done = run_cli([*command, "skills/demo/evals/canonical.json", path], tree, monkeypatch, capsys)
    assert done.code == 2 and code in _codes(done), done
    assert _outside_state(tree) == before


@pytest.mark.parametrize("kind", SPELLINGS)
def test_with_a_found_root_an_export_dest_outside_the_repository_is_refused(tree, monkeypatch, capsys, kind):
    path, code = spelling(kind, tree, "new.jsonl")
    before = _outside_state(tree)
    done = run_cli(["export", "skills/demo/evals/canonical.json", "--to", "inspect", "--out", path], tree, monkeypatch, capsys)
    assert done.code == 2 and code in _codes(done), done
    assert _outside_state(tree) == before


@pytest.mark.parametrize("kind", SPELLINGS)
def test_with_a_found_root_an_import_dest_outside_the_repository_is_judged_alike(tree, monkeypatch, capsys, kind):
    """The root holds DEST: outside the repository it is the folder `outside`, and the
    repository's SRC then lies outside that root (`source_outside_repo` without --source-ref);
    through the symlink DEST leaves the repository's root."""
    path, code = spelling(kind, tree, "new.json")
    before = _outside_state(tree)
    done = run_cli(["import", "skills/demo/evals/samples.jsonl", "--skill", "m", "--out", path], tree, monkeypatch, capsys)
    expected = "symlink_outside_repo" if kind == "symlink" else "source_outside_repo"
    assert done.code == 2 and expected in _codes(done), done
    assert _outside_state(tree) == before


@pytest.mark.parametrize("name", ["plan_file", "normalize", "validate"])
def test_the_api_without_a_repo_root_judges_dotdot_and_absolute_alike_and_refuses_the_symlink(tree, monkeypatch, name):
    monkeypatch.chdir(tree)
    results = []
    for kind in SPELLED:
        path, _ = spelling(kind, tree, "o.json")
        results.append(repr(_api_calls(None, path)[name]() if name != "plan_file" else
                            fixture_migrate.plan_file(path).new_bytes))
    assert results[0] == results[1] == results[2]
    with pytest.raises(fixture_migrate.MigrationError) as raised:
        _api_calls(None, "link/o.json")[name]()
    assert raised.value.code == "symlink_outside_repo"


def test_a_run_from_the_file_system_root_finds_the_root_that_holds_its_paths(tree):
    """Run from `/` (a container's working directory), the root was `/` itself: no root rule
    to speak of, `source_file` relative to `/`, and the pin scan walked the whole machine
    (and waited on /proc/kmsg). The root is now the repository that holds the paths."""
    from tests.runner import run_process

    evals = tree / "skills" / "demo" / "evals"
    (evals / "legacy.json").write_text(LEGACY)
    done = run_process(["migrate", "--check", str(evals)], Path("/"), timeout=120)
    assert done.code == 1 and f"would migrate {evals}/legacy.json" in done.err, done
    done = run_process(["normalize", str(evals / "canonical.json")], Path("/"), timeout=120)
    assert done.code == 0 and json.loads(done.out)[0]["source_file"] == "skills/demo/evals/canonical.json", done
