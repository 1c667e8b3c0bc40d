"""Is an imported case still what its record gives? The canonical file wins.

An export gives a case back as the record the import kept (`extensions.<format>`) only
when importing that record again gives the case as it is now: the same core fields
(`id`, `input`, `expected_outcome`, `coverage_tags`, `forbidden_signals`,
`boundary_note`, `source_refs`) and the same `extensions`, nothing added. A case
edited since the import (or one whose `extensions.import` names the format without a
record) fails that test and is mapped from its current fields instead (see
`exporting.pipeline`).

The record is imported on its own, as a one-record source in the syntax it came
from; a promptfoo test inside a config built from the config members the import kept
(`defaultTest`, `prompts`, ...), so the defaults apply as they did. Members that only
say where the record stood (`extensions.import.locator`, `index`, `keys`, the
`-2` of a repeated id, a promptfoo scenario's position) are not compared.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from fixture_migrate.files.root import is_inside
from fixture_migrate.importing.base import ABSENT, ExportContext, ImportAdapter, Job, extension
from fixture_migrate.importing.pipeline import case_extensions, case_members
from fixture_migrate.importing.readers import Source, syntax_for

IMPORT_KEYS = frozenset({"format", "source_file", "locator", "index", "id", "keys"})
"""The members `extensions.import` of a case holds after an import."""


def _origin_syntax(source_file: str, fallback: str) -> str:
    return syntax_for(Path(source_file)) or fallback


def derive(
    adapter: ImportAdapter,
    case: dict[str, Any],
    file: dict[str, Any],
    repo_root: Path,
    shown: str,
    dest: Path | None = None,
) -> dict[str, Any] | None:
    """The case an import of the case's kept record gives (core fields and `extensions`), or
    None when the record cannot be imported on its own. The files a promptfoo test
    references are read beside its config: where the canonical file cites it, else
    beside `dest` (an export onto the config, cited under another path)."""
    info = extension(case, "import")
    source_file = info.get("source_file")
    if not isinstance(source_file, str) or not source_file:
        return None
    syntax = _origin_syntax(source_file, "json")
    context = ExportContext(file, shown, syntax, None)
    try:
        record = adapter.record_of(case, context)
    except Exception:  # noqa: BLE001 - a record that cannot be rebuilt is not the case's
        return None
    if not isinstance(record, dict) or not record:
        return None
    data: Any = [copy.deepcopy(record)]
    path = repo_root / source_file
    header = list(record) if syntax == "csv" else None
    if adapter.format == "promptfoo":
        return _promptfoo(adapter, case, record, file, repo_root, path, syntax, dest)
    if adapter.format == "skill-creator" and str(info.get("locator", "")).startswith("/evals/"):
        data = {"evals": data}
    source = Source(
        path=path,
        ref=source_file,
        syntax=syntax,
        data=data,
        raw=b"",
        record_lines=[1],
        header=header,
    )
    job = Job(root=repo_root)
    try:
        drafts = adapter.build([source], job)
    except Exception:  # noqa: BLE001 - not importable alone: not verifiably the case's record
        return None
    return _derived(adapter, case, drafts)


def _derived(adapter: ImportAdapter, case: dict[str, Any], drafts: list[Any]) -> dict[str, Any] | None:
    scenario = extension(case, adapter.namespace).get("scenario")
    if len(drafts) > 1 and isinstance(scenario, dict):  # one draft per `config` entry of the scenario
        drafts = [d for d in drafts if d.extensions.get("scenario", {}).get("config") == scenario.get("config")]
    if len(drafts) != 1:
        return None
    draft = drafts[0]
    derived = case_members(draft, draft.id)
    derived["extensions"] = case_extensions(draft, adapter.namespace)
    return derived


def _promptfoo(
    adapter: Any,
    case: dict[str, Any],
    record: dict[str, Any],
    file: dict[str, Any],
    root: Path,
    path: Path,
    syntax: str,
    dest: Path | None,
) -> dict[str, Any] | None:
    """A promptfoo test imported again under the config members the import kept (its
    `defaultTest` applies as it did): inline in that config when it came from it, else as
    the one test of its tests file."""
    from fixture_migrate.adapters.promptfoo import _Resolver

    kept = extension(file, "promptfoo")
    members = {k: copy.deepcopy(v) for k, v in kept.items() if k not in ("tests", "scenarios", "resolved_files")}
    config_ref = next((ref for ref in file.get("source_refs") or [] if _is_config_ref(ref)), None)
    source_file = extension(case, "import").get("source_file")
    job = Job(root=root)
    config_path = root / config_ref if config_ref is not None else None
    if config_path is not None and (not _inside(config_path, root) or not config_path.is_file()) and dest is not None:
        # Cited under another path (`--source-ref`): its files are looked for beside DEST.
        config_path = dest.parent / Path(str(config_ref)).name
        if isinstance(source_file, str) and source_file != config_ref:
            try:
                path = dest.parent / Path(source_file).relative_to(Path(str(config_ref)).parent)
            except ValueError:
                pass
        else:
            path = config_path
    readable = [root] if dest is None else [root, dest.parent]  # DEST has met the root rule
    if not all(any(_inside(place, top) for top in readable) for place in (path, config_path or path)):
        # The canonical file says its cases came from outside the root: that is data, and
        # nothing it names out there is read. Not verifiably the record's: mapped from its fields.
        return None
    try:
        if config_ref is not None and source_file == config_ref:
            scenario = extension(case, "promptfoo").get("scenario")
            scenarios = kept.get("scenarios")
            if isinstance(scenario, dict) and isinstance(scenarios, list):
                try:
                    entries = scenarios[scenario["index"]]["config"]
                except (KeyError, IndexError, TypeError):
                    return None
                members["scenarios"] = [{"config": copy.deepcopy(entries), "tests": [record]}]
            else:
                members["tests"] = [record]
            config = Source(path=path, ref=source_file, syntax=syntax, data=members, raw=b"")
            return _derived(adapter, case, adapter.build([config], job))
        config = None
        defaults: dict[str, Any] = {}
        if config_ref is not None and members:
            config = Source(path=config_path or path, ref=config_ref, syntax=syntax, data=members, raw=b"")
        resolver = _Resolver(job, (config.path if config else path).parent, config)
        if config is not None:
            defaults = adapter._defaults(config, resolver)
        tests = Source(
            path=path,
            ref=str(source_file),
            syntax=syntax,
            data=[copy.deepcopy(record)],
            raw=b"",
            record_lines=[1],
            header=list(record) if syntax == "csv" else None,
        )
        return _derived(adapter, case, adapter._tests_file(tests, resolver, defaults, config))
    except Exception:  # noqa: BLE001 - not importable alone: not verifiably the case's record
        return None


def _inside(path: Path, root: Path) -> bool:
    """Whether `path`, made absolute with `..` collapsed, lies inside `root` (no lookup)."""
    return is_inside(os.path.normpath(os.path.abspath(path)), os.path.normpath(os.path.abspath(root)))


def _is_config_ref(ref: Any) -> bool:
    return isinstance(ref, str) and "#" not in ref and Path(ref).suffix.lower() in (".yaml", ".yml", ".json")


def unchanged(adapter: ImportAdapter, case: dict[str, Any], derived: dict[str, Any] | None) -> bool:
    """True when `case` is what importing its record gives (`derived`), nothing edited."""
    if derived is None:
        return False
    info = extension(case, "import")
    if set(info) - IMPORT_KEYS:
        return False
    allowed = {"id", "input", "coverage_tags", "expected_outcome", "boundary_note", "forbidden_signals"}
    allowed |= {"source_refs", "extensions"}
    if set(case) - allowed:
        return False
    proposed = info["id"] if isinstance(info.get("id"), str) else case.get("id")
    if derived["id"] != proposed:
        return False
    if isinstance(info.get("id"), str) and not (
        isinstance(case.get("id"), str) and case["id"].startswith(info["id"] + "-")
    ):
        return False
    for key in ("input", "coverage_tags", "expected_outcome", "boundary_note", "forbidden_signals"):
        if case.get(key, ABSENT) != derived.get(key, ABSENT):
            return False
    ref = f"{info.get('source_file')}#{info.get('locator')}"
    if case.get("source_refs") != [ref]:
        return False
    extensions = {k: v for k, v in (case.get("extensions") or {}).items() if k != "import"}
    expected = derived["extensions"]
    if adapter.format == "promptfoo":
        # The test as written is the record itself; a scenario's position is not compared.
        mine = dict(extensions.get("promptfoo", {}))
        theirs = dict(expected.get("promptfoo", {}))
        for member in ("test", "scenario"):
            mine.pop(member, None)
            theirs.pop(member, None)
        return mine == theirs and {k: v for k, v in extensions.items() if k != "promptfoo"} == {
            k: v for k, v in expected.items() if k != "promptfoo"
        }
    return extensions == expected
