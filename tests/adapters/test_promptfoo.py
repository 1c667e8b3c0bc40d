"""promptfoo: configs with defaultTest and file:// references, tests files (YAML, JSONL, CSV)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_migrate.adapters.promptfoo import _is_config, assertion_from_string, csv_row_to_test
from fixture_migrate.importing.readers import read_source

from tests.import_helpers import EXAMPLES, EXTERNAL, check_import, corpus_files, plan, refused, requires_external

CONFIG = EXAMPLES / "promptfoo" / "promptfooconfig.yaml"
ROOT = EXAMPLES.parents[1]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_imports_a_config_with_its_tests_files(tmp_path, snapshot_json):
    text = check_import([CONFIG], tmp_path / "support.json", root=ROOT, skill="support")
    assert text == snapshot_json
    data = json.loads(text)
    refund, password, parcel, french = data["cases"]
    # defaultTest: its assertions first, then the test's own; the anchor and the $ref resolved.
    assert [a["type"] for a in refund["expected_outcome"]] == [
        "not-contains",
        "llm-rubric",
        "icontains",
        "icontains",
        "not-contains-any",
    ]
    assert refund["extensions"]["promptfoo"]["default_asserts"] == 2
    assert refund["forbidden_signals"] == ["As an AI", "lawyer", "sue"]
    # a file:// assertion value is read relative to the config; the prompt file is never read.
    assert refund["expected_outcome"][1]["value"].startswith("The answer is polite")
    assert not (CONFIG.parent / "prompts").exists()
    # CSV conventions: description, metadata (an array column), two assertions.
    assert password["id"] == "password-reset"
    assert password["coverage_tags"] == ["area-account", "tags-login", "tags-self-service", "expected"]
    # disableDefaultAsserts keeps only the test's own; the Python check is kept as written.
    assert [a["type"] for a in french["expected_outcome"]] == ["python", "equals"]
    assert french["extensions"]["promptfoo"]["unresolved"] == ["file://checks/is_french.py"]
    assert french["input"] == "Cancel my subscription, and say it in French."
    assert parcel["id"].startswith("test-")


@pytest.mark.parametrize(
    "cell, assertion",
    [
        pytest.param("equals: 4", {"type": "equals", "value": "4"}, id="equals-trimmed"),
        pytest.param("Paris: capital", {"type": "equals", "value": "Paris: capital"}, id="no-type-is-equals"),
        pytest.param("not-icontains:sorry", {"type": "not-icontains", "value": "sorry"}, id="negated"),
        pytest.param(
            "contains-all: red, blue,yellow",
            {"type": "contains-all", "value": ["red", "blue", "yellow"]},
            id="comma-list",
        ),
        pytest.param("similar(0.9):hello", {"type": "similar", "value": "hello", "threshold": 0.9}, id="threshold"),
        pytest.param("similar:hello", {"type": "similar", "value": "hello", "threshold": 0.8}, id="similar-default"),
        pytest.param(
            "starts-with:Yes", {"type": "starts-with", "value": "Yes", "threshold": 0.75}, id="threshold-default"
        ),
        pytest.param("is-json: {}", {"type": "is-json", "value": " {}"}, id="raw-json-untrimmed"),
        pytest.param("fn: output.length < 9", {"type": "javascript", "value": "output.length < 9"}, id="fn"),
        pytest.param("grade: Is kind", {"type": "llm-rubric", "value": "Is kind"}, id="grade"),
        pytest.param("python: len(output) > 2", {"type": "python", "value": "len(output) > 2"}, id="python"),
        pytest.param("file://check.py", {"type": "python", "value": "check.py"}, id="python-file"),
        pytest.param("file://check.js:fn", {"type": "javascript", "value": "check.js:fn"}, id="js-file"),
        pytest.param("is-json", {"type": "is-json"}, id="no-value"),
    ],
)
def test_assertion_from_string(cell, assertion):
    assert assertion_from_string(cell) == assertion


def test_csv_row_reserved_columns():
    row = {
        "q": "Hi",
        "__expected": "contains: a",
        "__expected2": "",
        "__expected3": "similar: b",
        "__metric": "accuracy",
        "__threshold": "0.5",
        "__prefix": "> ",
        "__metadata:tags[]": r"x, y\,z",
        "__config:__expected2:threshold": "0.6",
    }
    assert csv_row_to_test(row) == {
        "vars": {"q": "Hi"},
        "assert": [
            {"type": "contains", "value": "a", "metric": "accuracy"},
            # __config:__expected2 names the second assertion made (the empty cell makes none).
            {"type": "similar", "value": "b", "threshold": 0.6, "metric": "accuracy"},
        ],
        "options": {"prefix": "> "},
        "threshold": 0.5,
        "metadata": {"tags": ["x", "y,z"]},
    }


def test_list_vars_are_kept_not_expanded(tmp_path):
    write(tmp_path, {"tests.yaml": "- vars: {language: [French, German], text: Hi}\n  assert: [{type: is-json}]\n"})
    data = json.loads(plan([tmp_path / "tests.yaml"], tmp_path / "out.json", root=tmp_path).new_bytes)
    (case,) = data["cases"]
    assert case["input"] == "Hi"
    assert case["extensions"]["promptfoo"]["test"]["vars"]["language"] == ["French", "German"]


def test_a_test_without_vars_takes_the_single_inline_prompt(tmp_path):
    write(tmp_path, {"cfg.yaml": "prompts: ['Say hello.']\ntests:\n  - assert: [{type: icontains, value: hello}]\n"})
    data = json.loads(plan([tmp_path / "cfg.yaml"], tmp_path / "out.json", root=tmp_path).new_bytes)
    assert data["cases"][0]["input"] == "Say hello."


def test_a_tests_file_given_with_its_config_is_imported_once(tmp_path):
    write(
        tmp_path,
        {
            "cfg.yaml": "prompts: ['{{q}}']\ntests: file://t/cases.jsonl\n",
            "t/cases.jsonl": '{"vars": {"q": "one"}}\n{"vars": {"q": "two"}}\n',
        },
    )
    sources = [tmp_path / "cfg.yaml", tmp_path / "t" / "cases.jsonl"]
    result = plan(sources, tmp_path / "out.json", root=tmp_path)
    assert result.cases == 2
    assert any("loaded by the config" in note for note in result.notes)


def test_a_glob_of_tests_files_is_read_in_sorted_order(tmp_path):
    write(
        tmp_path,
        {
            "cfg.json": '{"providers": ["echo"], "tests": ["file://t/*.yaml"]}',
            "t/b.yaml": "- vars: {q: second}\n",
            "t/a.yaml": "- vars: {q: first}\n",
        },
    )
    data = json.loads(plan([tmp_path / "cfg.json"], tmp_path / "out.json", root=tmp_path).new_bytes)
    assert [case["input"] for case in data["cases"]] == ["first", "second"]


@pytest.mark.parametrize(
    "tests, code",
    [
        pytest.param("file://gen.py:make_tests", "generator", id="python-generator"),
        pytest.param("huggingface://datasets/x/y", "unsupported_ref", id="remote"),
        pytest.param("file://none/*.csv", "missing_ref", id="empty-glob"),
        pytest.param("file://absent.yaml", "missing_ref", id="missing"),
        pytest.param("file://../outside.yaml", "ref_outside", id="outside"),
    ],
)
def test_tests_that_cannot_be_read_are_refused(tmp_path, tests, code):
    write(tmp_path, {"outside.yaml": "- vars: {q: x}\n", "cfg/promptfooconfig.yaml": f"prompts: [x]\ntests: {tests}\n"})
    ((path, found, _),) = refused(
        [tmp_path / "cfg" / "promptfooconfig.yaml"], tmp_path / "o.json", root=tmp_path, skill="x"
    )
    assert (found, Path(path).name) == (code, "promptfooconfig.yaml")


def test_a_symlink_out_of_the_folder_is_refused(tmp_path):
    write(
        tmp_path,
        {
            "secret.txt": "do not read",
            "cfg/promptfooconfig.yaml": "prompts: [x]\ntests:\n  - vars: {q: file://s.txt}\n",
        },
    )
    (tmp_path / "cfg" / "s.txt").symlink_to(tmp_path / "secret.txt")
    ((_, code, message),) = refused(
        [tmp_path / "cfg" / "promptfooconfig.yaml"], tmp_path / "o.json", root=tmp_path, skill="x"
    )
    assert code == "ref_outside" and "s.txt" in message


def test_a_plain_csv_needs_from_promptfoo(tmp_path):
    write(tmp_path, {"vars.csv": "city,country\nParis,France\n"})
    ((_, code, message),) = refused([tmp_path / "vars.csv"], tmp_path / "o.json", root=tmp_path, skill="x")
    assert code == "unknown_format" and "--from promptfoo" in message
    data = json.loads(plan([tmp_path / "vars.csv"], tmp_path / "o.json", root=tmp_path, fmt="promptfoo").new_bytes)
    assert data["cases"][0]["input"] == "city: Paris\ncountry: France"


def test_two_configs_are_refused(tmp_path):
    write(
        tmp_path,
        {"a.yaml": "prompts: [x]\ntests: [{vars: {q: 1}}]\n", "b.yaml": "prompts: [y]\ntests: [{vars: {q: 2}}]\n"},
    )
    ((_, code, _),) = refused([tmp_path / "a.yaml", tmp_path / "b.yaml"], tmp_path / "o.json", root=tmp_path, skill="x")
    assert code == "two_configs"


def _corpus_jobs() -> list[object]:
    files = corpus_files("promptfoo", ".yaml", ".yml", ".json", ".jsonl", ".csv")
    jobs = []
    for path in files:
        source = read_source(path, path.name)
        tests_file = isinstance(source.data, list) and all(
            isinstance(t, dict) and ("vars" in t or "assert" in t) for t in source.data
        )
        if _is_config(source.data) or tests_file or path.suffix == ".csv":
            fmt = "promptfoo" if path.suffix == ".csv" else "auto"
            jobs.append(pytest.param(path, fmt, id=path.relative_to(EXTERNAL / "promptfoo").as_posix()))
    return jobs or [pytest.param(None, "auto", id="absent")]


@requires_external("promptfoo")
@pytest.mark.parametrize("source, fmt", _corpus_jobs())
def test_corpus_samples_import(source: Path, fmt: str, tmp_path):
    text = check_import([source], tmp_path / "imported.json", root=EXTERNAL, fmt=fmt)
    assert json.loads(text)["coverage_tags"] == ["promptfoo"]


@requires_external("promptfoo")
def test_corpus_every_file_is_read_but_prompts(tmp_path):
    """Every sample file is read by some import, except the prompt files configs name (never read)."""
    read: set[Path] = set()
    prompts: set[Path] = set()
    for param in _corpus_jobs():
        source, fmt = param.values
        data = json.loads(plan([source], tmp_path / "x.json", root=EXTERNAL, fmt=fmt).new_bytes)
        read.update((EXTERNAL / ref).resolve() for ref in data["source_refs"])
        for prompt in data["extensions"].get("promptfoo", {}).get("prompts", []):
            if prompt.startswith("file://"):
                prompts.add((source.parent / prompt[len("file://") :]).resolve())
    every = {path.resolve() for path in corpus_files("promptfoo", ".yaml", ".yml", ".json", ".jsonl", ".csv", ".txt")}
    assert every - read == prompts
    assert prompts  # the samples do name prompt files


SCENARIOS = EXAMPLES / "promptfoo" / "scenarios" / "promptfooconfig.yaml"


def test_scenarios_give_one_case_per_test_and_config_entry(tmp_path):
    text = check_import([SCENARIOS], tmp_path / "greetings.json", root=ROOT, skill="greetings")
    cases = json.loads(text)["cases"]
    assert [case["id"] for case in cases] == [
        "greeting-french",
        cases[1]["id"],
        "greeting-german",
        cases[3]["id"],
    ]
    assert cases[1]["id"].endswith("-french") and cases[3]["id"].endswith("-german")
    french = cases[0]["extensions"]["promptfoo"]
    assert french["vars"] == {"language": "French", "text": "Hello"}
    assert french["scenario"] == {"index": 0, "config": 0}
    assert cases[3]["forbidden_signals"] == ["Auf Wiedersehen"]


def test_a_scenarios_config_is_a_config_not_a_tests_file(tmp_path):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['{{q}}']\nscenarios:\n  - config: [{vars: {q: a}}]\n    tests: [{}]\n", encoding="utf-8"
    )
    assert _is_config(read_source(config, "promptfooconfig.yaml").data)
    assert plan([config], tmp_path / "o.json", root=tmp_path, skill="x", fmt="promptfoo").cases == 1


def test_a_recursive_glob_never_follows_a_symlinked_directory(tmp_path):
    """Links to a parent folder would make a recursive glob loop (exponential in `glob`):
    the walk does not enter symlinked directories, and finds what `glob` finds without them."""
    import glob
    import os
    import time

    write(
        tmp_path,
        {
            "cfg.json": '{"providers": ["echo"], "tests": ["file://t/**/*.yaml"]}',
            "t/a.yaml": "- vars: {q: first}\n",
            "t/sub/b.yaml": "- vars: {q: second}\n",
            "t/.hidden/c.yaml": "- vars: {q: hidden}\n",
        },
    )
    expected = sorted(glob.glob(str(tmp_path / "t" / "**" / "*.yaml"), recursive=True))
    for name in ("l1", "l2", "sub/l3"):
        os.symlink("..", tmp_path / "t" / name)
    os.symlink(".", tmp_path / "t" / "self")
    started = time.monotonic()
    data = json.loads(plan([tmp_path / "cfg.json"], tmp_path / "out.json", root=tmp_path).new_bytes)
    assert time.monotonic() - started < 10
    assert [case["input"] for case in data["cases"]] == ["first", "second"]
    assert len(expected) == 2


@pytest.mark.parametrize(
    "pattern, names",
    [
        ("*.yaml", ["a.yaml"]),
        ("**/*.yaml", ["a.yaml", "d/b.yaml", "d/e/c.yaml"]),
        ("d/**/*.yaml", ["d/b.yaml", "d/e/c.yaml"]),
        ("d/*/?.yaml", ["d/e/c.yaml"]),
        ("[ab].yaml", ["a.yaml"]),
        ("[!a].yaml", []),
    ],
)
def test_the_glob_walk_matches_what_glob_matches(tmp_path, pattern, names):
    import glob
    import os

    from fixture_migrate.adapters.promptfoo import _glob_files

    for name in ("a.yaml", "d/b.yaml", "d/e/c.yaml", ".h/x.yaml", "d/.y.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("[]")
    ours = sorted(os.path.relpath(p, tmp_path) for p in _glob_files(str(tmp_path), pattern))
    theirs = sorted(os.path.relpath(p, tmp_path) for p in glob.glob(str(tmp_path / pattern), recursive=True))
    assert ours == theirs == names
