"""canonical: `spec-first.workflow-eval-fixtures.v1` itself, `cases` of `id`/`input`/`expected_outcome`/...

A canonical file whose every member has its canonical home plans no change at all,
whatever its layout. A v1 file with stray members (a case-level `must_find`, a
file-level `owner`) gets exactly one change: the strays move under `extensions`.
Members the reference reads under another name (`examples`, `user_intent`,
`expected`, `negative_signal`) are renamed; no `skill` or `case-<n>` id is added.
"""

import orjson
import pytest

from tests.helpers import assert_untouched, check_migration, migrate_sample, plan

ADAPTER = "canonical"

PRETTY = """\
{
  "schema_version": "spec-first.workflow-eval-fixtures.v1",
  "skill": "lamp-fixer",
  "description": "When the lamp helper should and should not step in.",
  "source_refs": ["skills/lamp-fixer/SKILL.md"],
  "source_ref_authority": "source",
  "coverage_tags": ["trigger"],
  "cases": [
    {
      "id": "dim-bulb",
      "input": "The reading lamp is too dim.",
      "coverage_tags": ["trigger", "expected"],
      "expected_outcome": {"steps": ["check wattage", "clean the shade"]},
      "boundary_note": "",
      "forbidden_signals": [],
      "source_refs": ["skills/lamp-fixer/references/bulbs.md#wattage"],
      "source_ref_authority": "advisory",
      "extensions": {"owner": "ana", "priority": 2, "flaky": false, "seen": null}
    }
  ]
}
"""

COMPACT_ODD_SPACING = (
    '{ "schema_version" :"spec-first.workflow-eval-fixtures.v1" ,"skill":"kettle-helper",'
    '"cases":[ {"id":"cold-kettle" , "input" : "The kettle will not heat up.",'
    '"coverage_tags":[ "boundary" ],"boundary_note":"Electrical faults go to a technician."} ] }'
)

TABS_CRLF_BOM_NO_NEWLINE = (
    "\ufeff{\r\n"
    '\t"schema_version": "spec-first.workflow-eval-fixtures.v1",\r\n'
    '\t"skill": "sock-sorter",\r\n'
    '\t"coverage_tags": [\r\n\t\t"trigger"\r\n\t],\r\n'
    '\t"cases": [\r\n'
    "\t\t{\r\n"
    '\t\t\t"id": "odd-sock",\r\n'
    '\t\t\t"input": "One sock has no pair.",\r\n'
    '\t\t\t"forbidden_signals": [\r\n\t\t\t\t"throws the sock away"\r\n\t\t\t]\r\n'
    "\t\t}\r\n"
    "\t]\r\n"
    "}"
)

ESCAPES_NO_SKILL_NO_ID = """\
{
    "schema_version": "spec-first.workflow-eval-fixtures.v1",
    "cases": [
        {
            "input": "Pr\\u00e9pare un caf\\u00e9 cr\\u00e8me \\u2615",
            "expected_outcome": ["steamed milk", "espresso"],
            "extensions": {
                "note": "tab\\there, quote \\" and slash \\/"
            }
        }
    ]
}
"""


@pytest.mark.parametrize(
    ("source", "path"),
    [
        pytest.param(PRETTY, "skills/lamp-fixer/evals/examples.json", id="pretty-with-extensions"),
        pytest.param(COMPACT_ODD_SPACING, "skills/kettle-helper/evals/cases.json", id="compact-odd-spacing"),
        pytest.param(TABS_CRLF_BOM_NO_NEWLINE, "skills/sock-sorter/evals/cases.json", id="tabs-crlf-bom"),
        # Outside `skills/<name>/` and without an id: the reference's own view has no
        # skill and says `case-1`; a canonical file is still never given either.
        pytest.param(ESCAPES_NO_SKILL_NO_ID, "fixtures/coffee.json", id="escapes-no-skill-no-id"),
    ],
)
def test_canonical_input_stays_byte_identical(source, path):
    assert_untouched(source, path)
    assert plan(source, path).adapters == [ADAPTER]


STRAYS = """\
{
  "schema_version": "spec-first.workflow-eval-fixtures.v1",
  "skill": "lamp-fixer",
  "owner": "home-team",
  "cases": [
    {
      "id": "dim-bulb",
      "input": "The reading lamp is too dim.",
      "coverage_tags": ["trigger"],
      "expected_outcome": "Suggests a brighter bulb.",
      "must_find": ["wattage", "lumens"],
      "extensions": {"owner": "ana"}
    },
    {
      "id": "flicker",
      "input": "The lamp flickers at night.",
      "coverage_tags": ["boundary"],
      "boundary_note": "Wiring faults are out of scope.",
      "must_find": "loose wire",
      "grader": {"kind": "regex", "pattern": "wire|socket"}
    }
  ]
}
"""

LEGACY_NAMES = """\
{
  "schema_version": "spec-first.workflow-eval-fixtures.v1",
  "skill": "plant-waterer",
  "examples": [
    {
      "name": "Fern, Drooping",
      "user_intent": "My fern is drooping.",
      "expected": "Checks soil moisture first.",
      "negative_signal": "Recommends more sun"
    },
    {
      "id": "cactus-rot",
      "input": "The cactus base is soft.",
      "expected_outcome": "Stops watering.",
      "forbidden_signals": ["water daily"],
      "negative_signal": ["water daily", "repot in wet soil"]
    }
  ]
}
"""


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(STRAYS, id="stray-members"),
        pytest.param(LEGACY_NAMES, id="legacy-names"),
    ],
)
def test_migrates(source, snapshot_json, snapshot_diff):
    check_migration(source, ADAPTER, snapshot_json, snapshot_diff)


def test_strays_are_the_only_change():
    # The diff itself is snapshotted by test_migrates[stray-members].
    lines = migrate_sample(STRAYS).diff.splitlines()[2:]
    removed = [line[1:].strip().rstrip(",") for line in lines if line.startswith("-")]
    added = [line[1:].strip().rstrip(",") for line in lines if line.startswith("+")]
    strays = [
        '"owner": "home-team"',
        '"must_find": ["wattage", "lumens"]',
        '"must_find": "loose wire"',
        '"grader": {"kind": "regex", "pattern": "wire|socket"}',
    ]
    # Each stray line leaves; the one existing `extensions` line is rewritten to take its stray.
    assert removed == [strays[0], strays[1], '"extensions": {"owner": "ana"}', strays[2], strays[3]]
    for line in added:
        assert line in strays or line.startswith('"extensions"') or line == "}", line


def test_stray_values_land_under_extensions():
    data = orjson.loads(migrate_sample(STRAYS).after)
    assert data["extensions"] == {"owner": "home-team"}
    assert "migrated_from" not in data["extensions"]
    first, second = data["cases"]
    assert first["extensions"] == {"owner": "ana", "must_find": ["wattage", "lumens"]}
    assert second["extensions"] == {"must_find": "loose wire", "grader": {"kind": "regex", "pattern": "wire|socket"}}


def test_no_skill_or_case_number_is_added():
    source = (
        '{"schema_version": "spec-first.workflow-eval-fixtures.v1", '
        '"cases": [{"input": "Hum a tune.", "must_find": "melody"}]}\n'
    )
    data = orjson.loads(migrate_sample(source, "skills/tune-hummer/evals/cases.json").after)
    assert "skill" not in data
    assert data["cases"] == [{"input": "Hum a tune.", "extensions": {"must_find": "melody"}}]


def test_stray_beside_empty_extensions():
    source = (
        '{"schema_version": "spec-first.workflow-eval-fixtures.v1", "skill": "kite-flyer", "cases": '
        '[{"id": "gust", "input": "Can I fly in gusts?", "extensions": {}, "must_find": "line tension"}]}\n'
    )
    case = orjson.loads(migrate_sample(source).after)["cases"][0]
    assert case["extensions"] == {"must_find": "line tension"}
