"""Routing cases for the demo skill, kept next to the test that runs them."""

import pytest

# The fixture: a bare list the test below iterates (written by hand, not by a formatter).
# fmt: off
CASES = [
    {
        "name": "Routes a plan request",
        "user_intent": ("Turn this spec "
                        "into a plan."),
        "expected": "plan",
        "coverage_tags": ["trigger"],
        "owner": "team-a",  # who keeps this case current
    },
    {"name": "Stays out of code review", "user_intent": 'Review my PR.', "expected": "route away"},
]
# fmt: on


@pytest.mark.parametrize("case", CASES)
def test_routing(case):
    assert case.get("input") or case.get("user_intent")
