"""The conservation check: typed, counted leaves; cases and extensions objects may be filled."""

from fixture_migrate.contract.conservation import leaves, missing_leaves


def test_leaves_are_typed():
    found = leaves([1, 1.0, True, "1", None, 1.50])
    assert found[("int", 1)] == 1
    assert found[("float", "1.0")] == 1
    assert found[("literal", True)] == 1
    assert found["1"] == 1
    assert found[("literal", None)] == 1
    assert found[("float", "1.5")] == 1


def test_a_value_counts_as_often_as_it_appears():
    assert missing_leaves([{"a": ["x", "x"]}], [{"a": ["x"]}]) == {"x": 1}
    assert not missing_leaves([{"a": ["x", "x"]}], [{"b": "x", "c": {"d": "x"}}])


def test_empty_containers_are_leaves():
    assert missing_leaves([{"a": [], "b": {}}], [{"a": "gone"}]) == {("array", "[]"): 1, ("object", "{}"): 1}


def test_filling_an_empty_extensions_or_case_is_not_a_loss():
    before = {"cases": [{}], "extensions": {}}
    after = {"cases": [{"id": "case-1"}], "extensions": {"migrated_from": "x"}}
    assert not missing_leaves([before], [after])


def test_dropping_a_case_or_an_extensions_object_is_a_loss():
    assert missing_leaves([{"cases": [{}, {}]}], [{"cases": [{}]}]) == {("object", "fillable"): 1}
    assert missing_leaves([{"extensions": {}}], [{}]) == {("object", "fillable"): 1}


def test_deep_values_do_not_hit_the_recursion_limit():
    deep: object = "bottom"
    for _ in range(5000):
        deep = [deep]
    assert leaves(deep) == {"bottom": 1}
