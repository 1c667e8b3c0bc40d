"""Families of local fixtures across a repository, for `fixture-migrate detect --families`
(DESIGN.md, "Claiming a file": files whose records share a key signature form a family
whose mapping is decided once).

A family is every payload of a local family (migrated by the vocabulary's mapping, or
left unmigrated and named) whose records have the same members. Its mapping is the
vocabulary's roles of those members over all the family's records
(`fixture_migrate.adapting.vocabulary.family_roles`): which member fills `input`,
`expected_outcome`, `forbidden_signals`, `boundary_note`, which give coverage tags, and
what goes under `extensions`, each with the rule that gave it its role. Roles follow
from the members' names first, so the files of one family migrate alike.
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.adapting import vocabulary as v
from fixture_migrate.adapting.evidence import record_list
from fixture_migrate.contract import rules as c


class Family:
    """One family: its `label` (`"{id, prompt, ideal}"`), the `files` holding it (as shown),
    its `records`, and how many payloads each claim rule decided (`rules`)."""

    __slots__ = ("label", "files", "records", "rules", "statuses")

    def __init__(self, label: str) -> None:
        self.label = label
        self.files: list[str] = []
        self.records: list[Any] = []
        self.rules: dict[str, int] = {}
        self.statuses: dict[str, int] = {}

    def mapping(self) -> list[tuple[str, str, str]]:
        """`(member, where it lands, why)` for each member of the family's records, in
        first-seen order: a canonical member, `extensions`, or the member itself when it is
        a canonical one already."""
        roles = v.family_roles(self.records)
        rows = []
        for key in roles.signature:
            if key in c.CASE_KEYS:
                rows.append((key, key, "a canonical member"))
                continue
            found = roles.reasons.get(key)
            if found is None:
                why = "the reference copies it" if key in c.EXTENSION_COPY_KEYS else "no role"
                rows.append((key, "extensions", why))
            elif found[0] == "polarity":
                rows.append((key, "coverage_tags + expected_outcome (polarity); kept in extensions", found[1]))
            elif found[0] == "coverage_tags":
                rows.append((key, "coverage_tags (contract tags among its values); kept in extensions", found[1]))
            else:
                rows.append((key, found[0], found[1]))
        return rows

    def record(self) -> dict[str, Any]:
        """The family as `detect --families --output-format json` prints it."""
        return {
            "family": self.label,
            "files": list(self.files),
            "records": len(self.records),
            "statuses": dict(self.statuses),
            "rules": dict(self.rules),
            "mapping": [{"member": k, "to": to, "why": why} for k, to, why in self.mapping()],
        }


class Survey:
    """Collects the families of a run's payloads (`add`), in order of first file."""

    def __init__(self) -> None:
        self.families: dict[str, Family] = {}

    def add(self, shown: str, data: Any, claim: Any) -> None:
        """Note one payload `data` of the file `shown` with its `claim`; only local
        families (a claim with a `family`) are kept."""
        label = getattr(claim, "family", None)
        if label is None:
            return
        family = self.families.get(label)
        if family is None:
            family = self.families[label] = Family(label)
        if shown not in family.files:
            family.files.append(shown)
        family.records.extend(_records(data))
        family.rules[claim.rule] = family.rules.get(claim.rule, 0) + 1
        word = claim.status.value  # the verdict's word: JSON keys are plain strings
        family.statuses[word] = family.statuses.get(word, 0) + 1

    def lines(self, *, verbose: bool) -> list[str]:
        """The text report: a header per family, its files, its mapping."""
        out: list[str] = []
        for family in self.families.values():
            n = len(family.files)
            decided = ", ".join(f"{rule} {count}" for rule, count in family.rules.items())
            out.append(f"family {family.label}: {n} file{'s' if n != 1 else ''}, {len(family.records)} records ({decided})")
            shown = family.files if verbose else family.files[:5]
            more = f" ... and {n - len(shown)} more (-v lists all)" if n > len(shown) else ""
            out.append("  files: " + ", ".join(shown) + more)
            for key, to, why in family.mapping():
                out.append(f"  {key} -> {to} ({why})")
        if not out:
            out.append("no local family found")
        return out

    def records(self) -> list[dict[str, Any]]:
        """The families as JSON."""
        return [family.record() for family in self.families.values()]


def _records(data: Any) -> list[Any]:
    """The object records of a payload: its list of records, else its trigger lists'
    object entries (a query string has no members)."""
    found = record_list(data)
    if found is not None:
        return [r for r in found[1] if isinstance(r, dict)]
    if isinstance(data, dict):
        return [e for k in v.trigger_lists(data) for e in data[k] if isinstance(e, dict)]
    return []
