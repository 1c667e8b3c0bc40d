"""`prompt-examples/v1`: the early prompt examples of spec-first (skills/spec-doc-review,
spec-work and using-spec-first `evals/examples.json`, 2026-05-14 to 2026-06-14).

Cases live under `examples`, named by `name` (the id is its slug), with `user_intent`
(-> `input`), `expected_posture` (-> `expected_outcome`), `negative_signal`
(-> `forbidden_signals`); `name`, `context_snippets` and `source_note` go under
`extensions`, where the reference puts them too.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="prompt_examples_v1",
    schema_version="prompt-examples/v1",
    summary="prompt examples: name/user_intent/expected_posture/negative_signal under `examples`",
)
