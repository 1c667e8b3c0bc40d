"""Readiness: does each skill have valid cases in every required coverage bucket?

The contract's reference normalizer defines a skill's eval coverage by buckets
(`contract.BUCKETS`): `trigger` and `boundary` are required, `failure` and
`expected` optional. A case covers a bucket when it carries the bucket's tag
in `coverage_tags` and validates with no error (`caseHasBucketCoverage`; the
reference validates one case, so duplicate ids do not count against it).

The reference can also count a case by its file name (`allowLegacyFilenameFallback`:
a case in `boundary-cases.json` counts for `boundary`, its coverage basis then
being `legacy_filename_fallback`). fixture-migrate decides readiness on declared
tags only, the basis the canonical shape is about, and shows the cases that
would count only by file name beside it, so the user sees what to tag.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import NormalizedCase
from fixture_migrate.contract.validate import RefChecker, has_bucket_tag, validate_case

DECLARED = "declared_coverage_tags"
LEGACY_FILENAME = "legacy_filename_fallback"


def file_name_matches_bucket(file_path: str | None, bucket: str) -> bool:
    """True when the base name of `file_path` contains the bucket's name, any case
    (`fileNameMatchesBucket`)."""
    if not file_path:
        return False
    return re.search(re.escape(bucket), posixpath.basename(file_path), re.IGNORECASE) is not None


def case_has_bucket_coverage(
    entry: NormalizedCase, bucket: str, refs: RefChecker, *, allow_legacy_filename_fallback: bool = False
) -> bool:
    """True when the normalized case `entry` covers `bucket` (`caseHasBucketCoverage`).

    The case must declare the bucket's tag (or, with `allow_legacy_filename_fallback`,
    sit in a file whose name matches it, the tag then being added) and have no
    validation error (`missing_coverage_tags` is forgiven with the fallback). `refs`
    decides where `source_refs` are looked up.
    """
    if bucket not in c.BUCKETS:
        return False
    if has_bucket_tag(entry, bucket):
        strict = entry
    elif allow_legacy_filename_fallback and file_name_matches_bucket(entry.get("source_file"), bucket):
        tags = entry.get("coverage_tags") if isinstance(entry.get("coverage_tags"), list) else []
        strict = {**entry, "coverage_tags": c.unique([*tags, bucket]), "coverage_basis": LEGACY_FILENAME}
    else:
        return False
    errors = validate_case(strict, refs)
    relevant = [
        error
        for error in errors
        if not (allow_legacy_filename_fallback and error["reason_code"] == c.MISSING_COVERAGE_TAGS)
    ]
    return not relevant


def bucket_coverage_basis(entry: NormalizedCase, bucket: str) -> str | None:
    """How a case is placed in `bucket`: `declared_coverage_tags`, `legacy_filename_fallback`
    or None (`bucketCoverageBasis`)."""
    if has_bucket_tag(entry, bucket):
        return DECLARED
    if file_name_matches_bucket(entry.get("source_file"), bucket):
        return LEGACY_FILENAME
    return None


@dataclass
class BucketReadiness:
    """One bucket of one skill: the ids of the valid cases declaring it (`cases`), of the
    cases declaring it that do not validate (`invalid_cases`), and of the valid cases that
    would count only by the legacy file-name fallback (`fallback_cases`)."""

    bucket: str
    required: bool
    cases: list[str] = field(default_factory=list)
    invalid_cases: list[str] = field(default_factory=list)
    fallback_cases: list[str] = field(default_factory=list)

    @property
    def covered(self) -> bool:
        return bool(self.cases)

    @property
    def basis(self) -> str | None:
        """The coverage basis the bucket is met on: declared tags, else (not counted for
        readiness) the legacy file-name fallback, else None."""
        if self.cases:
            return DECLARED
        return LEGACY_FILENAME if self.fallback_cases else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "required": self.required,
            "covered": self.covered,
            "basis": self.basis,
            "cases": self.cases,
            "invalid_cases": self.invalid_cases,
            "legacy_filename_fallback_cases": self.fallback_cases,
        }


@dataclass
class SkillReadiness:
    """The readiness of one skill: its files and its buckets in `contract.BUCKETS` order."""

    skill: str | None
    files: list[str] = field(default_factory=list)
    buckets: list[BucketReadiness] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        """The required buckets no valid case declares."""
        return [b.bucket for b in self.buckets if b.required and not b.covered]

    @property
    def ready(self) -> bool:
        return not self.missing

    def next_steps(self) -> list[str]:
        """What would make each missing required bucket covered, most direct first: fix the
        cases tagged for it, tag the cases that count only by file name, or add a case."""
        steps = []
        for bucket in self.buckets:
            if not bucket.required or bucket.covered:
                continue
            if bucket.invalid_cases:
                steps.append(f"fix the validation errors of {_ids(bucket.invalid_cases)} (tagged {bucket.bucket})")
            elif bucket.fallback_cases:
                steps.append(f"add '{bucket.bucket}' to the coverage_tags of {_ids(bucket.fallback_cases)}")
            else:
                steps.append(f"add a valid case tagged '{bucket.bucket}'")
        return steps

    def as_dict(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "ready": self.ready,
            "missing": self.missing,
            "files": self.files,
            "buckets": {b.bucket: b.as_dict() for b in self.buckets},
        }


def readiness(cases: list[NormalizedCase], refs: RefChecker) -> list[SkillReadiness]:
    """The readiness of every skill the normalized `cases` name, in order of first appearance.

    Cases without a skill are grouped under None. `refs` is the run's ref checker
    (`--no-ref-check` makes missing `source_refs` paths not count against a case).
    """
    skills: dict[Any, SkillReadiness] = {}
    add_readiness(skills, cases, refs)
    return list(skills.values())


def add_readiness(skills: dict[Any, SkillReadiness], cases: list[NormalizedCase], refs: RefChecker) -> None:
    """Count `cases` into `skills` (skill name -> its readiness so far), as `readiness` does:
    for a run that reads its files one at a time."""
    for entry in cases:
        skill = entry.get("skill") if c.is_non_empty_string(entry.get("skill")) else None
        record = skills.get(skill)
        if record is None:
            record = skills[skill] = SkillReadiness(
                skill, buckets=[BucketReadiness(b, b in c.REQUIRED_BUCKETS) for b in c.BUCKETS]
            )
        source = entry.get("source_file")
        if source and source not in record.files:
            record.files.append(source)
        case_id = c.js_string(entry.get("id"))
        for bucket in record.buckets:
            if has_bucket_tag(entry, bucket.bucket):
                target = bucket.cases if case_has_bucket_coverage(entry, bucket.bucket, refs) else bucket.invalid_cases
                target.append(case_id)
            elif case_has_bucket_coverage(entry, bucket.bucket, refs, allow_legacy_filename_fallback=True):
                bucket.fallback_cases.append(case_id)


def _count(ids: list[str]) -> str:
    return f"{len(ids)} case" + ("" if len(ids) == 1 else "s")


def _ids(ids: list[str], limit: int = 3) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def readiness_text(skills: list[SkillReadiness]) -> str:
    """The readiness report as text lines: one line per skill, one per bucket under it."""
    ready = sum(1 for skill in skills if skill.ready)
    lines = [
        f"readiness: {ready} of {len(skills)} skill{'s' if len(skills) != 1 else ''} ready "
        f"(required buckets: {', '.join(c.REQUIRED_BUCKETS)}; optional: {', '.join(c.OPTIONAL_BUCKETS)})"
    ]
    for skill in skills:
        name = skill.skill if skill.skill is not None else "(no skill)"
        state = "ready"
        if not skill.ready:
            state = f"NOT READY: no valid {' or '.join(skill.missing)} case; {'; '.join(skill.next_steps())}"
        lines.append(f"{name}: {state}")
        for bucket in skill.buckets:
            kind = "required" if bucket.required else "optional"
            if bucket.covered:
                detail = f"{_count(bucket.cases)} ({DECLARED})"
            else:
                detail = "missing" if bucket.required else "none"
            extra = []
            if bucket.invalid_cases:
                extra.append(
                    f"{_count(bucket.invalid_cases)} tagged but not valid ({_ids(bucket.invalid_cases)}): "
                    "fix the validation errors"
                )
            if bucket.fallback_cases and not bucket.covered:
                extra.append(
                    f"{_count(bucket.fallback_cases)} only by {LEGACY_FILENAME}, not counted "
                    f"({_ids(bucket.fallback_cases)}): add '{bucket.bucket}' to coverage_tags"
                )
            lines.append(f"  {bucket.bucket:<9} {kind:<9} {detail}" + "".join(f"; {item}" for item in extra))
    return "\n".join(lines) + "\n"
