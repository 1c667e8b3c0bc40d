"""The vocabulary of local eval-case fields: which local names obviously hold a canonical field.

One table, used wherever a local family is migrated in place (the `generic` adapter and
the families declared in pyproject.toml) and by the claim rules that decide whether a
file carries the evidence of eval cases at all. The reference's own mapping
(`contract.INPUT_SOURCES`, `OUTCOME_SOURCES`, ...) always comes first: a name below only
fills a canonical field the reference leaves empty, so the migrated file normalizes as
the reference normalizes the legacy one (DESIGN.md, "Compatibility"), and the local
member itself stays in the file, renamed or under `extensions` (nothing is lost).

| canonical field | local names, in order of preference |
|---|---|
| `input` | `prompt`, `query`, `question`, `instruction`, `request`, `message`, `user_input`, `user_prompt`, `user_message`, `user_query`, `user_request`, `utterance`, `text`, `task` (last: it often names the kind of task, while `text` holds the free text) |
| `expected_outcome` | `expected_behavior`, `expected_behaviour`, `expected_outputs`, `expected_response`, `expected_result`, `expected_results`, `expected_answer`, `ideal`, `target`, `answer`, `reference_answer`, `accept`, `must_include`, `expectations`, `assertions`, `checks`, `criteria`, `rubric`, `success_criteria` |
| `forbidden_signals` | `must_not`, `must_not_include`, `must_not_contain`, `forbidden_outputs`, `forbidden`, `should_not_include` |
| `boundary_note` | `boundary`, `boundary_reason` |
| polarity (`coverage_tags`, and `expected_outcome` when nothing else gives one) | a boolean `should_trigger`, `expected_activation`, `expected_trigger`, `should_activate`; membership in a trigger list |

Polarity follows the words the `yao.semantic-trigger-cases` family and the spec-first
trigger evals use: a case that should trigger gets the tags `trigger` and
`should-trigger` and, when no field gives an outcome, `expected_outcome`
`"should-trigger"`; a case that should not gets `boundary` and `should-not-trigger` and
the outcome `"should-not-trigger"` (which is also its boundary evidence). The boolean
stays under `extensions` (a boolean is never an outcome).

Trigger lists (top-level lists of queries instead of a case list):

| list key | polarity |
|---|---|
| `should_trigger`, `positive`, `positives`, `triggers` | should trigger |
| `should_not_trigger`, `negative`, `negatives`, `near_miss`, `near_misses`, `near_neighbor`, `non_triggers` | should not trigger |

An entry is a query string (the `input`) or an object whose fields map as above; its
case id is `<list key with - for _>-<n>` (n from 1 within its list) unless it has an `id`.

The skill of a file that names none and lies outside `skills/<name>/` is filled from a
top-level `skill_name`.
"""

from __future__ import annotations

from typing import Any, Final

from fixture_migrate.contract import rules as c

INPUT: Final = (
    "prompt",
    "query",
    "question",
    "instruction",
    "request",
    "message",
    "user_input",
    "user_prompt",
    "user_message",
    "user_query",
    "user_request",
    "utterance",
    "text",
    "task",
)
"""Local names of the case input, after the reference's `contract.INPUT_SOURCES`."""

EXPECTED: Final = (
    "expected_behavior",
    "expected_behaviour",
    "expected_outputs",
    "expected_response",
    "expected_result",
    "expected_results",
    "expected_answer",
    "ideal",
    "target",
    "answer",
    "reference_answer",
    "accept",
    "must_include",
    "expectations",
    "assertions",
    "checks",
    "criteria",
    "rubric",
    "success_criteria",
)
"""Local names of the expected outcome, after the reference's own (`expected_outcome`,
`expected`, ..., and the `expected_decision`/`expected_failure`/`expected_output` object)."""

FORBIDDEN: Final = (
    "must_not",
    "must_not_include",
    "must_not_contain",
    "forbidden_outputs",
    "forbidden",
    "should_not_include",
)
"""Local names of forbidden signals, after the reference's `forbidden_signals` and `negative_signal`."""

BOUNDARY_NOTE: Final = ("boundary", "boundary_reason")
"""Local names of a boundary note."""

POLARITY: Final = ("should_trigger", "expected_activation", "expected_trigger", "should_activate")
"""Boolean case fields saying whether the skill should trigger on the input."""

TRIGGER_LISTS: Final = {
    "should_trigger": True,
    "positive": True,
    "positives": True,
    "triggers": True,
    "should_not_trigger": False,
    "negative": False,
    "negatives": False,
    "near_miss": False,
    "near_misses": False,
    "near_neighbor": False,
    "non_triggers": False,
}
"""Top-level lists of queries, and whether their queries should trigger the skill."""

SKILL: Final = ("skill_name",)
"""File-level local names of the skill."""

FILLS: Final = {
    "input": INPUT,
    "expected_outcome": EXPECTED,
    "forbidden_signals": FORBIDDEN,
    "boundary_note": BOUNDARY_NOTE,
}
"""The `CaseMapper.fills` of this vocabulary."""

SHOULD_TRIGGER: Final = ("should-trigger", ("trigger", "should-trigger"))
SHOULD_NOT_TRIGGER: Final = ("should-not-trigger", ("boundary", "should-not-trigger"))


def polarity_words(polarity: bool) -> tuple[str, tuple[str, ...]]:
    """The outcome and the coverage tags of a case that should (True) or should not trigger."""
    return SHOULD_TRIGGER if polarity else SHOULD_NOT_TRIGGER


INPUT_NAMES: Final = (*c.INPUT_SOURCES, *INPUT)
"""Every name of the case input, the reference's first, in order of preference."""

OUTCOME_NAMES: Final = (*c.OUTCOME_SOURCES, *c.OUTCOME_OBJECT_TRIGGERS, *EXPECTED)
"""Every name of the expected outcome, the reference's first, in order of preference."""

FORBIDDEN_NAMES: Final = ("forbidden_signals", "negative_signal", *FORBIDDEN)
"""Every name of forbidden signals, the reference's first, in order of preference."""

INPUT_LIKE: Final = frozenset(INPUT_NAMES)
EXPECTED_LIKE: Final = frozenset((*OUTCOME_NAMES, *FORBIDDEN_NAMES))


def input_field(record: dict[str, Any]) -> str | None:
    """The first member of `record` that holds its input (a non-blank string), or None."""
    for key in INPUT_NAMES:
        if c.is_non_empty_string(record.get(key)):
            return key
    return None


def expected_field(record: dict[str, Any]) -> str | None:
    """The first member of `record` that says what is expected of the case, or None: an
    outcome (a non-empty one under a vocabulary name), forbidden signals, or a polarity."""
    for key in (*c.OUTCOME_SOURCES, *c.OUTCOME_OBJECT_TRIGGERS):
        if key in record:  # the contract's own names mark a case even when left empty
            return key
    for key in EXPECTED:
        if c.is_non_empty_expected(record.get(key)):
            return key
    for key in FORBIDDEN_NAMES:
        if c.string_array(record.get(key)):
            return key
    return polarity_field(record)


def polarity_field(record: dict[str, Any]) -> str | None:
    """The boolean member of `record` that says whether the skill should trigger, or None."""
    return next((key for key in POLARITY if isinstance(record.get(key), bool)), None)


def trigger_lists(data: dict[str, Any]) -> list[str]:
    """The trigger-list keys of a payload, in file order: non-empty lists of query strings
    or of objects carrying an input."""
    found = []
    for key, value in data.items():
        if key not in TRIGGER_LISTS or not isinstance(value, list) or not value:
            continue
        if all(c.is_non_empty_string(item) or (isinstance(item, dict) and input_field(item)) for item in value):
            found.append(key)
    return found
