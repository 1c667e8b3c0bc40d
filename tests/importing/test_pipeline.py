"""`fixture-migrate import`: the command, detection, refusals, re-import, plugins, pyproject mappings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fixture_migrate.claiming.registry import forget as forget_registries
from fixture_migrate.cli.app import main
from fixture_migrate.contract import rules as c
from fixture_migrate.formats.json_format import JsonDocument
from fixture_migrate.importing.pipeline import merge_target, render_new, same_data
from fixture_migrate.migration.engine import Engine, Options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import property_examples
from tests.import_helpers import EXAMPLES, check_import, plan

SAMPLES = '{"input": "What is 2+2?", "ideal": "4"}\n{"input": "Capital of France?", "ideal": ["Paris"]}\n'
DEST = "skills/math/evals/imported.json"


def run(capsys, *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    data = tmp_path / "vendor" / "evals"
    data.mkdir(parents=True)
    (data / "samples.jsonl").write_text(SAMPLES, encoding="utf-8")
    return tmp_path


def import_to_o(capsys, tmp_path: Path, *args: str | Path, skill: str = "x") -> tuple[int, str, str]:
    """`fixture-migrate import ARGS --out tmp_path/o.json --skill SKILL --repo-root tmp_path`."""
    return run(capsys, "import", *args, "--out", tmp_path / "o.json", "--skill", skill, "--repo-root", tmp_path)


def do_import(capsys, repo: Path, *extra: str | Path) -> tuple[int, str, str]:
    return run(capsys, "import", repo / "vendor/evals/samples.jsonl", "--out", repo / DEST, "--repo-root", repo, *extra)


# --- the command ---------------------------------------------------------------------------


def test_import_writes_dest_and_never_the_sources(capsys, repo):
    source = repo / "vendor/evals/samples.jsonl"
    code, out, err = do_import(capsys, repo)
    assert code == 0 and out == ""
    assert f"imported {repo / DEST}: 2 cases (openai-evals)" in err
    data = json.loads((repo / DEST).read_text(encoding="utf-8"))
    assert data["skill"] == "math"  # from skills/<name>/ in --out
    assert data["source_refs"] == ["vendor/evals/samples.jsonl"]
    assert source.read_text(encoding="utf-8") == SAMPLES
    code, out, _ = run(capsys, "validate", repo / DEST, "--repo-root", repo)
    assert code == 0, out  # the refs exist: authority `source` holds


@pytest.mark.parametrize("flags, code", [(["--check"], 1), (["--diff"], 0), (["--check", "--diff"], 1)])
def test_check_and_diff_write_nothing(capsys, repo, flags, code):
    found, out, _ = do_import(capsys, repo, *flags)
    assert found == code
    assert not (repo / DEST).exists()
    assert ("+++ b/" in out) == ("--diff" in flags)


def test_reimport_gives_the_same_bytes_and_writes_nothing(capsys, repo):
    do_import(capsys, repo)
    before = (repo / DEST).stat().st_mtime_ns, (repo / DEST).read_bytes()
    code, out, err = do_import(capsys, repo, "--check", "--diff")
    assert (code, out) == (0, "")
    code, _, err = do_import(capsys, repo)
    assert code == 0 and "unchanged (2 cases, openai-evals)" in err
    assert ((repo / DEST).stat().st_mtime_ns, (repo / DEST).read_bytes()) == before


def test_a_changed_source_updates_dest_in_place_keeping_its_layout(capsys, repo, monkeypatch, snapshot_diff):
    monkeypatch.chdir(repo)
    do_import(capsys, repo)
    dest = repo / DEST
    # Someone reformats DEST: tabs, CRLF line ends.
    data = json.loads(dest.read_text(encoding="utf-8"))
    dest.write_bytes(json.dumps(data, indent="\t", ensure_ascii=False).replace("\n", "\r\n").encode() + b"\r\n")
    source = repo / "vendor/evals/samples.jsonl"
    source.write_text(SAMPLES.replace('"ideal": "4"', '"ideal": "four"') + '{"input": "2*3?", "ideal": "6"}\n')
    code, out, _ = run(capsys, "import", "vendor/evals/samples.jsonl", "--out", DEST, "--diff")
    assert code == 0
    assert out == snapshot_diff
    code, _, err = do_import(capsys, repo)
    assert code == 0 and "updated" in err
    text = dest.read_bytes()
    assert b"\r\n\t\t{" in text and b"\n  " not in text  # still tabs and CRLF
    fresh = plan([source], repo / "fresh.json", root=repo, skill="math").new_bytes
    assert same_data(json.loads(text), json.loads(fresh))


@pytest.mark.parametrize(
    "existing, message",
    [
        pytest.param('{"keep": "me"}\n', "not a canonical v1 file; not overwritten", id="not-canonical"),
        pytest.param("[1, 2]\n", "not a fixture file", id="not-an-object"),
        pytest.param(
            json.dumps({"schema_version": c.CANONICAL_SCHEMA_VERSION, "skill": "math", "cases": []}),
            "was not written by `fixture-migrate import`; not overwritten",
            id="hand-written-canonical",
        ),
        pytest.param(
            json.dumps(
                {"schema_version": c.CANONICAL_SCHEMA_VERSION, "extensions": {"import": {"format": "promptfoo"}}}
            ),
            "holds an import from promptfoo, not openai-evals",
            id="other-format",
        ),
    ],
)
def test_a_dest_the_import_did_not_write_is_never_overwritten(capsys, repo, existing, message):
    dest = repo / DEST
    dest.parent.mkdir(parents=True)
    dest.write_text(existing)
    code, _, err = do_import(capsys, repo)
    assert code == 2 and message in err
    assert dest.read_text() == existing


@pytest.mark.parametrize(
    "name, text, fmt",
    [
        (
            "dup.jsonl",
            '{"id": "a", "input": "x", "target": "y"}\n{"id": "a", "input": "z", "target": "w"}\n',
            "inspect",
        ),
        ("dup.csv", "id,input,target\n1,x,y\n1,z,w\n", "inspect"),
        (
            "dup.jsonl",
            '{"id": "a", "inputs": {"q": "x"}, "outputs": null}\n{"id": "a", "inputs": {"q": "z"}, "outputs": null}\n',
            "langsmith",
        ),
    ],
    ids=["jsonl", "csv", "langsmith"],
)
def test_a_repeated_text_id_is_renamed_and_kept(capsys, repo, name, text, fmt):
    source = repo / "vendor" / name
    source.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "import", source, "--from", fmt, "--out", repo / DEST, "--repo-root", repo)
    assert code == 0, err
    cases = json.loads((repo / DEST).read_text(encoding="utf-8"))["cases"]
    first, second = (case["id"] for case in cases)
    assert second == f"{first}-2"
    assert "id" not in cases[0]["extensions"]["import"]
    assert cases[1]["extensions"]["import"]["id"] == first
    again = (repo / DEST).read_bytes()
    assert run(capsys, "import", source, "--from", fmt, "--out", repo / DEST, "--repo-root", repo)[0] == 0
    assert (repo / DEST).read_bytes() == again


@pytest.mark.parametrize(
    "proposed, expected",
    [
        (["a", "b"], ["a", "b"]),
        (["a", "a", "a"], ["a", "a-2", "a-3"]),
        (["a", "a", "a-2"], ["a", "a-3", "a-2"]),  # a record's own id is never taken by a repeat
        (["a-2", "a", "a"], ["a-2", "a", "a-3"]),
    ],
)
def test_repeated_ids_take_the_first_free_suffix(proposed, expected):
    from fixture_migrate.importing.base import unique_ids

    assert unique_ids(proposed) == expected


def test_an_import_that_would_lose_a_value_is_refused_naming_it(capsys, repo, monkeypatch):
    from fixture_migrate.importing import pipeline as importing

    real = importing.assemble_payload

    def lossy(*args, **kwargs):
        payload = real(*args, **kwargs)
        payload["cases"][0]["input"] = "changed"
        return payload

    monkeypatch.setattr(importing, "assemble_payload", lossy)
    code, _, err = do_import(capsys, repo)
    assert code == 2
    assert "the import would lose 1 value(s): 'What is 2+2?'; nothing written [conservation]" in err
    assert not (repo / DEST).exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(["--out", "vendor/evals/samples.jsonl"], "--out must name a .json file", id="not-json"),
        pytest.param(["--out", "x.json", "--from", "nope"], "unknown format 'nope'", id="unknown-from"),
        pytest.param(["--out", "x.json", "--field", "input"], "is not NAME=COLUMN", id="bad-field"),
        pytest.param(
            ["--out", "x.json", "--field", "input=q", "--field", "input=r"], "input is given twice", id="field-twice"
        ),
        pytest.param(
            ["--out", "x.json", "--skill", "m", "--field", "input=question"],
            "--field input=question: no record read has a top-level `question` member",
            id="field-names-nothing",
        ),
        pytest.param(
            ["--out", "x.json", "--field", "input=q", "--field", "id=q"],
            "column q is given for two fields",
            id="column-twice",
        ),
        pytest.param(
            ["--out", "x.json", "--source-ref", "a", "--source-ref", "b"], "one --source-ref per SRC", id="refs"
        ),
        pytest.param(["--out", "x.json", "--source-ref", "/abs/path.jsonl"], "repo-relative POSIX path", id="abs-ref"),
        pytest.param(["--out", "x.json"], "pass --skill NAME", id="no-skill"),
    ],
)
def test_bad_usage_exits_2(capsys, repo, monkeypatch, argv, message):
    monkeypatch.chdir(repo)
    code, _, err = run(capsys, "import", "vendor/evals/samples.jsonl", *argv, "--repo-root", repo)
    assert code == 2 and message in err


def test_dest_cannot_be_a_source(capsys, repo, tmp_path):
    canonical_path = repo / "vendor/evals/samples.json"
    (repo / "vendor/evals/samples.jsonl").rename(repo / "vendor/evals/samples.json")
    canonical_path.write_text('[{"input": "a", "target": "b"}]')
    code, _, err = run(capsys, "import", canonical_path, "--out", canonical_path, "--skill", "x", "--repo-root", repo)
    assert code == 2 and "sources are never written" in err


def test_a_source_outside_the_repo_needs_a_source_ref(capsys, repo, tmp_path_factory):
    outside = tmp_path_factory.mktemp("downloads") / "samples.jsonl"
    outside.write_text(SAMPLES)
    argv = ["import", outside, "--out", repo / DEST, "--repo-root", repo]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "pass --source-ref PATH" in err
    code, _, err = run(
        capsys,
        *argv,
        "--source-ref",
        "upstream/registry/data/math/samples.jsonl",
        "--source-ref-authority",
        "historical",
    )
    assert code == 0, err
    data = json.loads((repo / DEST).read_text())
    assert data["source_ref_authority"] == "historical"
    assert data["cases"][1]["source_refs"] == ["upstream/registry/data/math/samples.jsonl#L2"]


def test_a_missing_source_ref_with_source_authority_is_warned(capsys, repo):
    code, _, err = do_import(capsys, repo, "--source-ref", "gone/samples.jsonl")
    assert code == 0
    assert "warning: source ref gone/samples.jsonl is not a file" in err


# --- bad input: a clear error naming the place, exit 2, nothing written ------------------------


@pytest.mark.parametrize(
    "files, source, expected",
    [
        pytest.param(
            {"t.csv": 'question,__expected\n"What?","equals: x"\n"Two",b,c\n'},
            "t.csv",
            "t.csv:3:1: error: malformed CSV row: 3 cells, the header has 2 [csv_row]",
            id="malformed-csv-row",
        ),
        pytest.param(
            {"t.csv": 'input,target\n"unclosed,x\n'},
            "t.csv",
            "malformed CSV: unexpected end of data [csv_syntax]",
            id="unclosed-quote",
        ),
        pytest.param(
            {"s.jsonl": '{"input": "a", "ideal": "b"}\n\n["not", "an", "object"]\n'},
            "s.jsonl",
            "s.jsonl:3:1: error: line is not a JSON object",
            id="jsonl-line-not-object",
        ),
        pytest.param(
            {"s.jsonl": '{"input": "a", "ideal": "b"}\n{"input": "c", "ideal": \n'},
            "s.jsonl",
            "s.jsonl:2:",
            id="jsonl-invalid-line",
        ),
        pytest.param(
            {"cfg/promptfooconfig.yaml": "prompts: [x]\ntests:\n  - vars: {q: file://inputs/missing.txt}\n"},
            "cfg/promptfooconfig.yaml",
            "promptfooconfig.yaml:3:15: error: var file 'inputs/missing.txt' does not exist",
            id="missing-file-ref",
        ),
        pytest.param(
            {
                "secret.yaml": "- type: equals\n  value: secret\n",
                "cfg/promptfooconfig.yaml": "prompts: [x]\ntests:\n  - vars: {q: a}\n    assert: [file://../secret.yaml]\n",
            },
            "cfg/promptfooconfig.yaml",
            "promptfooconfig.yaml:4:14: error: assertions file '../secret.yaml' leaves",
            id="file-ref-outside-the-config-folder",
        ),
        pytest.param(
            {"big.jsonl": "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 1200\n"},
            "big.jsonl",
            "big.jsonl:1:1: error: a Git LFS pointer, not the data",
            id="lfs-pointer",
        ),
        pytest.param(
            {"c.json": json.dumps({"schema_version": c.CANONICAL_SCHEMA_VERSION, "skill": "x", "cases": []})},
            "c.json",
            "already a canonical v1 file",
            id="canonical",
        ),
        pytest.param(
            {"a.json": '[{"input": "a", "target": "b", "expected_output": "c"}]'},
            "a.json",
            "ambiguous: the content fits inspect, deepeval; say which with --from [ambiguous]",
            id="ambiguous",
        ),
        pytest.param(
            {"f.jsonl": '{"sample": [{"role": "system", "content": "x"}]}\n'},
            "f.jsonl",
            "refused: a few-shot file",
            id="few-shot",
        ),
        pytest.param(
            {"k.json": '{"should_trigger": ["xcode"], "should_not_trigger": ["gpu"]}'},
            "k.json",
            "refused: a keyword trigger list",
            id="trigger-list-without-queries",
        ),
        pytest.param({"n.txt": "hello"}, "n.txt", "unsupported file type .txt", id="unsupported"),
        pytest.param({"e.yaml": "a: [1\n"}, "e.yaml", "e.yaml:2:1: error: invalid YAML", id="invalid-yaml"),
    ],
)
def test_bad_input_is_a_clear_error_and_nothing_is_written(capsys, tmp_path, files, source, expected):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = import_to_o(capsys, tmp_path, tmp_path / source)
    assert code == 2
    assert expected in err
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / "o.json").exists()


def test_every_bad_source_is_reported(capsys, tmp_path):
    (tmp_path / "a.jsonl").write_text("[1]\n")
    (tmp_path / "b.csv").write_text("x,y\n1\n")
    code, _, err = import_to_o(capsys, tmp_path, tmp_path / "a.jsonl", tmp_path / "b.csv")
    assert code == 2 and "a.jsonl:1:1" in err and "b.csv:2:1" in err


def test_sources_of_different_formats_are_refused(capsys, tmp_path):
    (tmp_path / "a.jsonl").write_text('{"input": "a", "ideal": "b"}\n')
    (tmp_path / "b.json").write_text('[{"inputs": {"q": "a"}, "outputs": null}]')
    code, _, err = import_to_o(capsys, tmp_path, tmp_path / "a.jsonl", tmp_path / "b.json")
    assert code == 2 and "a.jsonl is openai-evals, " in err and "b.json is langsmith" in err


def test_an_import_that_would_not_validate_is_refused(capsys, tmp_path):
    (tmp_path / "s.jsonl").write_text('{"input": "a", "ideal": "b"}\n{"input": "   ", "ideal": "c"}\n')
    code, _, err = import_to_o(capsys, tmp_path, tmp_path / "s.jsonl")
    assert code == 2 and "s.jsonl:2: error: the imported case" in err and "[missing_input]" in err


# --- import adapters never claim a file in `migrate` ------------------------------------------


def test_external_formats_are_left_alone_by_migrate():
    engine = Engine(Options(repo_root=EXAMPLES.parents[1]))
    files = [p for p in EXAMPLES.rglob("*") if p.suffix in (".json", ".jsonl")]
    results = {p.name: engine.plan(p) for p in files}
    objects = [name for name, r in results.items() if r.status != "error"]
    # Left untouched, each named as another tool's file with the `import --from` that takes it.
    assert objects and all(results[name].status in ("other_tool", "not_fixture") for name in objects)
    assert any(results[name].import_from for name in objects)


# --- re-import: the in-place update equals a fresh render ------------------------------------

_scalars = (
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False)
) | st.text(max_size=6)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)
_cases = st.lists(
    st.fixed_dictionaries({"id": st.sampled_from("abcdef")}, optional={"input": st.text(max_size=5), "x": _values}),
    max_size=5,
    unique_by=lambda case: case["id"],
)
_payloads = st.fixed_dictionaries({"cases": _cases}, optional={"skill": st.text(max_size=4), "extensions": _values})


def _ordered(value):
    """`value` with its members in one fixed order, as an adapter writes them (a DEST holding
    the same data in another member order keeps its order: that is not a change)."""
    if isinstance(value, dict):
        return {key: _ordered(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_ordered(item) for item in value]
    return value


@settings(max_examples=property_examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(old=_payloads.map(_ordered), new=_payloads.map(_ordered))
def test_an_update_in_place_is_the_new_data_in_the_layout_a_fresh_import_has(old, new):
    raw = render_new(old)
    updated = JsonDocument(Path("x.json"), raw).render([merge_target(new, old)])
    assert same_data(json.loads(updated), new)
    assert updated == render_new(new)


# --- third-party adapters: entry points -------------------------------------------------------

QUIZ_PLUGIN = '''
"""A tiny import adapter shipped by a third-party distribution."""

from fixture_migrate.importing.base import Draft, ImportAdapter, Sniff, content_id


class QuizCards(ImportAdapter):
    name = "quiz_cards"
    format = "quiz-cards"
    tag = "quiz-cards"
    namespace = "quiz_cards"
    summary = "flash cards {front, back}: import only"
    id_rule = "card-<sha256 of front>"

    def sniff(self, source):
        if isinstance(source.data, dict) and isinstance(source.data.get("cards"), list):
            return Sniff("cases", "quiz cards")
        return None

    def build(self, sources, job):
        drafts = []
        for source in sources:
            job.description = source.data.get("title")
            for record in source.records(("cards",)):
                card = dict(record.data)
                front, back = card.pop("front"), card.pop("back")
                drafts.append(Draft(record, content_id("card", front), front, back, ["expected"], extensions=card))
        return drafts
'''


def install_distribution(site: Path, name: str, module: str, code: str, entry_points: str) -> None:
    """A minimal installed distribution: a module and a `.dist-info` declaring entry points."""
    (site / f"{module}.py").write_text(code, encoding="utf-8")
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[fixture_migrate.adapters]\n{entry_points}\n", encoding="utf-8")


@pytest.fixture
def site(tmp_path, monkeypatch):
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    forget_registries()
    yield path
    forget_registries()
    for module in ("quiz_cards_plugin", "clashing_plugin"):
        sys.modules.pop(module, None)


def test_a_plugin_adapter_imports_its_format(capsys, site, tmp_path, snapshot_json):
    install_distribution(
        site, "quiz-cards-adapter", "quiz_cards_plugin", QUIZ_PLUGIN, "quiz = quiz_cards_plugin:QuizCards"
    )
    cards = tmp_path / "deck.json"
    cards.write_text(json.dumps({"title": "Capitals", "cards": [{"front": "France?", "back": "Paris", "hint": "P"}]}))
    code, out, _ = run(capsys, "adapters")
    assert "quiz_cards" in out and "external" in out
    text = check_import([cards], tmp_path / "out" / "cards.json", root=tmp_path, skill="geo")
    assert text == snapshot_json
    code, _, err = import_to_o(capsys, tmp_path, cards, "--from", "quiz-cards", skill="geo")
    assert code == 0, err


def test_a_plugin_that_fails_to_load_is_reported_by_distribution_and_skipped(capsys, site, repo):
    install_distribution(
        site, "broken-adapter", "broken_plugin", "raise ImportError('no such thing')", "b = broken_plugin:X"
    )
    code, _, err = do_import(capsys, repo)
    assert code == 0
    assert "warning: adapter plugin 'b' of broken-adapter failed to load (ImportError: no such thing); skipped" in err


def test_a_plugin_named_like_a_built_in_is_an_error(capsys, site, repo):
    code = QUIZ_PLUGIN.replace('name = "quiz_cards"', 'name = "promptfoo"')
    install_distribution(site, "clashing-adapter", "clashing_plugin", code, "pf = clashing_plugin:QuizCards")
    found, _, err = do_import(capsys, repo)
    assert found == 2
    assert "adapter plugin 'pf' of clashing-adapter is named 'promptfoo', like a built-in adapter" in err


def test_a_plugin_bug_is_one_line_and_exit_2(capsys, site, tmp_path):
    code = QUIZ_PLUGIN.replace("drafts = []", "drafts = [][5]")
    install_distribution(site, "quiz-cards-adapter", "quiz_cards_plugin", code, "quiz = quiz_cards_plugin:QuizCards")
    cards = tmp_path / "deck.json"
    cards.write_text('{"cards": []}')
    found, _, err = import_to_o(capsys, tmp_path, cards)
    assert found == 2
    assert "error: internal error: IndexError: list index out of range [internal]" in err
    assert "Traceback" not in err


# --- simple local formats: pyproject.toml field mappings --------------------------------------

PYPROJECT = """\
[project]
name = "support-bot"

[tool.fixture-migrate.adapters.qa-sheet]
summary = "QA sheet exported from the review spreadsheet"
id = "qid"
input = "question"
expected_outcome = "answer"
coverage_tags = "tags"
forbidden_signals = "must_not"
defaults = { boundary_note = "Reviewed by the QA team." }
"""
QA_CSV = """\
qid,question,answer,tags,must_not,reviewer
1,What is the refund window?,30 days,"Billing, refunds",lawyer,ana
2,Can I change my address?,Yes after the identity check,,,bo
"""


def test_a_pyproject_mapping_imports_a_local_format(capsys, tmp_path, snapshot_json):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "qa.csv").write_text(QA_CSV)
    text = check_import(
        [tmp_path / "qa.csv"], tmp_path / "skills/support/evals/qa.json", root=tmp_path, fmt="qa-sheet", skill=None
    )
    assert text == snapshot_json
    first = json.loads(text)["cases"][0]
    assert (first["id"], first["coverage_tags"], first["forbidden_signals"]) == (
        "1",
        ["billing", "refunds"],
        ["lawyer"],
    )
    assert first["extensions"]["qa_sheet"]["reviewer"] == "ana"  # unmapped fields go to extensions
    code, _, err = import_to_o(capsys, tmp_path, tmp_path / "qa.csv")
    assert code == 2 and "unknown_format" in err  # mappings are never detected, only named


def test_mappings_come_from_the_configuration_file(capsys, tmp_path):
    (tmp_path / "fixtures.toml").write_text(PYPROJECT)
    (tmp_path / "qa.csv").write_text(QA_CSV)
    code, _, err = run(
        capsys,
        "import",
        tmp_path / "qa.csv",
        "--from",
        "qa-sheet",
        "--out",
        tmp_path / "o.json",
        "--config",
        tmp_path / "fixtures.toml",
        "--repo-root",
        tmp_path,
        "--skill",
        "x",
    )
    assert code == 0, err
    assert json.loads((tmp_path / "o.json").read_text())["coverage_tags"] == ["qa-sheet"]


@pytest.mark.parametrize(
    "table, message",
    [
        pytest.param('[tool.fixture-migrate.adapters.x]\nid = "a"\n', "`input` is required", id="no-input"),
        pytest.param('[tool.fixture-migrate.adapters.x]\ninput = "q"\ninptu = "z"\n', "unknown key 'inptu'", id="typo"),
        pytest.param(
            '[tool.fixture-migrate.adapters.promptfoo]\ninput = "q"\n', "named like an existing adapter", id="clash"
        ),
        pytest.param("[tool.fixture-migrate.adapters.x\n", "cannot read the adapter tables", id="bad-toml"),
    ],
)
def test_a_bad_pyproject_mapping_exits_2(capsys, tmp_path, table, message):
    (tmp_path / "pyproject.toml").write_text(table)
    (tmp_path / "qa.csv").write_text(QA_CSV)
    code, _, err = import_to_o(capsys, tmp_path, tmp_path / "qa.csv", "--from", "x")
    assert code == 2 and message in err and "pyproject.toml" in err


def test_an_alias_bomb_or_an_oversized_source_is_refused_unread(capsys, repo, monkeypatch):
    config = repo / "pf" / "promptfooconfig.yaml"
    config.parent.mkdir()
    text = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        text += f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join(["*" + chr(96 + i)] * 9) + "]\n"
    config.write_text(text + "tests:\n  - vars: {question: hi, bomb: *i}\n")
    code, _, err = run(capsys, "import", config, "--out", repo / DEST, "--repo-root", repo)
    assert code == 2 and "expands to more than 1,000,000 values" in err
    monkeypatch.setattr("fixture_migrate.formats.limits.MAX_FILE_BYTES", 64)
    code, _, err = do_import(capsys, repo)
    assert code == 2 and "[too_large]" in err
    assert not (repo / DEST).exists()
