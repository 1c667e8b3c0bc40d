"""The contract's views: what `spec-first.workflow-eval-fixtures.v1` says, reproduced.

`rules` holds the contract's constants and the reference normalizer's small helpers;
`normalize` the normalized case, `validate` the reason codes, `conservation` and
`compatibility` the checks every migration passes, `readiness` and `schema` the views
built on those. This package imports nothing else of fixture-migrate.
"""
