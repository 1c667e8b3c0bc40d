"""`spec-first.agent-native-architecture-eval-examples.v1`: examples of the
agent-native-architecture helper (skills/agent-native-architecture/evals/examples.json,
2026-06-13 to 2026-06-21).

`examples` becomes `cases`, `user_intent` becomes `input` and `expected_posture`
becomes `expected_outcome`.
"""

from fixture_migrate.adapting.protocol import FamilyAdapter

ADAPTER = FamilyAdapter(
    name="agent_native_architecture_eval_examples_v1",
    schema_version="spec-first.agent-native-architecture-eval-examples.v1",
    summary="agent-native-architecture examples: user_intent/expected_posture under `examples`",
)
