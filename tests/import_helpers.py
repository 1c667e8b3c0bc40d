"""Helpers the import tests share: running an import in a temporary folder and checking it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fixture_migrate.contract import rules as c
from fixture_migrate.contract.conservation import missing_leaves
from fixture_migrate.contract.normalize import normalize_payload
from fixture_migrate.contract.validate import RefChecker, validate_cases
from fixture_migrate.importing.pipeline import ImportFailed, ImportPlan, ImportRequest, plan_import
from fixture_migrate.importing.readers import read_source, syntax_for
from fixture_migrate.migration.engine import Engine, Options

from tests.helpers import CORPUS, ROOT

EXTERNAL = CORPUS / "external"
EXAMPLES = ROOT / "examples" / "external"


def requires_external(folder: str) -> pytest.MarkDecorator:
    """Skip unless `../shared/corpus/external/<folder>/` exists (read in place, never copied)."""
    reason = (
        f"../shared/corpus/external/{folder} is absent: the external samples are read in place, never redistributed"
    )
    return pytest.mark.skipif(not (EXTERNAL / folder).is_dir(), reason=reason)


def corpus_files(folder: str, *suffixes: str) -> list[Path]:
    """The sample files of a corpus folder (recursively, sorted), `sources.json` left out."""
    base = EXTERNAL / folder
    if not base.is_dir():
        return []
    return sorted(
        p for p in base.rglob("*") if p.is_file() and p.name != "sources.json" and p.suffix.lower() in suffixes
    )


def plan(
    sources: Sequence[Path],
    dest: Path,
    *,
    root: Path,
    fmt: str = "auto",
    skill: str | None = "demo",
    fields: dict[str, str] | None = None,
    source_refs: Sequence[str] = (),
    authority: str = "source",
) -> ImportPlan:
    """The import's plan; fails the test with the reported errors when it is refused."""
    request = ImportRequest(
        sources=list(sources),
        dest=dest,
        repo_root=root,
        fmt=fmt,
        skill=skill,
        source_refs=list(source_refs),
        authority=authority,
        fields=dict(fields or {}),
    )
    try:
        return plan_import(request)
    except ImportFailed as failure:
        pytest.fail("; ".join(f"{path}: {error.message} [{error.code}]" for path, error in failure.errors))


def refused(sources: Sequence[Path], dest: Path, *, root: Path, **kwargs: Any) -> list[tuple[str, str, Any]]:
    """The `(path, code, message)` of each error of an import that must be refused."""
    request = ImportRequest(sources=list(sources), dest=dest, repo_root=root, **kwargs)
    with pytest.raises(ImportFailed) as caught:
        plan_import(request)
    return [(str(path), error.code, error.message) for path, error in caught.value.errors]


def check_import(sources: Sequence[Path], dest: Path, *, root: Path, **kwargs: Any) -> str:
    """The assertions every import gets; returns the canonical file's text.

    1. the import gives a canonical v1 file whose cases validate with no error
       (`validate --no-ref-check`), each citing its source record;
    2. every leaf of every file the file cites (its file-level `source_refs`) is in it;
    3. written and imported again, it gives the same bytes, and `migrate` leaves it as it is;
    4. no source changed.
    """
    before = {path: path.read_bytes() for path in sources}
    first = plan(sources, dest, root=root, **kwargs)
    text = first.new_bytes.decode("utf-8")
    data = json.loads(text)
    assert data["schema_version"] == c.CANONICAL_SCHEMA_VERSION
    cases = normalize_payload(data, source_file="imported.json")
    assert cases and len(cases) == first.cases
    assert validate_cases(cases, RefChecker(root, check_exists=False)) == []
    for case in data["cases"]:
        (ref,) = case["source_refs"]
        assert ref.split("#")[0] in data["source_refs"]
    read = [
        read_source(root / ref, ref, syntax=None if syntax_for(Path(ref)) else "text").data
        for ref in data["source_refs"]
    ]
    assert not missing_leaves(read, [data])

    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(first.new_bytes)
    second = plan(sources, dest, root=root, **kwargs)
    assert not second.changed
    assert second.new_bytes == first.new_bytes
    assert Engine(Options(repo_root=root)).plan(dest).status == "unchanged"
    assert {path: path.read_bytes() for path in sources} == before
    return text
