"""promptfoo test cases (promptfoo/promptfoo): a config (`promptfooconfig.yaml`, any name) with
the tests files it loads, or tests files alone (a YAML/JSON list, JSON Lines, or CSV),
imported with `fixture-migrate import --from promptfoo`. One config per import.

(Some 1,050 lines, over the ~500 the project aims for: a promptfoo config reaches its
tests through several kinds of reference (`file://` paths, globs, vars files, assertion
values), and each is resolved, read and kept inside the config's folder here; the export
back to promptfoo (about 300 lines from `record_of` on) resolves the same references the
same way, so both sides stay in the one module that knows the format.)

**What is read.** The config's `tests` (inline tests, `file://` paths and globs, in
order; glob matches sorted) and `defaultTest` (inline or `file://`); inside tests
and `defaultTest`, the `file://` references the tests need: a `vars` file, var
values, `assert` entries naming a list of assertions, assertion `value`s
(`.json`/`.yaml`/`.yml` files are parsed, other text is read as text). Every
reference is resolved relative to the config's folder (promptfoo's base path; a
tests file imported alone is its own base) and must stay inside that folder tree:
a path leaving it (`..`, an absolute path, a symlink) is refused and never read; a
missing file is an error. `$ref: '#/...'` pointers into the config are resolved;
YAML anchors and aliases are resolved by the YAML reader.

**What is never read or run.** `prompts` and `providers` (at any level: a prompt
file may well be absent) are kept as written. Code references (`.py`, `.js`, `.ts`,
..., `file://x.py:fn`) in values, transforms and generators are kept as written
and listed under `unresolved`; binary var files (images, PDFs) likewise. A
`tests` generator, a remote dataset (`huggingface://`, a URL) or a glob that names
nothing is an error: those tests cannot be imported.

**defaultTest inheritance** (as promptfoo's evaluator applies it): the test's vars
over the default vars; the default `assert` list first, then the test's own
(none of the default's under `options.disableDefaultAsserts`); `options` and
`metadata` merged key by key, the test's winning; `threshold`, `provider`,
`providers`, `prompts` and `assertScoringFunction` where the test has none.

**CSV** (promptfoo's `testCaseFromCsvRow`): plain columns are vars; `__expected`,
`__expected<N>` cells are assertions (`type:value`, `not-type:value`,
`type(0.8):value`; `javascript:`/`fn:`/`eval:`, `grade:`/`llm-rubric:`, `python:`,
`file://*.py|*.js`; `contains-any`/`-all` values split on commas; any other cell is
an `equals` on the whole cell), the value after the colon trimmed;
`__description`, `__prefix`/`__suffix` (options), `__metric` (each assertion's
`metric`), `__threshold`, `__metadata:<key>` (`<key>[]` split on unescaped commas),
`__config:__expected<N>:threshold`. A CSV with only plain columns is promptfoo
only when `--from promptfoo` says so.

**Mapping.**
- `id`: the test's `id` or `metadata.id`, else the slug of `description`, else
  `test-<hash>` of the test's `{vars, assert}` as written (of the row, for CSV).
- `input`: the rendering of the effective `vars` by the shared rule (its value when
  it holds a single string; else `input`, `question`, `query`, `prompt`, ...; else
  `key: value` lines). A test without vars takes the config's prompt when it has
  exactly one, written inline; else its `description`. List-valued vars are not
  expanded into several cases (one case per test, the list kept in vars).
- `expected_outcome`: the effective assertions, a list of promptfoo assertion
  objects (executable detail kept); none when there are none.
- `forbidden_signals`: the string values of `not-contains`, `not-icontains`,
  `not-contains-any`, `not-icontains-any`, `not-equals`, `not-starts-with`.
- `coverage_tags`: `promptfoo` (file); `<key>-<value>` slugs of the effective
  `metadata` (list values flattened; `id` and values longer than 64 characters
  left out); `expected` when assertions exist.
- `extensions.promptfoo`: `test`, the test as written (a CSV row as
  `{column: cell}`); each effective member that differs from it (`vars`,
  `options`, `metadata`, `threshold`, `description`, ...); `default_asserts`, how
  many of the leading assertions came from `defaultTest`; `unresolved`.
- File level: `description`; `extensions.promptfoo` holds every config member but
  `tests` verbatim (`prompts`, `providers`, `defaultTest` as written, ...), `tests`
  itself when it names files, and `resolved_files`, the content of every
  referenced file read besides the tests files, under its reference as written.
"""

from __future__ import annotations

import copy
import glob
import json
import math
import os
import re
from pathlib import Path
from typing import Any

from fixture_migrate.contract import rules as c
from fixture_migrate.importing.base import (
    ABSENT,
    DROPPED,
    META_KEY,
    METADATA,
    TEXT,
    Draft,
    ExportContext,
    ImportAdapter,
    Job,
    Sniff,
    Source,
    SourceRecord,
    canonical_json,
    content_id,
    extension,
    fixture_metadata,
    origin_syntax,
    outcome_text,
    own_id,
    record_error,
    render_vars,
    slug_tag,
)
from fixture_migrate.importing.readers import PointerPath

ASSERTION_TYPES = (
    "answer-relevance", "bleu", "classifier", "contains", "contains-all", "contains-any", "contains-html",
    "contains-json", "contains-sql", "contains-xml", "context-faithfulness", "context-recall",
    "context-relevance", "conversation-relevance", "cost", "equals", "factuality", "finish-reason", "g-eval",
    "gleu", "guardrails", "icontains", "icontains-all", "icontains-any", "is-html", "is-json", "is-refusal",
    "is-sql", "is-valid-function-call", "is-valid-openai-function-call", "is-valid-openai-tools-call", "is-xml",
    "javascript", "latency", "levenshtein", "llm-rubric", "pi", "meteor", "model-graded-closedqa",
    "model-graded-factuality", "moderation", "perplexity", "perplexity-score", "python", "regex", "rouge-l",
    "rouge-n", "rouge-s", "ruby", "similar", "similar:cosine", "similar:dot", "similar:euclidean",
    "starts-with", "tool-call-f1", "skill-used", "trajectory:goal-success", "trajectory:tool-args-match",
    "trajectory:step-count", "trajectory:tool-sequence", "trajectory:tool-used", "trace-error-spans",
    "trace-span-count", "trace-span-duration", "search-rubric", "webhook", "word-count",
)  # fmt: skip
"""promptfoo's base assertion types (its `BaseAssertionTypesSchema`), in its order: a CSV
cell `type:value` is an assertion only for these (and their `not-` forms)."""

_ASSERTION_RE = re.compile(
    r"^(not-)?(" + "|".join(re.escape(t) for t in ASSERTION_TYPES) + r")(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?$"
)
ARRAY_TYPES = frozenset({"contains-all", "contains-any", "icontains-all", "icontains-any"})
RAW_TYPES = frozenset({"contains-json", "is-json"})
THRESHOLD_TYPES = frozenset(
    {
        "answer-relevance", "classifier", "context-faithfulness", "context-recall", "context-relevance", "cost",
        "latency", "levenshtein", "perplexity-score", "perplexity", "rouge-n", "similar", "starts-with",
    }
)  # fmt: skip
NEGATIVE_TYPES = frozenset(
    {"not-contains", "not-icontains", "not-contains-any", "not-icontains-any", "not-equals", "not-starts-with"}
)
CODE_SUFFIXES = (".py", ".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".rb", ".go", ".sh")
DATA_SUFFIXES = (".json", ".yaml", ".yml")
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm", ".xml", ".csv", ".tsv", ".j2", ".jinja", ".prompt", "")
TESTS_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl", ".csv")
RESERVED_COLUMNS = ("__expected", "__description", "__prefix", "__suffix", "__metric", "__threshold",
                    "__metadata", "__config:", "__providerOutput")  # fmt: skip
FILE = "file://"

GLOB_MAX_ENTRIES = 100_000
"""The most directory entries a `tests` glob may look at before it is refused."""


class _GlobTooWide(Exception):
    pass


def _glob_pattern(pattern: str) -> re.Pattern[str]:
    """A regular expression for a glob of `/`-separated parts: `**` spans any number of
    directories, `*` and `?` stay in one part and, as in `glob`, match no leading dot."""
    out = []
    parts = pattern.split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append("(?:[^/.][^/]*/)*" if not last else "(?:[^/.][^/]*(?:/|$))*")
            continue
        piece = ""
        j = 0
        while j < len(part):
            char = part[j]
            if char == "*":
                piece += "[^/]*"
            elif char == "?":
                piece += "[^/]"
            elif char == "[" and "]" in part[j + 2 :]:
                close = part.index("]", j + 2)
                content = part[j + 1 : close]
                if content.startswith("!"):
                    content = "^" + content[1:]
                piece += "[" + content.replace("\\", "\\\\") + "]"
                j = close
            else:
                piece += re.escape(char)
            j += 1
        if part[:1] in ("*", "?", "["):
            piece = "(?!\\.)" + piece
        out.append(piece + ("" if last else "/"))
    return re.compile("".join(out))


def _glob_files(tree: str, spec: str) -> list[str]:
    """The files (or symlinks to files) under `tree` that the glob `spec` names, found by a
    walk that never enters a symlinked directory (a link to a parent would loop) and looks at
    no more than `GLOB_MAX_ENTRIES` entries (else `_GlobTooWide`)."""
    parts = spec.replace(os.sep, "/").split("/")
    fixed: list[str] = []
    while len(parts) > 1 and not glob.has_magic(parts[0]):
        fixed.append(parts.pop(0))
    base = os.path.normpath(os.path.join(tree, *fixed)) if fixed else tree
    matcher = _glob_pattern("/".join(parts))
    found: list[str] = []
    seen = 0
    for directory, dirs, files in os.walk(base, followlinks=False):
        seen += len(dirs) + len(files)
        if seen > GLOB_MAX_ENTRIES:
            raise _GlobTooWide(f"looks at more than {GLOB_MAX_ENTRIES:,} entries: name a narrower folder")
        relative = os.path.relpath(directory, base)
        prefix = "" if relative == os.curdir else relative.replace(os.sep, "/") + "/"
        for name in files:
            if matcher.fullmatch(prefix + name) and os.path.isfile(os.path.join(directory, name)):
                found.append(os.path.join(directory, name))
    return found


INHERITED = ("threshold", "provider", "providers", "prompts", "assertScoringFunction")
"""`defaultTest` members a test without its own takes (besides vars, options, metadata, assert),
as promptfoo's evaluator lists them; other members of `defaultTest` are not test fields."""


def _is_code(spec: str) -> bool:
    path = spec.split("#")[0]
    return path.lower().endswith(CODE_SUFFIXES) or bool(re.search(r"\.(py|js|cjs|mjs|ts|cts|mts|rb):\w", path))


def _is_config(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and ("tests" in data or "defaultTest" in data or "scenarios" in data)
        and ("prompts" in data or "providers" in data)
    )


def _is_test(item: Any) -> bool:
    return isinstance(item, dict) and ("vars" in item or "assert" in item)


def _number(text: str) -> float | int | None:
    """`Number.parseFloat` of a string as JSON writes it (an integral value as an int); None
    when the text is not a finite number."""
    match = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text)
    if not match:
        return None
    value = float(match.group(0))
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else value


def assertion_from_string(expected: str) -> dict[str, Any]:
    """A promptfoo assertion object from a CSV `__expected` cell (already trimmed), as
    promptfoo's `assertionFromString` reads it (see the module docstring)."""
    for prefix in ("javascript:", "fn:", "eval:"):
        if expected.startswith(prefix):
            return {"type": "javascript", "value": expected[len(prefix) :].strip()}
    if expected.startswith(FILE) and re.search(r"\.(js|cjs|mjs|ts|cts|mts)(:|$)", expected):
        return {"type": "javascript", "value": expected[len(FILE) :].strip()}
    for prefix in ("grade:", "llm-rubric:"):
        if expected.startswith(prefix):
            return {"type": "llm-rubric", "value": expected[len(prefix) :].strip()}
    if expected.startswith("python:") or (expected.startswith(FILE) and re.search(r"\.py(:|$)", expected)):
        cut = len("python:") if expected.startswith("python:") else len(FILE)
        return {"type": "python", "value": expected[cut:].strip()}
    match = _ASSERTION_RE.match(expected)
    if match is None:
        return {"type": "equals", "value": expected}
    negated, base, threshold_text, value = match.groups()
    assertion: dict[str, Any] = {"type": f"not-{base}" if negated else base}
    if base in ARRAY_TYPES:
        if value is not None:
            assertion["value"] = [item.strip() for item in value.split(",")]
    elif base in RAW_TYPES:
        if value is not None:
            assertion["value"] = value
    else:
        if value is not None:
            assertion["value"] = value.strip()
        if base in THRESHOLD_TYPES:
            parsed = _number(threshold_text) if threshold_text else None
            assertion["threshold"] = parsed if parsed is not None else (0.8 if base == "similar" else 0.75)
    return assertion


def csv_row_to_test(row: dict[str, str]) -> dict[str, Any]:
    """The promptfoo test of one CSV row (`{column: cell}`), as `testCaseFromCsvRow` builds it."""
    variables: dict[str, Any] = {}
    asserts: list[dict[str, Any]] = []
    options: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    configs: dict[int, dict[str, Any]] = {}
    test: dict[str, Any] = {}
    metric = None
    for raw_key, value in row.items():
        key = raw_key.strip()
        if key.startswith("__expected"):
            if value.strip():
                asserts.append(assertion_from_string(value.strip()))
        elif key in ("__prefix", "__suffix"):
            options[key[2:]] = value
        elif key == "__description":
            if value:
                test["description"] = value
        elif key == "__providerOutput":
            if value:
                test["providerOutput"] = value
        elif key == "__metric":
            metric = value
        elif key == "__threshold":
            number = _number(value)
            if number:
                test["threshold"] = number
        elif key.startswith("__metadata:"):
            name = key[len("__metadata:") :]
            if name.endswith("[]"):
                if value.strip():
                    items = re.split(r"(?<!\\),", value)
                    metadata[name[:-2]] = [item.strip().replace("\\,", ",", 1) for item in items]
            elif value.strip():
                metadata[name] = value
        elif key.startswith("__config:"):
            target, _, setting = key[len("__config:") :].partition(":")
            index = 0 if target == "__expected" else _expected_index(target)
            number = _number(value)
            if index is not None and setting == "threshold" and number is not None:
                configs.setdefault(index, {})[setting] = number
        elif key == "__metadata":
            continue  # promptfoo ignores a `__metadata` column without a key (the cell stays in `test`)
        else:
            variables[key] = value
    for index, assertion in enumerate(asserts):
        if metric:
            assertion["metric"] = metric
        assertion.update(configs.get(index, {}))
    result: dict[str, Any] = {"vars": variables, "assert": asserts}
    if options:
        result["options"] = options
    result.update(test)
    if metadata:
        result["metadata"] = metadata
    return result


def _expected_index(target: str) -> int | None:
    match = re.fullmatch(r"__expected(\d+)", target)
    return int(match.group(1)) - 1 if match and int(match.group(1)) > 0 else None


class _Resolver:
    """Resolves the `file://` and `$ref` references of tests for one config (or tests file).

    `tree` is the folder references are relative to (never left); `config` the config
    source, if any (for `$ref`); `resolved` maps each reference as written to the content
    read; `unresolved` collects the references kept as written.
    """

    def __init__(self, job: Job, tree: Path, config: Source | None) -> None:
        self.job = job
        self.tree = tree
        self.config = config
        self.resolved: dict[str, Any] = {}
        self.unresolved: list[str] = []

    def file(self, base: Source, spec: str, at: PointerPath, *, what: str, syntax: str | None = None) -> Source:
        return self.job.read(base, spec, at=at, tree=self.tree, what=what, syntax=syntax)

    def value(self, base: Source, ref: str, at: PointerPath, what: str) -> Any:
        """The content a `file://` value stands for, or `ref` itself when it is not read."""
        spec = ref[len(FILE) :]
        suffix = Path(spec.split("#")[0]).suffix.lower()
        if _is_code(spec) or glob.has_magic(spec) or not (suffix in DATA_SUFFIXES or suffix in TEXT_SUFFIXES):
            self.unresolved.append(ref)
            return ref
        syntax = None if suffix in DATA_SUFFIXES else "text"
        content = self.file(base, spec, at, what=what, syntax=syntax).data
        self.resolved.setdefault(ref, content)
        return content

    def test(self, base: Source, test: dict[str, Any], at: PointerPath) -> dict[str, Any]:
        """A test (or `defaultTest`) with its references resolved; `test` is not changed."""
        test = self.refs(base, test, at)
        result = dict(test)
        variables = test.get("vars")
        if isinstance(variables, str) and variables.startswith(FILE):
            loaded = self.value(base, variables, at + ("vars",), "vars file")
            if loaded is not variables and not isinstance(loaded, dict):
                raise base.error(f"vars file {variables!r} does not hold a map of vars", "bad_ref", at + ("vars",))
            variables = loaded
        if isinstance(variables, dict):
            variables = {
                key: self.value(base, value, at + ("vars", key), "var file")
                if isinstance(value, str) and value.startswith(FILE)
                else value
                for key, value in variables.items()
            }
        if "vars" in test:
            result["vars"] = variables
        if "assert" in test:
            result["assert"] = self.assertions(base, test["assert"], at + ("assert",))
        return result

    def assertions(self, base: Source, items: Any, at: PointerPath, depth: int = 0) -> Any:
        """An `assert` list with its file references resolved: a `file://` entry naming a
        YAML/JSON list (or one assertion) is spliced in, its own values resolved in turn."""
        if isinstance(items, str) and items.startswith(FILE):
            items = [items]
        if not isinstance(items, list):
            return items
        if depth > 10:
            raise base.error("assertion files include each other more than 10 levels deep", "bad_ref", at)
        found: list[Any] = []
        for index, item in enumerate(items):
            where = at + (index,)
            if isinstance(item, str) and item.startswith(FILE):
                spec = item[len(FILE) :]
                if _is_code(spec):
                    self.unresolved.append(item)
                    found.append(item)
                    continue
                loaded = self.file(base, spec, where, what="assertions file")
                self.resolved.setdefault(item, loaded.data)
                if isinstance(loaded.data, list):
                    found.extend(self.assertions(loaded, loaded.data, (), depth + 1))
                else:
                    found.extend(self.assertions(loaded, [loaded.data], (), depth + 1))
            elif isinstance(item, dict):
                resolved = dict(item)
                value = item.get("value")
                if isinstance(value, str) and value.startswith(FILE):
                    resolved["value"] = self.value(base, value, where + ("value",), "assertion value file")
                if item.get("type") == "assert-set" and "assert" in item:
                    resolved["assert"] = self.assertions(base, item["assert"], where + ("assert",), depth)
                found.append(resolved)
            else:
                found.append(item)
        return found

    def refs(self, base: Source, value: Any, at: PointerPath, depth: int = 0) -> Any:
        """`value` with `{"$ref": "#/..."}` objects replaced by what they point at in the config."""
        if isinstance(value, list):
            return [self.refs(base, item, at + (i,), depth) for i, item in enumerate(value)]
        if not isinstance(value, dict):
            return value
        target = value.get("$ref")
        if isinstance(target, str):
            if not target.startswith("#/") or self.config is None or depth > 20:
                self.unresolved.append(target)
                return value
            pointed: Any = self.config.data
            for part in target[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if isinstance(pointed, dict) and part in pointed:
                    pointed = pointed[part]
                elif isinstance(pointed, list) and part.isdigit() and int(part) < len(pointed):
                    pointed = pointed[int(part)]
                else:
                    raise base.error(f"$ref {target!r} points at nothing in {self.config.name}", "missing_ref", at)
            return self.refs(base, copy.deepcopy(pointed), at, depth + 1)
        return {key: self.refs(base, item, at + (key,), depth) for key, item in value.items()}


def _merge(defaults: dict[str, Any], test: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The effective test under `defaults` (see the module docstring), and how many of its
    assertions came from the defaults."""
    effective = dict(test)
    if not defaults:
        return effective, 0
    options = test.get("options") if isinstance(test.get("options"), dict) else {}
    for key in ("vars", "options", "metadata"):
        base, own = defaults.get(key), test.get(key)
        if isinstance(base, dict) and (own is None or isinstance(own, dict)):
            effective[key] = {**base, **(own or {})}
    inherited: list[Any] = []
    if not options.get("disableDefaultAsserts") and isinstance(defaults.get("assert"), list):
        inherited = list(defaults["assert"])
    own = test.get("assert")
    if own is None or isinstance(own, list):
        if inherited or own is not None:
            effective["assert"] = inherited + (own or [])
    else:
        inherited = []  # an `assert` that is not a list is kept as written, nothing merged into it
    for key in INHERITED:
        if key in defaults and effective.get(key) is None:
            effective[key] = defaults[key]
    return effective, len(inherited)


class PromptfooAdapter(ImportAdapter):
    name = "promptfoo"
    format = "promptfoo"
    tag = "promptfoo"
    namespace = "promptfoo"
    summary = "promptfoo configs and tests files (YAML, JSON, JSONL, CSV), defaultTest applied: import and export"
    id_rule = (
        "id or metadata.id, else slug of description, else test-<sha256 of {vars, assert} as written (CSV: of the row)>"
    )

    export_syntaxes = ("yaml", "json", "csv", "jsonl")

    def name_hint(self, path: Path) -> bool:
        return path.name.lower().startswith("promptfooconfig") or "promptfoo" in path.as_posix().lower()

    def sniff(self, source: Source) -> Sniff | None:
        data = source.data
        if source.syntax == "csv":
            if any(column.strip().startswith(RESERVED_COLUMNS) for column in source.header or ()):
                return Sniff("cases", "promptfoo tests CSV")
            return Sniff(miss="a CSV with only plain columns may hold promptfoo vars; say so with --from promptfoo")
        if source.syntax in ("yaml", "json") and isinstance(data, dict):
            return Sniff("cases", "promptfoo config") if _is_config(data) else None
        if isinstance(data, list) and data and _is_test(data[0]):
            for record in source.records():
                if not _is_test(record.data):
                    return Sniff(miss=f"record {record.locator} has neither `vars` nor `assert`")
            return Sniff("cases", "promptfoo tests")
        return None

    def build(self, sources: list[Source], job: Job) -> list[Draft]:
        configs = [s for s in sources if s.syntax in ("yaml", "json") and _is_config(s.data)]
        if len(configs) > 1:
            raise configs[1].error(
                f"a second promptfoo config (after {configs[0].path}): import each config to its own file",
                "two_configs",
            )
        drafts: list[Draft] = []
        loaded: set[Path] = set()
        for config in configs:
            drafts.extend(self._config(config, job, loaded))
        for source in sources:
            if source in configs:
                continue
            if source.path.resolve() in loaded:
                job.note(f"{source.path}: loaded by the config, imported once")
                continue
            resolver = _Resolver(job, source.path.parent, None)
            drafts.extend(self._tests_file(source, resolver, {}, None))
            if resolver.resolved:
                job.extensions.setdefault("resolved_files", {}).update(resolver.resolved)
        return drafts

    def _config(self, config: Source, job: Job, loaded: set[Path]) -> list[Draft]:
        data = config.data
        resolver = _Resolver(job, config.path.parent, config)
        if c.is_non_empty_string(data.get("description")):
            job.description = data["description"]
        defaults = self._defaults(config, resolver)
        tests = data.get("tests")
        if tests is None and data.get("scenarios") is None:
            raise config.error("the config has no `tests` and no `scenarios`: nothing to import", "no_cases")
        entries = [] if tests is None else [tests] if isinstance(tests, str) else tests
        if not isinstance(entries, list):
            raise config.error("`tests` is neither a list nor a file reference", "bad_tests", ("tests",))
        leftovers = {key: value for key, value in data.items() if key != "tests"}
        refs = [entry for entry in entries if isinstance(entry, str)]
        if refs:
            leftovers["tests"] = tests if isinstance(tests, str) else refs
        job.extensions.update(leftovers)

        inline = config.records(("tests",)) if isinstance(tests, list) else []
        drafts: list[Draft] = []
        for index, entry in enumerate(entries):
            at: PointerPath = ("tests",) if isinstance(tests, str) else ("tests", index)
            if isinstance(entry, dict):
                drafts.append(self._case(inline[index], resolver, defaults, config))
            elif isinstance(entry, str):
                for tests_file in self._tests_files(config, entry, at, resolver):
                    loaded.add(tests_file.path.resolve())
                    drafts.extend(self._tests_file(tests_file, resolver, defaults, config))
            else:
                raise config.error("a `tests` entry is neither a test nor a file reference", "bad_tests", at)
        matrix = self._scenarios(config, resolver, defaults)
        if matrix:
            job.note(f"mapped: {config.path}: {len(matrix)} case(s) from `scenarios`, one per test and config entry")
        drafts.extend(matrix)
        if resolver.resolved:
            job.extensions["resolved_files"] = resolver.resolved
        return drafts

    def _scenarios(self, config: Source, resolver: _Resolver, defaults: dict[str, Any]) -> list[Draft]:
        """One case per test and `config` entry of each scenario, as promptfoo runs them: the
        entry's vars, options, metadata and assertions under the test's, then `defaultTest`."""
        scenarios = config.data.get("scenarios")
        if scenarios is None:
            return []
        if not isinstance(scenarios, list):
            raise config.error("`scenarios` is not a list", "bad_tests", ("scenarios",))
        drafts: list[Draft] = []
        for index, scenario in enumerate(scenarios):
            at: PointerPath = ("scenarios", index)
            if not isinstance(scenario, dict) or not isinstance(scenario.get("tests", []), list):
                raise config.error("a scenario is an object with a `tests` list", "bad_tests", at)
            entries = scenario.get("config") or [{}]
            if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                raise config.error("a scenario's `config` is a list of objects", "bad_tests", at + ("config",))
            records = config.records(at + ("tests",)) if scenario.get("tests") else []
            for number, entry in enumerate(entries):
                overlay = resolver.test(config, entry, at + ("config", number))
                label = _entry_label(entry, number) if len(entries) > 1 else None
                for record in records:
                    draft = self._case(record, resolver, defaults, config, overlay=overlay)
                    draft.extensions["scenario"] = {"index": index, "config": number}
                    if label:
                        draft.id = f"{draft.id}-{label}"
                    drafts.append(draft)
        return drafts

    def _defaults(self, config: Source, resolver: _Resolver) -> dict[str, Any]:
        default = config.data.get("defaultTest")
        at: PointerPath = ("defaultTest",)
        if default is None:
            return {}
        if isinstance(default, str):
            if not default.startswith(FILE) or _is_code(default[len(FILE) :]):
                raise config.error(f"defaultTest {default!r} is not a YAML or JSON file; not read", "bad_ref", at)
            source = resolver.file(config, default[len(FILE) :], at, what="defaultTest file")
            if not isinstance(source.data, dict):
                raise source.error("a defaultTest file holds one object", "bad_ref")
            resolver.resolved.setdefault(default, source.data)
            return resolver.test(source, source.data, ())
        if not isinstance(default, dict):
            raise config.error("`defaultTest` is neither an object nor a file reference", "bad_ref", at)
        return resolver.test(config, default, at)

    def _tests_files(self, config: Source, ref: str, at: PointerPath, resolver: _Resolver) -> list[Source]:
        if not ref.startswith(FILE):
            raise config.error(
                f"tests from {ref!r} are not a local file: export them to a file and import that", "unsupported_ref", at
            )
        spec = ref[len(FILE) :]
        if _is_code(spec):
            raise config.error(f"tests generator {ref!r} is never run: export its tests to a file", "generator", at)
        if not glob.has_magic(spec):
            specs = [spec]
        else:
            try:
                found = _glob_files(str(resolver.tree), spec)
            except _GlobTooWide as exc:
                raise config.error(f"tests glob {ref!r} {exc}", "too_large", at) from None
            specs = sorted(os.path.relpath(p, resolver.tree) for p in found)
            specs = [s for s in specs if Path(s).suffix.lower() in TESTS_SUFFIXES]
            if not specs:
                raise config.error(f"tests glob {ref!r} names no tests file", "missing_ref", at)
        return [resolver.file(config, item, at, what="tests file") for item in specs]

    def _tests_file(
        self, source: Source, resolver: _Resolver, defaults: dict[str, Any], config: Source | None
    ) -> list[Draft]:
        if not isinstance(source.data, list):
            raise source.error("a promptfoo tests file holds a list of tests", "not_a_list")
        return [self._case(record, resolver, defaults, config) for record in source.records()]

    def _case(
        self,
        record: SourceRecord,
        resolver: _Resolver,
        defaults: dict[str, Any],
        config: Source | None,
        *,
        overlay: dict[str, Any] | None = None,
    ) -> Draft:
        raw = record.data
        if not isinstance(raw, dict):
            raise record_error(
                record, "a test is an object (a nested file reference is not supported)", "record_not_object"
            )
        before = len(resolver.unresolved)
        source = record.source
        if source.syntax == "csv":
            derived = resolver.test(source, csv_row_to_test(raw), record.path)
        else:
            derived = resolver.test(source, raw, record.path)
        scenario_asserts = 0
        if overlay:
            derived, scenario_asserts = _merge(overlay, derived)
        effective, inherited = _merge(defaults, derived)
        inherited += scenario_asserts

        metadata = effective.get("metadata") if isinstance(effective.get("metadata"), dict) else {}
        case_id = own_id(raw.get("id")) or own_id(metadata.get("id"))
        description = effective.get("description")
        if case_id is None and isinstance(description, str):
            case_id = c.slugify(description) or None
        if case_id is None:
            identity = raw if source.syntax == "csv" else {k: raw[k] for k in ("vars", "assert") if k in raw}
            case_id = content_id("test", identity)

        variables = effective.get("vars")
        if isinstance(variables, dict) and variables:
            text = render_vars(variables)
        else:
            text = _single_prompt(config) or (description if isinstance(description, str) else "")

        asserts = effective.get("assert")
        expected: Any = asserts if isinstance(asserts, list) and asserts else ABSENT
        forbidden = [s for a in asserts or [] if isinstance(a, dict) for s in _negative_strings(a)]
        tags = _metadata_tags(metadata)
        if expected is not ABSENT and c.is_non_empty_expected(expected):
            tags.append("expected")

        extensions: dict[str, Any] = {"test": raw}
        for key, value in effective.items():
            if key == "assert" and (expected is not ABSENT or (value == [] and key not in raw)):
                continue
            if key not in raw or canonical_json(raw[key]) != canonical_json(value):
                extensions[key] = value
        if inherited:
            extensions["default_asserts"] = inherited
        if len(resolver.unresolved) > before:
            extensions["unresolved"] = c.unique(resolver.unresolved[before:])
        return Draft(record, case_id, text, expected, tags, forbidden, extensions=extensions)


def _entry_label(entry: dict[str, Any], number: int) -> str:
    """A short label of a scenario's `config` entry for case ids: the slug of its
    `description`, else of its string vars' values, else its 1-based number."""
    if isinstance(entry.get("description"), str) and c.slugify(entry["description"]):
        return c.slugify(entry["description"])
    variables = entry.get("vars") if isinstance(entry.get("vars"), dict) else {}
    label = c.slugify(" ".join(v for v in variables.values() if isinstance(v, str)))
    return label[:40].strip("-") or str(number + 1)


def _single_prompt(config: Source | None) -> str | None:
    """The config's prompt when it has exactly one, written inline (not a file reference)."""
    if config is None:
        return None
    prompts = config.data.get("prompts")
    if isinstance(prompts, str):
        prompts = [prompts]
    if isinstance(prompts, list) and len(prompts) == 1 and isinstance(prompts[0], str):
        prompt = prompts[0]
        if not prompt.startswith(FILE) and c.is_non_empty_string(prompt):
            return prompt
    return None


def _negative_strings(assertion: dict[str, Any]) -> list[str]:
    if assertion.get("type") not in NEGATIVE_TYPES:
        return []
    return c.string_array(assertion.get("value"))


def _metadata_tags(metadata: dict[str, Any]) -> list[str]:
    tags = []
    for key, value in metadata.items():
        if key == "id":
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (dict, list)) or item is None:
                continue
            tag = slug_tag(f"{key}-{c.js_string(item)}")
            if tag and len(tag) <= 64:
                tags.append(tag)
    return tags




# --- export ------------------------------------------------------------------------------

PROMPT = "{{input}}"
"""The prompt of an exported config that has none: the case input, as `vars.input`."""
PROVIDER = "echo"
"""The provider of an exported config that has none: promptfoo's offline `echo` (replace it)."""


def record_of(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """The test a case was imported from, as written (`extensions.promptfoo.test`): a CSV
    row stays a row in a CSV and becomes the test promptfoo reads from it elsewhere."""
    test = extension(case, "promptfoo").get("test", {})
    from_csv = origin_syntax(case) == "csv"
    if from_csv and context.syntax != "csv":
        return csv_row_to_test(test)
    if not from_csv and context.syntax == "csv":
        return _csv_row(test, case, context)
    return test


def map_case(case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A native case as a promptfoo test (README "Importing and exporting" has the table)."""
    test: dict[str, Any] = {"description": case.get("id"), "vars": {"input": case.get("input", "")}}
    asserts: list[dict[str, Any]] = []
    expected = case.get("expected_outcome")
    if isinstance(expected, list) and expected and all(isinstance(a, dict) and "type" in a for a in expected):
        asserts.extend(expected)  # promptfoo assertion objects already
    elif isinstance(expected, str) or (isinstance(expected, list) and all(isinstance(x, str) for x in expected)):
        asserts.extend(
            {"type": "llm-rubric", "value": text} for text in ([expected] if isinstance(expected, str) else expected)
        )
    elif expected is not None:
        asserts.append({"type": "llm-rubric", "value": outcome_text(expected)})
        context.loss(case, "expected_outcome", TEXT, "assert[].llm-rubric", "a rubric is text; written as JSON text")
    # A signal an assertion of the outcome already forbids is not asserted twice.
    covered = {text for a in asserts if isinstance(a, dict) for text in _negative_strings(a)}
    asserts.extend(
        {"type": "not-icontains", "value": signal}
        for signal in case.get("forbidden_signals") or []
        if signal not in covered
    )
    if asserts:
        test["assert"] = asserts
    meta = fixture_metadata(case, skip=("id", "forbidden_signals"))
    if "boundary_note" in meta:
        context.loss(
            case, "boundary_note", METADATA, f"metadata.{META_KEY}.boundary_note", "promptfoo has no note field"
        )
    test["metadata"] = {"id": case.get("id"), **({META_KEY: meta} if meta else {})}
    if context.syntax == "csv":
        return _csv_row(test, case, context)
    return test


def _csv_row(test: dict[str, Any], case: dict[str, Any], context: ExportContext) -> dict[str, Any]:
    """A test as a promptfoo CSV row: vars as columns, each assertion an `__expected<N>`
    cell (`type:value`), `__description`, `__threshold`, `__metadata:<key>`; what a cell
    cannot say is a loss."""
    row: dict[str, Any] = {}
    variables = test.get("vars") if isinstance(test.get("vars"), dict) else {}
    row.update((key, value) for key, value in variables.items())
    for number, assertion in enumerate(test.get("assert") or [], 1):
        cell = _assertion_cell(assertion)
        if cell is None:
            context.loss(case, f"assert[{number - 1}]", DROPPED, None, "a CSV cell holds only `type:value` assertions")
            continue
        row[f"__expected{number}"] = cell
    if isinstance(test.get("description"), str):
        row["__description"] = test["description"]
    if isinstance(test.get("threshold"), (int, float)):
        row["__threshold"] = c.js_string(test["threshold"])
    metadata = test.get("metadata") if isinstance(test.get("metadata"), dict) else {}
    for key, value in metadata.items():
        if isinstance(value, str):
            row[f"__metadata:{key}"] = value
        else:
            context.loss(case, f"metadata.{key}", DROPPED, None, "a CSV metadata cell holds text only")
    for key in test:
        if key not in ("vars", "assert", "description", "threshold", "metadata"):
            context.loss(case, key, DROPPED, None, "a promptfoo CSV row has no column for it")
    return row


def _assertion_cell(assertion: Any) -> str | None:
    if not isinstance(assertion, dict) or set(assertion) - {"type", "value", "threshold"}:
        return None
    kind, value = assertion.get("type"), assertion.get("value", "")
    if not isinstance(kind, str):
        return None
    if (
        isinstance(value, list)
        and kind.removeprefix("not-") in ARRAY_TYPES
        and all(isinstance(v, str) and "," not in v for v in value)
    ):
        value = ",".join(value)
    if not isinstance(value, str):
        return None
    threshold = assertion.get("threshold")
    head = kind if threshold is None else f"{kind}({c.js_string(threshold)})"
    return f"{head}:{value}"


def _dangling_references(config: dict[str, Any], refs: list[str], context: ExportContext) -> None:
    """A loss for each `file://` reference the written config holds that the import read
    (a tests file, a vars or assertion file, ...) but that names no file beside DEST:
    references are relative to the config's folder, and export writes no other file."""
    if context.dest is None:
        return
    written = json.dumps(config, ensure_ascii=False, default=str)
    folder = context.dest.parent
    for ref in dict.fromkeys(refs):
        if not isinstance(ref, str) or not ref.startswith(FILE) or json.dumps(ref)[1:-1] not in written:
            continue
        spec = ref[len(FILE) :].split(":", 1)[0] if ref[len(FILE) :].count(":") else ref[len(FILE) :]
        normal = os.path.normpath(spec.replace("\\", "/"))
        if os.path.isabs(normal) or normal == ".." or normal.startswith("../"):
            # It leaves the config's folder, as the import never follows: names nothing
            # there, and is never looked up where it leads (the canonical file is data).
            found = False
        elif glob.has_magic(spec):
            try:  # as the import follows a glob; one too wide to look through is not judged
                found = bool(_glob_files(str(folder), spec))
            except _GlobTooWide:
                found = True
        else:
            found = (folder / spec).is_file()
        if not found:
            context.loss(
                None,
                ref,
                DROPPED,
                None,
                f"names no file beside {context.dest_name} (references are relative to the config's folder): "
                "copy the file there, or export into the folder of the config the cases came from",
            )


def _whole_scenarios(kept: dict[str, Any], cases: list[dict[str, Any]], verbatim: list[bool]) -> set[int]:
    """The indexes of the `scenarios` entries whose every test × config case is exported
    unchanged: only those are written back as a scenario."""
    scenarios = kept.get("scenarios")
    if not isinstance(scenarios, list):
        return set()
    seen: dict[int, set[tuple[Any, Any]]] = {}
    spoiled: set[int] = set()
    for case, same in zip(cases, verbatim, strict=True):
        if extension(case, "import").get("format") != "promptfoo":
            continue
        scenario = extension(case, "promptfoo").get("scenario")
        if not isinstance(scenario, dict) or not isinstance(scenario.get("index"), int):
            continue
        if not same:
            spoiled.add(scenario["index"])
        seen.setdefault(scenario["index"], set()).add(
            (scenario.get("config"), extension(case, "import").get("locator"))
        )
    whole = set()
    for index, entry in enumerate(scenarios):
        if index in spoiled or not isinstance(entry, dict):
            continue
        configs, tests = entry.get("config"), entry.get("tests")
        if (
            isinstance(configs, list)
            and isinstance(tests, list)
            and len(seen.get(index, ())) == len(configs) * len(tests)
        ):
            whole.add(index)
    return whole


def _effective_test(record: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """A scenario's test as promptfoo runs it for one `config` entry, as an inline test: the
    effective vars, options and metadata, the entry's assertions before the test's (those
    of `defaultTest` left out: the config applies them again)."""
    kept = extension(case, "promptfoo")
    test = copy.deepcopy(record)
    for member in ("vars", "options", "metadata"):
        if isinstance(kept.get(member), dict):
            test[member] = copy.deepcopy(kept[member])
    expected = case.get("expected_outcome")
    defaults = kept.get("default_asserts") if isinstance(kept.get("default_asserts"), int) else 0
    if isinstance(expected, list):
        asserts = expected[defaults:]
        if asserts:
            test["assert"] = copy.deepcopy(asserts)
        else:
            test.pop("assert", None)
    return test


def export_document(records: list[dict[str, Any]], context: ExportContext) -> Any:
    """A config, or for a CSV or JSON Lines DEST a tests file (the tests alone). The config is the one the cases were imported from
    (its members as the import kept them), its inline tests back at their places and the
    `file://` tests files it names named again (those files are not rewritten); cases of
    a `scenarios` matrix come back through `scenarios` as written; other cases are added
    as inline tests. `prompts` (`{{input}}`) and `providers` (`echo`) are added only to a
    config no case was imported from: an imported config gains no member its source
    lacked (a mapped case joining one without `prompts` lists its input as a loss)."""
    if context.syntax in ("csv", "jsonl"):
        return records  # a tests file
    cases = context.cases or [{}] * len(records)
    kept = extension(context.file, "promptfoo")
    refs = kept.get("tests")
    refs = (
        [refs] if isinstance(refs, str) else [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else []
    )
    config_ref = next(
        (
            extension(case, "import").get("source_file")
            for case in cases
            if str(extension(case, "import").get("locator", "")).startswith(("/tests/", "/scenarios/"))
        ),
        None,
    )
    kept_refs = [*refs, *(extension(context.file, "promptfoo").get("resolved_files") or {})]
    verbatim = context.verbatim or [True] * len(records)
    whole = _whole_scenarios(kept, cases, verbatim)
    inline = bool(refs) and any(
        not same
        and extension(case, "import").get("format") == "promptfoo"
        and extension(case, "import").get("source_file") != config_ref
        for case, same in zip(cases, verbatim, strict=True)
    )
    if inline:
        refs = []  # a tests file's case was edited: every test is written inline, in order, the files not named
        kept = {key: value for key, value in kept.items() if key != "tests"}
    placed: dict[int, dict[str, Any]] = {}
    tests: list[dict[str, Any]] = []
    for record, case, same in zip(records, cases, verbatim, strict=True):
        info = extension(case, "import")
        scenario = extension(case, "promptfoo").get("scenario")
        if info.get("format") != "promptfoo" or (inline and not isinstance(scenario, dict)):
            tests.append(record)
        elif isinstance(scenario, dict):
            if not same:
                tests.append(record)
            elif scenario.get("index") not in whole:
                tests.append(_effective_test(record, case))  # its scenario is not written whole
            # else: comes back through `scenarios` as written
        elif config_ref is not None and info.get("source_file") == config_ref and not inline:
            # an inline test of the config, edited or not, goes back to its place
            locator = str(info.get("locator", ""))
            index = locator.removeprefix("/tests/")
            placed[int(index) if index.isdigit() else len(placed)] = record
        elif refs and same:
            continue  # a test of a tests file the config names: that file is not rewritten
        else:
            tests.append(record)
    entries: list[Any] = []
    pending = list(refs)
    for slot in range(len(placed) + len(refs)):
        if slot in placed:
            entries.append(placed.pop(slot))
        elif pending:
            entries.append(pending.pop(0))
    entries += list(placed.values()) + pending + tests
    config: dict[str, Any] = {}
    if isinstance(context.file.get("description"), str) and "description" not in kept:
        config["description"] = context.file["description"]
    for key, value in kept.items():
        if key == "tests":
            config[key] = None  # its place in the config; filled below
        elif key != "resolved_files":
            config[key] = value
    # A config the cases were imported from gains no member its source lacked: without
    # `prompts` its tests carry their prompts (in `vars`), and a prompt added here would
    # change what promptfoo runs. Only a config written from scratch gets the defaults.
    from_config = config_ref is not None or bool(kept)
    if "prompts" not in config and not from_config:
        config["prompts"] = [PROMPT]
    elif "prompts" not in config:
        for case in cases:
            if extension(case, "import").get("format") != "promptfoo":
                context.loss(
                    case,
                    "input",
                    METADATA,
                    "vars.input",
                    "the config it joins has no `prompts` (nor had its source): no prompt sends `vars.input`",
                )
    if "providers" not in config and "targets" not in config and not from_config:
        config["providers"] = [PROVIDER]
    scenarios = config.get("scenarios")
    if isinstance(scenarios, list) and len(whole) < len(scenarios):
        kept_scenarios = [entry for index, entry in enumerate(scenarios) if index in whole]
        if kept_scenarios:
            config["scenarios"] = kept_scenarios
        else:
            config.pop("scenarios")
    if isinstance(kept.get("tests"), str) and entries == [kept["tests"]]:
        config["tests"] = kept["tests"]
    elif entries or "scenarios" not in config:
        config["tests"] = entries
    else:
        config.pop("tests", None)
    _dangling_references(config, kept_refs, context)
    return config


ADAPTER = PromptfooAdapter(record_of=record_of, map_case=map_case, export_document=export_document)
