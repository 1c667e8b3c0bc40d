"""Validation of normalized cases: the reference's reason codes, in its order of checks.

`validate_case` and `validate_cases` reproduce `validateNormalizedCase` and
`validateNormalizedCases` of the reference normalizer; the checks this tool
adds (`contract.EXTRA_REASON_CODES`) come after the reference's for the same
value and never replace one of them.
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.contract.normalize import NormalizedCase, case_list, case_outcome, resolve_skill

ValidationError = dict[str, Any]
"""`{reason_code, message, skill, id, source_file, ...extra}`, as the reference builds it."""


def make_error(reason_code: str, entry: dict[str, Any], message: str, **extra: Any) -> ValidationError:
    """An error object in the reference's shape (`error()`): falsy skill and id become null."""
    return {
        "reason_code": reason_code,
        "message": message,
        "skill": entry.get("skill") if c.js_truthy(entry.get("skill")) else None,
        "id": entry.get("id") if c.js_truthy(entry.get("id")) else None,
        "source_file": entry.get("source_file") if c.js_truthy(entry.get("source_file")) else None,
        **extra,
    }


class RefChecker:
    """Answers whether a repo-relative path exists under a repo root, never looking outside it.

    `root` is the repo root directory; `check_exists` False skips the existence check
    (`--no-ref-check`) and with it every filesystem lookup. Answers are cached per path
    for one run.

    A path is resolved one component at a time from the root: each component is
    looked at with `lstat` only once the part before it is known to lie inside the
    root, and a symlink's target is read and checked before it is followed. So a ref
    that leaves the root, lexically (`../x`) or through a symlink (`link/x` with
    `link -> /etc`), is never looked up where it leads.
    """

    _MAX_SYMLINKS = 40  # as the kernel's ELOOP limit: a symlink loop ends as "missing"

    def __init__(self, root: Path, *, check_exists: bool = True) -> None:
        self.root = Path(os.path.abspath(root))
        self.check_exists = check_exists
        self._real_root: str | None = None
        self._cache: dict[str, tuple[bool, bool]] = {}
        self._problems: dict[tuple[str, bool], list[tuple[str, str]]] = {}

    def held(self) -> int:
        """How many answers it holds in its caches (they grow with the distinct refs asked about)."""
        return len(self._cache) + len(self._problems)

    def problems(self, source_ref: Any, source_authority: bool) -> list[tuple[str, str]]:
        """`(reason code, message)` of each error the `source_refs` entry `source_ref` makes
        (`source_authority`: the case's authority is `source`), cached per run: most cases
        of a file inherit the same refs."""
        if source_ref.__class__ is not str:
            return _ref_problems(source_ref, source_authority, self)
        key = (source_ref, source_authority)
        found = self._problems.get(key)
        if found is None:
            found = self._problems[key] = _ref_problems(source_ref, source_authority, self)
        return found

    def lookup(self, path: str) -> tuple[bool, bool]:
        """`(escapes, exists)` for a repo-relative POSIX `path`.

        The path is first normalized lexically, as the reference's `path.join` does.
        `escapes` is True when it then leaves the root (`../x`) or, with existence
        checks on, when a symlink on it leads outside the root; `exists` is False for
        such a path (it is not looked up).
        """
        cached = self._cache.get(path)
        if cached is None:
            cached = self._cache[path] = self._lookup(path)
        return cached

    def _lookup(self, path: str) -> tuple[bool, bool]:
        normal = posixpath.normpath(path)
        if normal == ".." or normal.startswith("../"):
            return True, False
        if not self.check_exists:
            return False, True
        if self._real_root is None:
            self._real_root = os.path.realpath(self.root)
        root = self._real_root
        pending = [part for part in normal.split("/") if part not in ("", ".")]
        current = root
        hops = 0
        try:
            while pending:
                part = pending.pop(0)
                if part == "..":
                    # `current` is a real directory inside the root: its parent is the physical one.
                    if current == root:
                        return True, False
                    current = os.path.dirname(current)
                    continue
                candidate = os.path.join(current, part)
                info = os.lstat(candidate)
                if not stat.S_ISLNK(info.st_mode):
                    if pending and not stat.S_ISDIR(info.st_mode):
                        return False, False
                    current = candidate
                    continue
                hops += 1
                if hops > self._MAX_SYMLINKS:
                    return False, False
                link = os.readlink(candidate)
                if os.path.isabs(link):
                    target = os.path.normpath(link)
                    base = next((b for b in (root, str(self.root)) if _is_under(target, b)), None)
                    if base is None:
                        return True, False
                    current = root
                    link = os.path.relpath(target, base)
                pending[:0] = [p for p in link.split(os.sep) if p not in ("", ".")]
        except (OSError, ValueError):
            return False, False
        return False, True


def _is_under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


_PREFIXES = tuple(c.GENERATED_OR_HISTORICAL_PREFIXES)


def _ref_problems(source_ref: Any, source_authority: bool, refs: RefChecker) -> list[tuple[str, str]]:
    """`(reason code, message)` of each error one `source_refs` entry makes, in the
    reference's order; `source_authority` whether the case's authority is `source`."""
    if not c.is_non_empty_string(source_ref):
        return [(c.INVALID_SOURCE_REF, "source_ref must be a non-empty string")]
    source_path = source_ref.split("#")[0]
    if (
        not source_path
        or source_path.startswith(("http://", "https://"))
        or source_path.startswith("/")
        or "\\" in source_path
    ):
        return [(c.INVALID_SOURCE_REF, f"source_ref must be repo-relative POSIX path: {source_ref}")]
    problems = []
    escapes, exists = refs.lookup(source_path)
    if source_authority:
        for prefix in c.GENERATED_OR_HISTORICAL_PREFIXES if source_path.startswith(_PREFIXES) else ():
            if source_path.startswith(prefix):
                message = f"source_ref requires historical/advisory authority: {source_ref}"
                problems.append((c.SOURCE_REF_NOT_SOURCE_AUTHORITY, message))
        if refs.check_exists and not exists:
            problems.append((c.SOURCE_REF_MISSING, f"source_ref path does not exist: {source_ref}"))
    if escapes:
        problems.append(
            (c.SOURCE_REF_OUTSIDE_REPO, f"source_ref leaves the repo root and is not looked up: {source_ref}")
        )
    return problems


def _text(value: Any) -> bool:
    """`is_non_empty_string`, with the exact-str case first (this runs for every case read)."""
    if value.__class__ is str:
        return value != "" and (value[0] not in c.JS_WHITESPACE_SET or value.strip(c.JS_WHITESPACE) != "")
    return c.is_non_empty_string(value)


_VALID_TAGS: dict[str, bool] = {}
"""Whether a coverage tag (a `str`) is valid, per tag met: a few tags recur in every case."""


def _valid_tag(tag: Any) -> bool:
    if tag.__class__ is not str:
        return _text(tag) and bool(c.COVERAGE_TAG_RE.fullmatch(tag))
    valid = _VALID_TAGS.get(tag)
    if valid is None:
        if len(_VALID_TAGS) > 4096:  # a run over many distinct tags keeps a bounded memo
            _VALID_TAGS.clear()
        valid = _VALID_TAGS[tag] = _text(tag) and bool(c.COVERAGE_TAG_RE.fullmatch(tag))
    return valid


def validate_case(entry: NormalizedCase, refs: RefChecker) -> list[ValidationError]:
    """The errors of one normalized case, in the reference's order (`validateNormalizedCase`).

    `refs` decides where `source_refs` paths are looked up. Returns a list of error
    objects; empty when the case is valid.
    """
    errors: list[ValidationError] = []
    get = entry.get
    blank_start = c.JS_WHITESPACE_SET
    # `_text` of skill, id and input, inlined for the common case: a string whose first
    # character is not blank.
    value = get("skill")
    if not (value.__class__ is str and value != "" and value[0] not in blank_start) and not _text(value):
        errors.append(make_error(c.MISSING_SKILL, entry, "case skill must be a non-empty string"))
    value = get("id")
    if not (value.__class__ is str and value != "" and value[0] not in blank_start) and not _text(value):
        errors.append(make_error(c.MISSING_ID, entry, "case id must be a non-empty string"))
    value = get("input")
    if not (value.__class__ is str and value != "" and value[0] not in blank_start) and not _text(value):
        errors.append(make_error(c.MISSING_INPUT, entry, "case input must be a non-empty string"))
    tags = get("coverage_tags")
    is_list = isinstance(tags, list)
    if not is_list or not tags:
        errors.append(make_error(c.MISSING_COVERAGE_TAGS, entry, "case coverage_tags must be a non-empty array"))
    else:
        for tag in tags:
            if not _valid_tag(tag):
                errors.append(make_error(c.INVALID_COVERAGE_TAG, entry, f"invalid coverage tag: {c.js_string(tag)}"))
    source_refs = get("source_refs")
    if not isinstance(source_refs, list) or not source_refs:
        errors.append(make_error(c.MISSING_SOURCE_REFS, entry, "case source_refs must be a non-empty array"))
    authority = get("source_ref_authority")
    if not isinstance(authority, str) or authority not in c.SOURCE_REF_AUTHORITIES:
        message = f"invalid source_ref_authority: {c.js_string(authority)}"
        errors.append(make_error(c.INVALID_SOURCE_REF_AUTHORITY, entry, message))
    if isinstance(source_refs, list) and source_refs:
        source_authority = authority == "source"
        problems = refs.problems
        for source_ref in source_refs:  # each entry's problems, in the reference's order
            for code, message in problems(source_ref, source_authority):
                errors.append(make_error(code, entry, message))

    # `has_bucket_tag` for each bucket, on the tags read once.
    trigger = is_list and "trigger" in tags
    expected = is_list and "expected" in tags
    boundary = is_list and "boundary" in tags
    if not (trigger or expected or boundary):
        return errors
    has_outcome = c.is_non_empty_expected(get("expected_outcome"))
    if trigger and not has_outcome:
        errors.append(make_error(c.MISSING_EXPECTED_OUTCOME, entry, "trigger cases require expected_outcome"))
    if expected and not has_outcome:
        errors.append(make_error(c.MISSING_EXPECTED_OUTCOME, entry, "expected cases require expected_outcome"))
    forbidden = get("forbidden_signals")
    if (
        boundary
        and not has_outcome
        and not _text(get("boundary_note"))
        and (not isinstance(forbidden, list) or not forbidden)
    ):
        message = "boundary cases require expected_outcome, boundary_note, or forbidden_signals"
        errors.append(make_error(c.MISSING_BOUNDARY_EVIDENCE, entry, message))
    return errors


class CaseIdRegistry:
    """Remembers `(skill, id)` pairs across files to find duplicate case ids (`validateNormalizedCases`).

    The key is the reference's string `${skill}:${id}`, so collisions it makes are made too.
    """

    def __init__(self) -> None:
        # Only the key and the first case's source file: a run over many files keeps no case.
        self._seen: dict[str, Any] = {}

    def check(self, entry: NormalizedCase) -> ValidationError | None:
        """The `duplicate_case_id` error for `entry`, or None the first time its key is seen."""
        key = f"{c.js_string(entry.get('skill'))}:{c.js_string(entry.get('id'))}"
        if key not in self._seen:
            self._seen[key] = entry.get("source_file")
            return None
        message = f"duplicate case id for {c.js_string(entry.get('skill'))}: {c.js_string(entry.get('id'))}"
        return make_error(c.DUPLICATE_CASE_ID, entry, message, previous_source_file=self._seen[key])


def validate_cases(
    cases: list[NormalizedCase], refs: RefChecker, ids: CaseIdRegistry | None = None
) -> list[ValidationError]:
    """The errors of a list of normalized cases, case by case, duplicates after each case's own.

    Pass the same `ids` registry for every file of a run to find duplicates across files.
    """
    ids = ids if ids is not None else CaseIdRegistry()
    errors: list[ValidationError] = []
    for entry in cases:
        errors.extend(validate_case(entry, refs))
        duplicate = ids.check(entry)
        if duplicate is not None:
            errors.append(duplicate)
    return errors


def has_bucket_tag(entry: NormalizedCase, bucket: str) -> bool:
    """True when the case's `coverage_tags` array holds `bucket` (`hasBucketTag`)."""
    tags = entry.get("coverage_tags")
    return isinstance(tags, list) and bucket in tags


def _distinct(values: list[Any]) -> Any:
    """The items of `values` without repeats (all of them where one cannot be hashed)."""
    try:
        return dict.fromkeys(values)
    except TypeError:
        return values


def clean_case_ids(
    payload: Any, refs: RefChecker, *, source_file: str | None, skill: str | None = None
) -> tuple[str, list[str]] | int:
    """`(skill, ids)` of the cases `normalize_payload(payload, source_file=source_file,
    skill=skill)` gives, in order, when `validate_case` finds no error in any of them: proven
    without building them. Where this cannot prove it (a case with an error, or any value of
    a type or form it does not follow: a non-object case, a tag or ref that `string_array`
    would drop, a boundary case without an expected outcome), the number of cases at the
    start of the case list proven valid (each an object, so the first cases normalized):
    the caller then normalizes the cases, and needs to validate only those after them.

    The rules are the reference's (`normalizeFixturePayload`, `validateNormalizedCase`), as
    `normalize_payload` and `validate_case` write them: a case's skill is the file's, its id
    its own or its name's slug or `case-<n>`, its input the first non-blank of
    `contract.INPUT_SOURCES`, its tags and refs the file's then its own, its authority its
    own if truthy else the file's. Every id returned is a `str`, and so is the skill.
    """
    if payload.__class__ is not dict:
        return 0
    resolved = resolve_skill(payload, skill, source_file)
    if resolved.__class__ is not str or not _text(resolved):
        return 0
    file_tags = c.string_array(payload.get("coverage_tags"))
    file_refs = c.string_array(payload.get("source_refs"))
    if not all(_valid_tag(tag) for tag in file_tags):
        return 0
    file_authority = payload.get("source_ref_authority")
    if not c.js_truthy(file_authority):
        file_authority = c.DEFAULT_SOURCE_REF_AUTHORITY
    blank_start, whitespace = c.JS_WHITESPACE_SET, c.JS_WHITESPACE
    authorities = c.SOURCE_REF_AUTHORITIES
    valid_tags = _VALID_TAGS
    problems = refs.problems
    files_clean: dict[bool, bool] = {}
    ids: list[str] = []
    for index, entry in enumerate(case_list(payload)):
        if entry.__class__ is not dict:
            return index
        get = entry.get
        authority = get("source_ref_authority")
        if authority is None or not (authority if authority.__class__ is str else c.js_truthy(authority)):
            authority = file_authority
        if authority.__class__ is not str or authority not in authorities:
            return index
        # The case's tags as a collection (each once, when there are many): what is asked of
        # them is whether each is valid and whether a bucket's tag is among them.
        tags = get("coverage_tags")
        if tags is None:
            tags = file_tags
        elif tags.__class__ is list:
            if len(tags) >= 8:
                tags = _distinct(tags)
            for tag in tags:  # every own tag a valid one (`string_array` keeps each then)
                if tag.__class__ is not str or not (valid_tags.get(tag) or _valid_tag(tag)):
                    return index
            if file_tags:
                tags = file_tags + list(tags)
        else:
            return index
        if not tags:
            return index
        own_refs = get("source_refs")
        if own_refs is None:
            if not file_refs:
                return index
            own_refs = ()
        elif own_refs.__class__ is list:
            if len(own_refs) >= 4:  # a ref repeated is looked at once
                own_refs = _distinct(own_refs)
            for ref in own_refs:  # every own ref a non-blank string (`string_array` keeps each then)
                if ref.__class__ is not str or ref == "" or (ref[0] in blank_start and ref.strip(whitespace) == ""):
                    return index
            if not own_refs and not file_refs:
                return index
        else:
            return index
        source_authority = authority == "source"
        # The file's refs are looked at once per authority; a ref repeated is looked at once.
        file_clean = files_clean.get(source_authority)
        if file_clean is None:
            file_clean = files_clean[source_authority] = not any(
                problems(ref, source_authority) for ref in dict.fromkeys(file_refs)
            )
        if not file_clean:
            return index
        for ref in own_refs:
            if problems(ref, source_authority):
                return index
        case_id = get("id")
        if not (case_id.__class__ is str and _text(case_id)):  # else the id, as it is
            if case_id is not None and case_id.__class__ is not str:
                return index
            name = get("name")  # `normalize_case_id`: the name's slug, else `case-<n>`
            if name is None:
                case_id = f"case-{index + 1}"
            elif name.__class__ is str:
                case_id = c.slugify(name) if _text(name) else f"case-{index + 1}"
                if not _text(case_id):
                    return index
            else:
                return index
        value = get("input")  # the first of `contract.INPUT_SOURCES`: another one is not followed
        if not (
            value.__class__ is str and value != "" and (value[0] not in blank_start or value.strip(whitespace) != "")
        ):
            return index
        if "trigger" in tags or "expected" in tags or "boundary" in tags:
            outcome = case_outcome(entry)
            if not (
                outcome.__class__ is str
                and outcome != ""
                and (outcome[0] not in blank_start or outcome.strip(whitespace) != "")
            ) and not c.is_non_empty_expected(outcome):
                return index
        ids.append(case_id)
    return resolved, ids
