"""The canonical `spec-first.workflow-eval-fixtures.v1` shape itself (skills/*/evals/examples.json,
routing-cases.json and routing-discipline-cases.json in spec-first, from 2026-06-14).

A canonical file whose every member has its canonical home is never rewritten. Stray
members (a case-level `must_find`, say, which the reference drops) move under the case's
`extensions`; members the reference reads under another name (`user_intent`, `expected`,
`negative_signal`, `examples`) are renamed so the normalized view stays the same. No
`skill` or `case-<n>` id is added to a canonical file.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="canonical",
    schema_version="spec-first.workflow-eval-fixtures.v1",
    summary="canonical v1 files: left as they are, except stray members moved under extensions",
    kind="canonical",
)
