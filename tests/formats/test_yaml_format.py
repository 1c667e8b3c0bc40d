"""YAML fixtures: reading (`yaml_format`) and format-preserving writing (`yaml_text`)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fixture_migrate.cli.app import main
from fixture_migrate.formats import load_document
from fixture_migrate.formats.yaml_text import double_quoted, plain_ok, plain_value, tagged_value
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from tests.formats.syntax_checks import (
    check_syntax_migration,
    corpus_entries,
    json_migration,
    legacy_payloads,
    migrated_units,
    outcome,
    units,
    without_source_file,
)
from tests.helpers import CORPUS_ABSENT, migrate_sample, property_examples

PATH = "skills/demo-skill/evals/cases.yaml"

PROMPT_EXAMPLES = """\
# Review examples for the demo skill.
schema_version: prompt-examples/v1  # legacy family
skill: demo-skill
source_refs: [skills/demo-skill/SKILL.md]
examples:
  # the happy path
  - name: Asks for a Review
    user_intent: Please review the attached plan.
    expected_posture: >-
      Review the plan and
      lead with findings.
    # what must not happen
    negative_signal: Rewrites the plan without being asked.  # too eager
    context_snippets:
      - Review Scope
      - 'Findings First'

  # out of scope
  - name: "café order — no trigger"
    user_intent: 'Order me a coffee.'
    expected_posture: "Decline: out of scope."
    coverage_tags: [boundary]
"""

SPEC_PRD = """\
schema_version: spec-prd-evals.v1
skill: spec-prd
source_refs:
    - skills/spec-prd/SKILL.md
case_contract:
    required: [id, intent, expected]
cases:
    -   id: prd-1
        intent: Write a PRD for the export feature.
        input_shape: feature request with two constraints
        expected: a PRD with goals, non-goals and open questions
        coverage_tags: [trigger, expected]
        must_not:
            - invents metrics
            - skips non-goals
        case_type: happy-path
    -   id: prd-2
        intent: Fix a typo in the README.
        expected: route away
        coverage_tags: [boundary]
        quality_buckets: {clarity: 2, scope: 1}
"""

TASKS_BOUNDARY = """\
x-defaults: &defaults
  source_ref_authority: historical
  source_refs: [skills/demo-skill/SKILL.md]
schema_version: spec-first.spec-write-tasks-boundary-cases.v1
skill: demo-skill
source_ref_authority: source
cases:
  - <<: *defaults
    id: no-plan
    input: Write tasks with no plan.
    context: &ctx
      repo: empty
    expected_decision: stop   # hard stop
    expected_next_action: ask for the plan
    coverage_tags: [boundary]
  - id: with-plan
    input: Write tasks from the approved plan.
    context: *ctx
    expected_decision: proceed
    boundary_note: Only with an approved plan.
    coverage_tags: [boundary]
    dispatch_authorization: ~
"""

YAO_TRIGGERS = """\
schema_version: yao.semantic-trigger-cases.v1
coverage_tags: [trigger]
source_refs: [skills/demo-skill/SKILL.md]
should_trigger:
  - text: write the tasks for this plan   # the plain ask
    family: direct
  - break this spec into tasks
should_not_trigger:
  - {text: "what is a task?", family: question}
near_neighbor:
  - text: review my tasks
recommended_threshold: 0.72
"""

TEAM_TRIGGERS = """\
schema_version: team-standards-trigger-evals/v1
coverage_tags:
- trigger
source_refs:
- skills/demo-skill/SKILL.md
cases:
- case_id: T-01
  prompt: Apply the team standards to this diff.
  expected_result: standards review
  case_type: trigger
- case_id: T-02
  prompt: |
    Summarise the meeting notes.
    Keep it short.
  expected_result: route away
  reason_code: out-of-scope
"""

CANONICAL_STRAY = """\
schema_version: spec-first.workflow-eval-fixtures.v1
skill: demo-skill
source_refs: [skills/demo-skill/SKILL.md]
coverage_tags: [trigger]
cases:
  - id: one
    input: Do the thing.
    expected_outcome: done
    must_find: the thing   # checked by hand
  - id: two
    input: Do nothing.
    expected_outcome: nothing
"""

OUTPUT_CASES = """\
# recorded output cases, one mapping a case
- id: case-1
  prompt: Write the tasks.   # the ask
  with_skill_output: tasks
  assertions: [has-ids, has-estimates]
- id: case-2
  baseline_output: ""
  prompt: |
    Write the tasks,
    then stop.
  metadata: {run: 3}
"""

GENERIC_FLOW = """\
{
  "schema_version": "local-evals/v2",
  "owner": "team-a",
  "cases": [
    {"name": "JSON-like YAML", "user_intent": "hi", "expected": "a wave", "extra": [1, 2]},  # first
    # second
    {"name": "Two", "user_intent": "yo", "expected": "a nod"}
  ]
}
"""


@pytest.mark.parametrize(
    ("source", "adapter"),
    [
        pytest.param(PROMPT_EXAMPLES, "prompt_examples_v1", id="prompt-examples"),
        pytest.param(SPEC_PRD, "spec_prd_evals_v1", id="spec-prd-four-space"),
        pytest.param(TASKS_BOUNDARY, "spec_write_tasks_boundary_cases_v1", id="tasks-boundary-anchors-merge"),
        pytest.param(YAO_TRIGGERS, "yao_semantic_trigger_cases_v1", id="yao-triggers"),
        pytest.param(TEAM_TRIGGERS, "team_standards_trigger_evals_v1", id="team-triggers-indentless"),
        pytest.param(CANONICAL_STRAY, "canonical", id="canonical-stray-member"),
        pytest.param(OUTPUT_CASES, "output_cases_jsonl", id="output-cases-list"),
        pytest.param(GENERIC_FLOW, "generic", id="generic-flow-style"),
    ],
)
def test_migrates(source, adapter, snapshot_yaml, snapshot_diff):
    check_syntax_migration(source, [adapter], snapshot_yaml, snapshot_diff, PATH)


def _lines_of(text: str, start: str, count: int) -> list[str]:
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(start))
    return lines[i : i + count]


def test_comments_move_with_their_members():
    after = migrate_sample(PROMPT_EXAMPLES, PATH).after
    # The lead comment and the end-of-line comment of `negative_signal` moved with it.
    assert (
        "    # what must not happen\n"
        "    forbidden_signals: [Rewrites the plan without being asked.]  # too eager\n" in after
    )
    # A member's own end-of-line comment goes with it into extensions.
    assert "  migrated_from: prompt-examples/v1  # legacy family\n" in after
    # Comments between cases stay between them; the file header stays on top.
    assert after.startswith("# Review examples for the demo skill.\n")
    assert "\n  # out of scope\n  - id: caf-order-no-trigger\n" in after
    after = migrate_sample(CANONICAL_STRAY, PATH).after
    assert "    extensions:\n      must_find: the thing   # checked by hand\n" in after


def test_only_moved_or_renamed_lines_change():
    """The issue's "done when": the diff of a migrated file with comments touches only the
    lines of members that moved or were renamed (plus the new members)."""
    migrated = migrate_sample(PROMPT_EXAMPLES, PATH)
    removed = [line[1:] for line in migrated.diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert removed == [
        "schema_version: prompt-examples/v1  # legacy family",
        "examples:",
        "  - name: Asks for a Review",
        "    user_intent: Please review the attached plan.",
        "    expected_posture: >-",
        "    negative_signal: Rewrites the plan without being asked.  # too eager",
        "    context_snippets:",
        "      - Review Scope",
        "      - 'Findings First'",
        '  - name: "café order — no trigger"',
        "    user_intent: 'Order me a coffee.'",
        '    expected_posture: "Decline: out of scope."',
    ]
    for kept in ("skill: demo-skill", "source_refs: [skills/demo-skill/SKILL.md]", "      lead with findings."):
        assert f"\n {kept}\n" in "\n" + migrated.diff


def test_anchors_aliases_and_merge_keys_keep_working():
    migrated = migrate_sample(TASKS_BOUNDARY, PATH)
    after = migrated.after
    assert "  x-defaults: &defaults\n" in after
    assert "  - <<: *defaults\n" in after
    assert "      context: &ctx\n" in after and "      context: *ctx\n" in after
    (data,) = units(PATH, after)
    first, second = data["cases"]
    # The merge still gives the first case the shared members; the alias still the shared context.
    assert first["source_refs"] == ["skills/demo-skill/SKILL.md"]
    assert first["extensions"]["context"] == second["extensions"]["context"] == {"repo": "empty"}
    # What every YAML reader sees agrees with fixture-migrate's reading.
    assert YAML(typ="safe", pure=True).load(after)["cases"][0]["source_refs"] == ["skills/demo-skill/SKILL.md"]


def test_local_tags_are_kept_as_written():
    source = "schema_version: prompt-examples/v1\nexamples:\n  - name: A\n    user_intent: !prompt Say hi.\n    fixture: !include fixtures/a.md\n"
    after = migrate_sample(source, PATH).after
    assert "    input: !prompt Say hi.\n" in after
    assert "      fixture: !include fixtures/a.md\n" in after
    # Tags are never constructed: a tagged scalar reads as its text.
    assert units(PATH, source)[0]["examples"][0]["fixture"] == "fixtures/a.md"


SCALARS = """\
schema_version: prompt-examples/v1
examples:
  - name: Scalars
    user_intent: Keep every scalar as written.
    flag_yes: yes
    flag_no: no
    flag_on: on
    flag_off: off
    flag_y: y
    mode: 0755
    octal: 0o14
    hex: 0x1F
    big: 1e3
    sexagesimal: 1:30
    nothing: ~
    empty:
    day: 2024-01-02
    stamp: 2001-12-14t21:59:43.10-05:00
    inf: .inf
    quoted_yes: 'yes'
    number: 12
    real: 1.50
"""


@pytest.mark.filterwarnings("ignore::ruamel.yaml.error.MantissaNoDotYAML1_1Warning")
@pytest.mark.parametrize("version", [(1, 1), (1, 2)])
def test_scalars_keep_their_written_form_for_every_reader(version):
    migrated = migrate_sample(SCALARS, PATH)
    after = migrated.after
    for line in SCALARS.splitlines()[4:]:
        assert "  " + line in after  # each moved member's text, one level deeper, as written
    reader = YAML(typ="safe", pure=True)
    reader.version = version
    before = reader.load(SCALARS)["examples"][0]
    moved = reader.load(after)["cases"][0]["extensions"]
    for key, value in before.items():
        if key not in ("user_intent", "name"):
            assert moved[key] == value and type(moved[key]) is type(value), key


def test_scalars_read_as_every_reader_agrees():
    (data,) = units(PATH, SCALARS)
    case = data["examples"][0]
    assert case["flag_yes"] == "yes" and case["flag_off"] == "off" and case["flag_y"] == "y"
    assert case["mode"] == "0755" and case["hex"] == "0x1F" and case["big"] == "1e3"
    assert case["day"] == "2024-01-02" and case["inf"] == ".inf" and case["sexagesimal"] == "1:30"
    assert case["nothing"] is None and case["empty"] is None
    assert case["number"] == 12 and case["real"] == 1.5


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("~", None),
        ("null", None),
        ("", None),
        ("True", True),
        ("false", False),
        ("-12", -12),
        ("0", 0),
        ("1.5", 1.5),
        ("-.5", -0.5),
        ("1.0e+3", 1000.0),
        ("yes", "yes"),
        ("No", "No"),
        ("0755", "0755"),
        ("1e3", "1e3"),
        ("1_000", "1_000"),
        ("2024-01-02", "2024-01-02"),
        (".NaN", ".NaN"),
        ("1.0e999", "1.0e999"),
    ],
)
def test_plain_value(text, value):
    read = plain_value(text)
    assert read == value and type(read) is type(value)


def test_tagged_value_never_constructs():
    assert tagged_value("tag:yaml.org,2002:int", "3") == 3
    assert tagged_value("tag:yaml.org,2002:str", "3") == "3"
    assert tagged_value("tag:yaml.org,2002:int", "0755") == "0755"
    assert tagged_value("tag:yaml.org,2002:python/object:os.system", "rm -rf /") == "rm -rf /"
    assert tagged_value("!local", "x") == "x"


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("spec-first.workflow-eval-fixtures.v1", True),
        ("case-1", True),
        ("yes", False),
        ("n", False),
        ("0755", False),
        ("1e3", False),
        ("2024-01-02", False),
        ("null", False),
        ("a: b", False),
        ("#tag", False),
        (" padded", False),
        ("- item", False),
        ("line\nbreak", False),
        ("", False),
    ],
)
def test_new_strings_are_plain_only_where_every_reader_agrees(value, plain):
    assert plain_ok(value) is plain
    if not plain:
        for version in ((1, 1), (1, 2)):
            reader = YAML(typ="safe", pure=True)
            reader.version = version
            assert reader.load(f"k: {double_quoted(value)}")["k"] == value


def test_crlf_bom_markers_and_no_final_newline_are_kept():
    source = (
        "\ufeff%YAML 1.2\r\n---\r\nschema_version: prompt-examples/v1\r\nexamples:\r\n"
        "  - name: CRLF case   # c\r\n    user_intent: hi\r\n...\r\n"
    ).encode()
    migrated = migrate_sample(source, PATH)
    raw = migrated.result.new_bytes
    assert raw is not None and raw.startswith(b"\xef\xbb\xbf%YAML 1.2\r\n---\r\n")
    assert raw.endswith(b"\r\n...\r\n") and b"\n" not in raw.replace(b"\r\n", b"")
    no_newline = "schema_version: prompt-examples/v1\nexamples:\n  - name: Last\n    user_intent: hi"
    after = migrate_sample(no_newline, PATH).after
    assert not after.endswith("\n") and after.endswith("      name: Last")


MULTI = """\
# two fixtures and a config
schema_version: prompt-examples/v1
examples:
  - name: First doc
    user_intent: one
---
scorer: semantic
threshold: 0.7
...
---
schema_version: spec-first.workflow-eval-fixtures.v1
skill: demo-skill
cases:
  - id: canonical
    input: two
    note: stray
"""


def test_multi_document_streams():
    migrated = migrate_sample(MULTI, PATH)
    assert migrated.result.adapters == ["prompt_examples_v1", "canonical"]
    after = migrated.after
    assert "---\nscorer: semantic\nthreshold: 0.7\n...\n---\n" in after
    first, config, last = after.split("\n---\n")
    assert "cases:\n  - id: first-doc\n" in first
    assert config == "scorer: semantic\nthreshold: 0.7\n..."
    assert last.endswith("    input: two\n    extensions:\n      note: stray\n")
    document = load_document(Path(PATH), MULTI.encode())
    assert [unit.label for unit in document.units] == ["document 1", "document 2", "document 3"]


LONG = "This line is far longer than any width a YAML emitter folds at, " * 6


def test_long_strings_are_never_refolded():
    source = (
        "schema_version: prompt-examples/v1\nexamples:\n  - name: Long\n"
        f"    user_intent: {LONG.strip()}\n"
        f'    context: "{LONG.strip()} \\u00e9"\n'
        "    source_note: >\n      folded text that\n      spans lines\n"
    )
    after = migrate_sample(source, PATH).after
    assert f"    input: {LONG.strip()}\n" in after
    assert f'      context: "{LONG.strip()} \\u00e9"\n' in after
    assert "      source_note: >\n        folded text that\n        spans lines\n" in after


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "schema_version: prompt-examples/v1\nexamples:\n    -   name: A\n        user_intent: hi\n",
            "cases:\n    -   id: a\n        input: hi\n        extensions:\n            name: A\n",
            id="four-space",
        ),
        pytest.param(
            "schema_version: prompt-examples/v1\nexamples:\n- name: A\n  user_intent: hi\n",
            "cases:\n- id: a\n  input: hi\n  extensions:\n    name: A\n",
            id="indentless",
        ),
    ],
)
def test_new_members_follow_the_file_indentation(source, expected):
    assert migrate_sample(source, PATH).after.endswith(expected)


def _run(tmp_path: Path, name: str, text: str, capsys) -> tuple[int, str, bytes]:
    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    code = main(["migrate", str(target), "--repo-root", str(tmp_path)])
    return code, capsys.readouterr().err, target.read_bytes()


BAD_INPUT = [
    pytest.param(
        "schema_version: x\ncases:\n  - id: a\n   bad: [\n",
        ":4:4: error: invalid YAML",
        "invalid_yaml",
        id="syntax-error",
    ),
    pytest.param(
        'schema_version: x\ncases:\n  - id: a\n    input: "x\x7fy"\n',
        ":4:14: error: invalid YAML: unacceptable character #x007f",
        "invalid_yaml",
        id="forbidden-character",
    ),
    pytest.param(
        "schema_version: x\ncases:\n  - id: a\n    id: b\n",
        ":4:5: error: duplicate key 'id' in one mapping",
        "duplicate_key",
        id="duplicate-key",
    ),
    pytest.param(
        "schema_version: prompt-examples/v1\nexamples:\n  - name: A\n    note: &n shared\n    user_intent: *n\n",
        ":4:11: error: refused: in the migrated file the alias *n has no anchor before it",
        "yaml_alias",
        id="anchor-would-follow-alias",
    ),
    pytest.param(
        "base: &b\n  case_type: trigger\nschema_version: prompt-examples/v1\nexamples:\n  - <<: *b\n    name: A\n",
        ":5:5: error: member 'case_type' comes from the merge key '<<'",
        "yaml_merge",
        id="merged-member-must-move",
    ),
    pytest.param("a: &x [*x]\ncases: []\n", "recursive alias *x", "yaml_alias", id="recursive-alias"),
    pytest.param(
        "schema_version: prompt-examples/v1\nexamples:\n- &first\n  name: A\n  user_intent: hi\n- name: B\n  user_intent: *first\n",
        ":3:3: error: the migration would change the mapping anchored as &first, which *first repeats elsewhere",
        "yaml_alias",
        id="aliased-case-would-change",
    ),
    pytest.param(
        "base: &case {name: Shared, user_intent: hi}\nschema_version: prompt-examples/v1\nexamples:\n  - *case\n",
        ":4:5: error: the migration would change the value written as the alias *case",
        "yaml_alias",
        id="alias-case-would-change",
    ),
]


@pytest.mark.parametrize(("text", "message", "code"), BAD_INPUT)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, text, message, code):
    status, err, after = _run(tmp_path, "cases.yaml", text, capsys)
    assert status == 2
    assert message in err and f"[{code}]" in err
    assert after == text.encode()


def test_aliases_cannot_expand_without_bound(tmp_path, capsys):
    rows = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    status, err, _ = _run(tmp_path, "bomb.yaml", "\n".join(rows) + "\ncases: []\n", capsys)
    assert status == 2 and "[too_large]" in err


def test_directory_walk_reads_yaml_and_yml(tmp_path, capsys):
    (tmp_path / "a.yaml").write_text(PROMPT_EXAMPLES, encoding="utf-8")
    (tmp_path / "b.yml").write_text(CANONICAL_STRAY, encoding="utf-8")
    (tmp_path / "ci.yml").write_text("on: push\njobs: {}\n", encoding="utf-8")
    code = main(["detect", str(tmp_path), "--repo-root", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines() == [
        f"{(tmp_path / 'a.yaml').as_posix()}: prompt_examples_v1 (family)",
        f"{(tmp_path / 'b.yml').as_posix()}: canonical",
        f"{(tmp_path / 'ci.yml').as_posix()}: not a fixture",
    ]


@settings(max_examples=property_examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legacy_payloads(), st.integers(0, 1))
def test_any_payload_as_yaml_migrates_as_json_does(data, variant):
    text = _to_yaml(data, variant, width=30)
    # ruamel's emitter can fold a double-quoted scalar right after an escape (`"\x06` then
    # `0 0` on the next line reads back as `\x06 0 0`): such a text holds other data, which
    # is no case of this property.
    assume(YAML(typ="safe").load(text) == data)
    expected = outcome("skills/demo/evals/a.json", json.dumps(data, ensure_ascii=False).encode())
    got = outcome("skills/demo/evals/a.yaml", text.encode())
    assert got == expected or (expected[0] == got[0] == "error")


ENTRIES = corpus_entries()


def _to_yaml(data, variant: int, width: int = 4096) -> str:
    dumper = YAML(typ="rt")
    if variant:
        dumper.indent(mapping=2, sequence=4, offset=2)
        dumper.width = width
    buffer = io.StringIO()
    dumper.dump(data, buffer)
    return buffer.getvalue()


@pytest.mark.skipif(not ENTRIES, reason=CORPUS_ABSENT)
@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.name[:3] for entry in ENTRIES])
def test_corpus_converted_to_yaml_migrates_as_json_does(entry):
    """Each corpus file, converted to YAML in memory (alternately folded at ruamel's default
    width with indentless sequences, and unfolded with indented ones), migrates to what
    the JSON migration gives, read back; its reference view is the JSON file's."""
    root, relative, _, data, (_, expected, json_view) = json_migration(entry)
    converted = _to_yaml(data, int(entry.name[:3]) % 2).encode("utf-8")
    _, got, yaml_view = migrated_units(root, relative.with_suffix(".yaml"), converted)
    assert got == expected
    assert without_source_file(yaml_view) == without_source_file(json_view)


def alias_bomb(uses: int, length: int = 64 * 1024, key: bool = False) -> str:
    """A fixture with one anchored string of `length` characters aliased `uses` times: far
    under the values limit, but megabytes of text once every alias is copied out."""
    if key:  # the long text in a mapping of its own, aliased as a whole
        head = f"  - name: first\n    extra: &big {{k: {'x' * length}}}\n    user_intent: a\n    expected_posture: ok"
        rest = [f"  - name: c{i}\n    extra: *big\n    user_intent: a\n    expected_posture: ok" for i in range(uses)]
    else:
        head = f"  - name: first\n    user_intent: &big {'x' * length}\n    expected_posture: ok"
        rest = [f"  - name: c{i}\n    user_intent: *big\n    expected_posture: ok" for i in range(uses)]
    return "\n".join(["schema_version: prompt-examples/v1", "skill: demo", "examples:", head, *rest]) + "\n"


@pytest.mark.parametrize("key", [False, True], ids=["scalar", "mapping"])
def test_alias_amplification_of_text_is_refused_before_it_is_copied_out(key):
    """The guard counts the characters aliases expand to, not only the values."""
    from fixture_migrate.errors import FixtureError

    text = alias_bomb(300, key=key)  # ~20 MB of text from ~80 KB of YAML
    with pytest.raises(FixtureError) as caught:
        load_document(Path("evals/bomb.yaml"), text.encode())
    assert caught.value.code == "too_large" and "characters of text through its aliases" in caught.value.message
    assert caught.value.line is not None, "placed where the limit is passed"


def test_a_few_aliases_of_long_text_are_still_read():
    (unit,) = load_document(Path("evals/ok.yaml"), alias_bomb(20).encode()).units
    intents = [case["user_intent"] for case in unit.data["examples"]]
    assert len(intents) == 21 and intents[-1] == intents[0] == "x" * 64 * 1024


LEAN_SAMPLES = [
    pytest.param("a: &a {x: 1, y: 2}\nb:\n  y: 3\n  <<: *a\n  z: 4\n", id="merge"),
    pytest.param("a: &a {x: 1}\nb: &b {x: 2, w: 0}\nc:\n  k: v\n  <<: [*a, *b]\n  j: 0\n", id="merge-list"),
    pytest.param("a: &a {p: 1}\nb: &b\n  <<: *a\n  q: 2\nc:\n  <<: *b\n  p: 0\n", id="merge-of-merge"),
    pytest.param("a: &a {p: 1}\nc:\n  <<: []\n  <<: *a\n", id="two-merges"),
    pytest.param("m:\n  <<: 3\n", id="merge-scalar"),
    pytest.param("a: &a {x: 1}\nm:\n  <<: [*a, 3]\n", id="merge-list-scalar"),
    pytest.param("a: 1\nb: 2\na: 3\n", id="duplicate"),
    pytest.param("a: &a [x, *a]\n", id="recursive-alias"),
    pytest.param("a: *nowhere\n", id="undefined-alias"),
    pytest.param("? a\n: b\n", id="explicit-key"),
    pytest.param("{[1]: 2}\n", id="collection-key"),
    pytest.param("- a: 1\n- b: [2, {c: 3}]\n", id="case-list"),
    pytest.param("a: 1\n---\n- x\n- y\n---\n...\n", id="stream"),
    pytest.param("a:\nb:\nc: []\nd:\n  -\n  - ''\n", id="empty-values"),
    pytest.param("a: !!int 3\nb: !x {c: 1}\nc: !!str 4\nd: &s !!float 1\ne: *s\n", id="tags"),
    pytest.param("a: |\n  # not a comment\n  b\nc: 'x # y'  # real\nd: e#f\n", id="hashes"),
    pytest.param("a: [1, {b: 2}, [c, d]]\nnull: ~\n1: 2\n", id="flow-and-odd-keys"),
    pytest.param("a: [1, 2\n", id="invalid"),
    pytest.param("a: \"\\ud800\"\n", id="lone-surrogate"),
]


@pytest.mark.parametrize("duplicates", ["refuse", "keep"])
@pytest.mark.parametrize("text", LEAN_SAMPLES)
def test_composing_without_the_tree_reads_the_same_data_and_errors(text, duplicates):
    """The check of a rendered file composes its data only (`tree=False`); it must read every
    stream as the full composer does: the same values and key order, the same refusals."""
    from fixture_migrate.errors import FixtureError
    from fixture_migrate.formats.yaml_format import compose

    def read(tree: bool) -> object:
        try:
            docs, spans = compose(text, duplicates=duplicates, tree=tree)
        except FixtureError as error:
            return (error.code, error.message, error.line, error.column)
        data = [None if doc.root is None else (doc.root.kind, doc.root.data) for doc in docs]
        return json.dumps(data), spans  # key order included

    assert read(False) == read(True)


def test_comments_skip_hashes_inside_scalars_only():
    from fixture_migrate.formats.yaml_format import comments, compose

    text = "# top\na: |\n  # in a block\n  b\nc: 'x # y'\nd: e#f # end\n"
    _, spans = compose(text)
    assert len(spans) == 3, "only the scalars whose text holds a '#'"
    assert comments(text, spans) == {"# top": 1, "# end": 1}


def test_a_comment_after_a_scalar_holding_a_hash_is_counted():
    """A ` #` inside a quoted or flow scalar is not a comment, but a comment after that
    scalar on the same line is: the check that no comment is lost must see it."""
    from fixture_migrate.formats.yaml_format import comments, compose

    text = "c: 'x # y'  # after c\nd: [\"p #\", q]   # after d\ne: \"u # v\" # w # x\n"
    _, spans = compose(text)
    assert comments(text, spans) == {"# after c": 1, "# after d": 1, "# w # x": 1}


def test_a_comment_on_a_block_scalar_header_is_counted():
    from fixture_migrate.formats.yaml_format import comments, compose

    text = "a: | # note\n  text # not a comment\nb: >- # folded\n  x\nc: &k |+  # kept\n  #y\n"
    _, spans = compose(text)
    assert comments(text, spans) == {"# note": 1, "# folded": 1, "# kept": 1}


def test_a_rendered_document_composes_its_span_tree_again_when_asked():
    """`render` lets the span trees go before the checks; `locate`, `docs` and another
    `render` compose them again and answer as before."""
    from fixture_migrate.formats.target import Obj, Src, Val

    raw = b"# head\nb: &x 1   # keep\na:\n  - c: *x\n    d: [2, 3]\n"
    document = load_document(Path("evals/x.yaml"), raw)
    before = [document.locate(0, path) for path in [("b",), ("a", 0, "d", 1), ("a", 0, "c")]]
    target = Obj([("b", Src(("b",))), ("new", Val("v")), ("a", Src(("a",)))])
    first = document.render([target])
    assert first == b"# head\nb: &x 1   # keep\nnew: v\na:\n  - c: *x\n    d: [2, 3]\n"
    assert [document.locate(0, path) for path in [("b",), ("a", 0, "d", 1), ("a", 0, "c")]] == before
    assert document.render([target]) == first and document.reparse(first) == [
        {"b": 1, "new": "v", "a": [{"c": 1, "d": [2, 3]}]}
    ]
    assert [doc.root.data for doc in document.docs] == [document.units[0].data]


@pytest.mark.parametrize("tree", [True, False])
def test_the_alias_guards_bound_what_aliases_add_not_what_the_file_writes(monkeypatch, tree):
    """A large file of plain values is bounded by its size limit; only the values and text
    that aliases add on top of what the document writes out count against the guards."""
    from fixture_migrate.errors import FixtureError
    from fixture_migrate.formats import yaml_format
    from fixture_migrate.formats.yaml_format import compose

    monkeypatch.setattr(yaml_format, "MAX_NODES", 100)
    monkeypatch.setattr(yaml_format, "MAX_EXPANDED_CHARS", 1000)
    items = "[" + ", ".join(["x"] * 60) + "]"
    read = [
        "a: [" + ", ".join(["xxxxxxxxxx"] * 300) + "]\n",  # 300 values, 3,000 characters, no alias
        f"a: &a {items}\nb: *a\n",  # the alias adds 61 values
        "a: &a " + "y" * 400 + "\nb: [*a, *a]\n",  # the aliases add 800 characters
    ]
    for text in read:
        docs, _ = compose(text, tree=tree)
        assert docs[0].root is not None
    refused = [
        (f"a: &a {items}\nb: [*a, *a]\n", "values through its aliases"),  # they add 122 values
        ("a: &a " + "y" * 400 + "\nb: [*a, *a, *a]\n", "characters of text through its aliases"),  # 1,200
    ]
    for text, message in refused:
        with pytest.raises(FixtureError) as caught:
            compose(text, tree=tree)
        assert caught.value.code == "too_large" and message in caught.value.message
        assert caught.value.line == 2


@pytest.mark.parametrize("tree", [True, False])
def test_the_alias_guards_bound_a_whole_stream_not_each_document(monkeypatch, tree):
    """A stream of documents, each under the guards, must not add more than the guards
    allow in all: a 16 MiB file of small documents each adding nearly a million values
    through aliases would take hours to read (about 0.3 s a document)."""
    from fixture_migrate.errors import FixtureError
    from fixture_migrate.formats import yaml_format
    from fixture_migrate.formats.yaml_format import compose

    monkeypatch.setattr(yaml_format, "MAX_NODES", 100)
    monkeypatch.setattr(yaml_format, "MAX_EXPANDED_CHARS", 1000)
    items = "[" + ", ".join(["x"] * 30) + "]"
    values = f"a: &a {items}\nb: *a\n"  # the alias adds 31 values
    chars = "a: &a " + "y" * 300 + "\nb: *a\n"  # it adds 300 characters
    for document, message in [(values, "values through"), (chars, "characters of text through")]:
        docs, _ = compose("---\n" + document, tree=tree)
        assert docs[0].root is not None
        docs, _ = compose("---\n" + "---\n".join([document] * 3), tree=tree)  # 93 values, 900 characters
        assert len(docs) == 3
        with pytest.raises(FixtureError) as caught:
            compose("---\n" + "---\n".join([document] * 4), tree=tree)
        assert caught.value.code == "too_large" and message in caught.value.message
        assert caught.value.line == 3 * 3 + 3, "placed at the alias that passes the limit, in the fourth document"
