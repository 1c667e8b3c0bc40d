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
| `expected_outcome` | `expected_behavior`, `expected_behaviour`, `expected_outputs`, `expected_response`, `expected_result`, `expected_results`, `expected_answer`, `ideal`, `target`, `answer`, `reference_answer`, `accept`, `must_include`, `expectations`, `assertions`, `checks`, `criteria`, `rubric`, `success_criteria`, `expected_checks`, `expected_skill`, `expected_skills`, `expected_mode`, `expected_action`, `acceptance`, `acceptance_criteria`, `required`, `constraints`, `must_include_any`, `must_include_all`, `must_contain`, `decision` |
| `forbidden_signals` | `must_not`, `must_not_include`, `must_not_contain`, `forbidden_outputs`, `forbidden`, `should_not_include`, `must_exclude`, `must_not_mention`, `veto`, `never` |
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

Past the exact names, a field's role comes from its name's pattern, then from its values
(`role_of`, `family_roles`); the first matching row wins, and a name the reference
copies into `extensions` (`expected_entrypoint`, ...) or a canonical member never takes
a role by pattern:

| role | name patterns, in order |
|---|---|
| `forbidden_signals` | `must_not*`, `must_exclude*`, `mustnot*`, `forbidden*`, `prohibit*`, `veto*`, `never_say*`, `never_mention*`, `never_do*`, `should_not_*`, `do_not*`, `dont_*` |
| `expected_outcome` | `expected*`, `expectation*`, `*_expected`, `expect`, `acceptance*`, `accept_*`, `checks`, `*_checks`, `criteria`, `*_criteria`, `rubric*`, `required`, `required_*`, `requires`, `requirements`, `must_include*`, `must_contain*`, `must_mention*`, `must_have*`, `should_*`, `constraints`, `decision`, `*_decision`, `ideal_*`, `golden_*`, `gold_*`, `ground_truth*`, `reference_*`, `assert*`, `grading*` |
| `input` | `*_prompt` and `prompt_*` (not `system_prompt`), `*_query`, `query_*`, `*_question`, `question_*`, `*_input`, `input_*`, `*_utterance`, `*_request`, `*_message`, `*_instruction`, `instructions`, `inputs`, `scenario`, `situation` |
| `coverage_tags` | `type`, `kind`, `category`, `categories`, `tags`, `tag`, `bucket`, `case_type`, `polarity`: a value that is a contract tag (`CONTRACT_TAGS`) becomes a coverage tag; a trigger polarity word (`POLARITY_WORDS`) gives the polarity; an outcome field holding polarity words in most records (`expectation: must_trigger`) gives the polarity too, and stays the outcome |
| `input` (value shape) | the one field, of no other role and not a describing one (`title`, `description`, `notes`, ...), holding free text (six words or more) in most records |

Value shapes still decide per record: `input` takes a non-blank string,
`expected_outcome` a value holding a non-blank string (never a boolean), forbidden
signals a string or a list of strings. A tag is written only where it adds no
validation error: `trigger` and `expected` with an outcome, `boundary` with boundary
evidence.
"""

from __future__ import annotations

import fnmatch
from functools import lru_cache
from typing import Any, Final

from fixture_migrate.contract import rules as c
from fixture_migrate.slots import Record

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
    "expected_checks",
    "expected_skill",
    "expected_skills",
    "expected_mode",
    "expected_action",
    "acceptance",
    "acceptance_criteria",
    "required",
    "constraints",
    "must_include_any",
    "must_include_all",
    "must_contain",
    "decision",
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
    "must_exclude",
    "must_not_mention",
    "veto",
    "never",
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

QUERY_KEY_HINTS: Final = ("trigger", "quer", "fire", "activat", "prompt", "should", "utterance")
"""Parts of a key naming a list of queries (`should_fire`, `trigger_queries`, ...)."""

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


# --- roles by pattern and by value shape -------------------------------------------------------

ROLE_PATTERNS: Final = (
    (
        "forbidden_signals",
        (
            "must_not*", "must_exclude*", "mustnot*", "forbidden*", "prohibit*", "veto*", "never_say*",
            "never_mention*", "never_do*", "should_not_*", "do_not*", "dont_*",
        ),
    ),
    (
        "expected_outcome",
        (
            "expected*", "expectation*", "*_expected", "expect", "acceptance*", "accept_*", "checks", "*_checks", "criteria",
            "*_criteria", "rubric*", "required", "required_*", "requires", "requirements", "must_include*", "must_contain*",
            "must_mention*", "must_have*", "should_*", "constraints", "decision", "*_decision", "ideal_*",
            "golden_*", "gold_*", "ground_truth*", "reference_*", "assert*", "grading*",
        ),
    ),
    (
        "input",
        (
            "*_prompt", "prompt_*", "*_query", "query_*", "*_question", "question_*", "*_input", "input_*",
            "*_utterance", "*_request", "*_message", "*_instruction", "instructions", "inputs", "scenario", "situation",
        ),
    ),
    ("coverage_tags", ("type", "kind", "category", "categories", "tags", "tag", "bucket", "case_type", "polarity")),
)  # fmt: skip
"""`(role, name patterns)` in order: a field takes the role of the first row one of whose
patterns its name matches (`fnmatch`, lower case); see the module docstring."""

NEVER_BY_PATTERN: Final = frozenset((*c.CASE_KEYS, *c.EXTENSION_COPY_KEYS, "id", "system_prompt"))
"""Names that never take a role by pattern: the contract's own members, the members the
reference copies into `extensions` (their home is fixed), the id, a system prompt."""

NOT_BY_PATTERN_SUFFIXES: Final = (
    "_at", "_by", "_on", "_url", "_uri", "_date", "_time", "_id", "_ids", "_count", "_version", "_path", "_file",
    "_files", "_dir", "_type", "_key", "_ms", "_seconds",
)  # fmt: skip
"""Name endings of metadata (`expected_by`, `reference_url`, `input_files`): never a role by pattern."""

WEAK_INPUTS: Final = frozenset({"text", "message", "request", "task", "body", "content"})
"""Input names that also name plain data (a string table's `text`, an HTTP `request`, a log's
`message`): in fixture territory they make records cases only beside an expected-like field."""

CONTRACT_TAGS: Final = (*c.BUCKETS, "routing", "should-trigger", "should-not-trigger")
"""Coverage tags a `type`/`kind`/`category`/`tags` value gives the case as it is."""

POLARITY_WORDS: Final = {
    "positive": True,
    "must_trigger": True,
    "must-trigger": True,
    "should_trigger": True,
    "should-trigger": True,
    "negative": False,
    "should_not_trigger": False,
    "should-not-trigger": False,
    "near_miss": False,
    "near-miss": False,
    "no_trigger": False,
    "no-trigger": False,
    "non_trigger": False,
    "non-trigger": False,
}
"""Values of a coverage-tag field (`kind: negative`) that give the case's trigger polarity."""

FREE_TEXT_WORDS: Final = 6
"""The words a string holds at least to count as free text (the value-shape rule for `input`)."""

NOT_INPUT_BY_SHAPE: Final = frozenset(
    {
        "title", "name", "label", "summary", "subject", "headline", "description", "desc", "notes", "note",
        "comment", "comments", "reason", "rationale", "explanation", "why", "purpose", "url", "path", "file",
    }
)  # fmt: skip
"""Members that describe a record rather than hold its input: never the input by value shape."""


def exact_role(key: str) -> str | None:
    """The role of `key` by the exact names above (the reference's first), or None: one of
    `input`, `expected_outcome`, `forbidden_signals`, `boundary_note`, `polarity`."""
    if key in INPUT_LIKE:
        return "input"
    if key in _EXACT_OUTCOME:
        return "expected_outcome"
    if key in FORBIDDEN_NAMES:
        return "forbidden_signals"
    if key in BOUNDARY_NOTE:
        return "boundary_note"
    if key in POLARITY:
        return "polarity"
    return None


_EXACT_OUTCOME: Final = frozenset(OUTCOME_NAMES)
_REFERENCE_NAMES: Final = frozenset(
    (*c.INPUT_SOURCES, *c.OUTCOME_SOURCES, *c.OUTCOME_OBJECT_KEYS, *c.FORBIDDEN_SOURCES, "boundary_note")
)


@lru_cache(maxsize=4096)
def role_of(key: str) -> tuple[str, str] | None:
    """`(role, rule)` of a record member named `key`: by exact name (`rule` "exact name"),
    else by the first name pattern it matches (`rule` "pattern `expected*`"); None when no
    row names it. Roles: `input`, `expected_outcome`, `forbidden_signals`,
    `boundary_note`, `polarity`, `coverage_tags`."""
    found = exact_role(key)
    if found is not None:
        return found, "exact name"
    if key in NEVER_BY_PATTERN or not isinstance(key, str):
        return None
    lowered = key.lower()
    metadata = lowered.endswith(NOT_BY_PATTERN_SUFFIXES)
    for role, patterns in ROLE_PATTERNS:
        for pattern in patterns:
            if metadata and "*" in pattern:
                continue  # `expected_by`, `reference_url`: metadata, whatever its first word
            if fnmatch.fnmatchcase(lowered, pattern):
                return role, f"pattern `{pattern}`"
    return None


def is_free_text(value: Any) -> bool:
    """True for a string of at least `FREE_TEXT_WORDS` words."""
    return isinstance(value, str) and len(value.split()) >= FREE_TEXT_WORDS


class FamilyRoles(Record):
    """The mapping of one family of records (records sharing a key signature), decided once
    over all of them: `fills` (canonical member -> record members that fill it, in order of
    preference: exact names first), `tag_fields` (members whose contract-tag values become
    coverage tags), `polarity_fields` (boolean trigger polarities), `reasons` (member ->
    `(role, rule)`), and `signature` (the members, in first-seen order)."""

    __slots__ = ("fills", "tag_fields", "polarity_fields", "reasons", "signature")

    def __init__(
        self,
        fills: dict[str, tuple[str, ...]],
        tag_fields: tuple[str, ...],
        polarity_fields: tuple[str, ...],
        reasons: dict[str, tuple[str, str]],
        signature: tuple[str, ...],
    ) -> None:
        self.fills = fills
        self.tag_fields = tag_fields
        self.polarity_fields = polarity_fields
        self.reasons = reasons
        self.signature = signature

    def role(self, key: str) -> str:
        """Where the member `key` lands: its canonical role, else `extensions`."""
        found = self.reasons.get(key)
        return found[0] if found else "extensions"


def signature_of(records: list[Any]) -> tuple[str, ...]:
    """The members of `records` (objects only), in first-seen order."""
    seen: dict[str, None] = {}
    for record in records:
        if isinstance(record, dict):
            for key in record:
                seen.setdefault(key, None)
    return tuple(seen)


def family_roles(records: list[Any]) -> FamilyRoles:
    """The roles of the members of `records` (a family's records), by name and then by the
    majority of their values (see the module docstring). Pure: the same records give the
    same roles, so the files of one family migrate alike."""
    signature = signature_of(records)
    reasons: dict[str, tuple[str, str]] = {}
    for key in signature:
        found = role_of(key)
        if found is not None:
            reasons[key] = found
    if not any(role == "input" for role, _ in reasons.values()):
        objects = [r for r in records if isinstance(r, dict)]
        texts = [
            key
            for key in signature
            if key not in reasons
            and key not in NEVER_BY_PATTERN
            and key.lower() not in NOT_INPUT_BY_SHAPE
            and sum(is_free_text(r.get(key)) for r in objects) * 2 > len(objects)
        ]
        if len(texts) == 1:
            reasons[texts[0]] = ("input", "value shape: the one free-text field")
    fills = {}
    for canonical, names in FILLS.items():
        extra = tuple(
            k
            for k in signature
            if reasons.get(k, ("",))[0] == canonical and k not in names and k not in _REFERENCE_NAMES
        )
        fills[canonical] = tuple(names) + extra
    objects = [r for r in records if isinstance(r, dict)]
    tags = tuple(
        k
        for k in signature
        if reasons.get(k, ("",))[0] == "coverage_tags"
        or (reasons.get(k, ("",))[0] == "expected_outcome" and _polarity_valued(objects, k))
    )
    polarity = tuple(k for k in POLARITY)
    return FamilyRoles(fills, tags, polarity, reasons, signature)


def _polarity_valued(records: list[dict[str, Any]], key: str) -> bool:
    """True when most records hold a trigger polarity word under `key` (`expectation:
    must_trigger`): the outcome field then gives the polarity's tags as well."""
    words = sum(1 for r in records if isinstance(r.get(key), str) and r[key].strip().lower() in POLARITY_WORDS)
    return words * 2 > len(records)


def tags_of(value: Any) -> tuple[list[str], bool | None]:
    """The contract tags in a coverage-tag field's `value` (a string or a list of strings),
    and the trigger polarity a polarity word there gives (None when none does)."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    tags: list[str] = []
    polarity = None
    for item in items:
        if not isinstance(item, str):
            continue
        word = item.strip().lower()
        if word in POLARITY_WORDS:
            polarity = POLARITY_WORDS[word] if polarity is None else polarity
        elif word in CONTRACT_TAGS and word not in tags:
            tags.append(word)
    return tags, polarity


def record_input(record: dict[str, Any], roles: FamilyRoles | None = None) -> str | None:
    """The member of `record` holding its input: a non-blank string under an input name
    (exact, pattern, or the family's value-shape field), or a non-empty structured value
    under an input name; None when there is none."""
    names = roles.fills["input"] if roles is not None else INPUT_NAMES
    for key in names:
        if c.is_non_empty_string(record.get(key)):
            return key
    for key in record:
        found = role_of(key) if roles is None else roles.reasons.get(key)
        if found and found[0] == "input" and c.is_non_empty_expected(record[key]):
            return key
    return None
