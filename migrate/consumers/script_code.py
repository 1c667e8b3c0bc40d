"""Consumers in JavaScript and TypeScript: reads of moved names (tree-sitter).

tree-sitter (with its JavaScript and TypeScript grammars) gives a concrete tree with the
byte range of every node, so a rewrite replaces exactly the bytes of one read. Fixture
data is followed by name as in `fixture_migrate.consumers.python_code`: a name bound
(`const`, `let`, assignment, `for ... of`, the parameters of a callback passed to a call on
fixture data) from an expression that holds a string naming a migrated file, or another
such name, holds fixture data.

Rewrites (`FIX`): a member read `x.k` -> `("n" in Object(x) ? x.n : x.k)` (`in`, not `??`: a
moved member may hold null), `x["k"]` likewise, a
home under `extensions` through `x.extensions?.n`; a read of `schema_version` in a
statement that compares it with a legacy version -> `(x.extensions?.migrated_from ??
x.schema_version)`; a path string naming a file the migration moved (`cases.jsonl`), once
the new file is there. For a person: destructuring, object literals in assertions
(`toMatchObject`, `toEqual`, `objectContaining`), declared schemas (`z.object`,
`z.literal`), lists of field names, writes of legacy names and legacy-shaped literals.

The module runs to some 630 lines: the binding walk, the reads and the person-only patterns
share one scanner class over one tree, and splitting it would split that state.
"""

from __future__ import annotations

from typing import Any

from fixture_migrate.consumers.findings import FIX, PERSON, Edit, Finding, References, line_column, line_starts

FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "function",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
    }
)
_PURE = frozenset(
    {
        "identifier",
        "member_expression",
        "subscript_expression",
        "parenthesized_expression",
        "string",
        "number",
        "this",
        "property_identifier",
        "optional_chain",
        "string_fragment",
        "binary_expression",
        "non_null_expression",
        "?.",
        ".",
        "[",
        "]",
        "(",
        ")",
        "??",
        "'",
        '"',
        "!",
        # this codemod's own fallback: `("k" in Object(x) ? x.k : x.old)`
        "ternary_expression",
        "call_expression",
        "arguments",
        "in",
        "?",
        ":",
    }
)
ASSERTIONS = frozenset(
    {"toMatchObject", "toEqual", "toStrictEqual", "objectContaining", "deepEqual", "deepStrictEqual", "toMatchInlineSnapshot"}
)
WRITES = frozenset({"writeFileSync", "writeFile", "stringify", "outputJson", "outputJsonSync", "writeJson", "writeJsonSync"})

_PARSERS: dict[str, Any] = {}


def _parser(kind: str) -> Any:
    parser = _PARSERS.get(kind)
    if parser is None:
        import tree_sitter

        if kind == "javascript":
            import tree_sitter_javascript as grammar

            language = grammar.language()
        else:
            import tree_sitter_typescript as grammar

            language = grammar.language_tsx() if kind == "tsx" else grammar.language_typescript()
        parser = _PARSERS[kind] = tree_sitter.Parser(tree_sitter.Language(language))
    return parser


class _Source:
    def __init__(self, raw: bytes, text: str) -> None:
        self.raw = raw
        self.text = text
        self.ascii = len(raw) == len(text)
        self.starts = line_starts(text)

    def code(self, node: Any) -> str:
        return self.raw[node.start_byte : node.end_byte].decode("utf-8")

    def offset(self, byte: int) -> int:
        return byte if self.ascii else len(self.raw[:byte].decode("utf-8", errors="ignore"))


def _string(node: Any, source: _Source) -> str | None:
    if node.type == "string":
        return source.code(node)[1:-1]
    if node.type == "template_string":
        parts = []
        for child in node.children:
            if child.type == "string_fragment":
                parts.append(source.code(child))
            elif child.type == "template_substitution":
                parts.append("*")
        return "".join(parts)
    return None


def _dotted(node: Any, source: _Source) -> str | None:
    if node.type in ("identifier", "this", "shorthand_property_identifier"):
        return source.code(node)
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        head = _dotted(obj, source) if obj is not None else None
        if head is None or prop is None:
            return None
        return f"{head}.{source.code(prop)}"
    return None


def _scope(node: Any) -> Any:
    current = node.parent
    while current is not None and current.type not in FUNCTIONS:
        current = current.parent
    return current


def _pattern_names(node: Any, source: _Source) -> list[str]:
    if node.type == "identifier":
        return [source.code(node)]
    if node.type in ("object_pattern", "array_pattern"):
        found = []
        for child in node.named_children:
            if child.type == "shorthand_property_identifier_pattern":
                found.append(source.code(child))
            elif child.type == "pair_pattern":
                value = child.child_by_field_name("value")
                if value is not None:
                    found.extend(_pattern_names(value, source))
            else:
                found.extend(_pattern_names(child, source))
        return found
    if node.type in ("required_parameter", "optional_parameter", "assignment_pattern", "rest_pattern"):
        inner = node.child_by_field_name("pattern") or node.child_by_field_name("left")
        if inner is None and node.named_children:
            inner = node.named_children[0]
        return _pattern_names(inner, source) if inner is not None else []
    return []


class _Scan:
    def __init__(self, path: str, source: _Source, refs: References, root: Any) -> None:
        self.path = path
        self.source = source
        self.refs = refs
        self.root = root
        self.nodes: list[Any] = []
        self.bindings: list[tuple[int, list[str], Any]] = []
        self.callbacks: list[tuple[Any, Any]] = []  # (call, function argument)
        self.own: dict[int, set[int]] = {}
        self.names: dict[tuple[int, str], frozenset[int]] = {}
        self.memo: dict[int, frozenset[int]] = {}
        self.findings: list[Finding] = []

    @staticmethod
    def key(scope: Any) -> int:
        return 0 if scope is None else scope.id

    def collect(self) -> None:
        stack = [self.root]
        source = self.source
        while stack:
            node = stack.pop()
            self.nodes.append(node)
            kind = node.type
            if kind in ("string", "template_string"):
                value = _string(node, source)
                if value is not None:
                    named = self.refs.named(value)
                    if named:
                        self.own.setdefault(self.key(_scope(node)), set()).update(named)
            elif kind == "variable_declarator":
                name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
                if name is not None and value is not None:
                    self.bindings.append((self.key(_scope(node)), _pattern_names(name, source), value))
            elif kind == "assignment_expression":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if left is not None and right is not None:
                    dotted = _dotted(left, source)
                    if dotted is not None:
                        self.bindings.append((self.key(_scope(node)), [dotted], right))
            elif kind == "for_in_statement":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if left is not None and right is not None:
                    self.bindings.append((self.key(_scope(node)), _pattern_names(left, source), right))
            elif kind in ("function_declaration", "generator_function_declaration"):
                name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
                if name is not None and body is not None:  # a function returning fixture data
                    self.bindings.append((self.key(_scope(node)), [source.code(name)], body))
            elif kind == "call_expression":
                arguments = node.child_by_field_name("arguments")
                for arg in arguments.named_children if arguments is not None else ():
                    if arg.type in FUNCTIONS:
                        self.callbacks.append((node, arg))
            stack.extend(reversed(node.children))

    def chain(self, node: Any) -> list[int]:
        keys = []
        scope = _scope(node)
        while scope is not None:
            keys.append(scope.id)
            scope = _scope(scope)
        keys.append(0)
        return keys

    def lookup(self, node: Any, name: str) -> frozenset[int]:
        parts = name.split(".")
        labels: set[int] = set()
        for key in self.chain(node):
            for end in range(1, len(parts) + 1):
                labels |= self.names.get((key, ".".join(parts[:end])), frozenset())
            if labels:
                break
        return frozenset(labels)

    def labels(self, node: Any) -> frozenset[int]:
        found = self.memo.get(node.id)
        if found is not None:
            return found
        labels: set[int] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            kind = current.type
            if kind in ("string", "template_string"):
                value = _string(current, self.source)
                if value is not None:
                    labels |= self.refs.named(value)
                if kind == "string":
                    continue
            if kind in ("identifier", "member_expression"):
                dotted = _dotted(current, self.source)
                if dotted is not None:
                    labels |= self.lookup(current, dotted)
                    if kind == "identifier":
                        continue
            stack.extend(current.children)
        found = self.memo[node.id] = frozenset(labels)
        return found

    def bind(self, key: int, name: str, labels: frozenset[int]) -> bool:
        old = self.names.get((key, name), frozenset())
        if labels <= old:
            return False
        self.names[(key, name)] = old | labels
        return True

    def solve(self) -> None:
        for _ in range(8):
            self.memo.clear()
            changed = False
            for key, names, value in self.bindings:
                labels = self.labels(value)
                if labels:
                    for name in names:
                        changed |= self.bind(key, name, labels)
            for call, function in self.callbacks:
                labels: set[int] = set()
                callee = call.child_by_field_name("function")
                if callee is not None and callee.type == "member_expression":
                    labels |= self.labels(callee.child_by_field_name("object"))
                arguments = call.child_by_field_name("arguments")
                for arg in arguments.named_children if arguments is not None else ():
                    if arg.id != function.id and arg.type not in FUNCTIONS:
                        labels |= self.labels(arg)
                if callee is not None and callee.type == "call_expression":  # test.each(rows)(name, fn)
                    labels |= self.labels(callee)
                if not labels:
                    continue
                params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
                if params is None:
                    continue
                names = _pattern_names(params, self.source) if params.type == "identifier" else [
                    name for child in params.named_children for name in _pattern_names(child, self.source)
                ]
                for name in names:
                    changed |= self.bind(function.id, name, frozenset(labels))
            if not changed:
                break
        self.memo.clear()

    # --- findings ---------------------------------------------------------------------------

    def add(self, node: Any, legacy: str, home: str, pattern: str, labels: frozenset[int], *,
            text: str | None = None, advice: str = "") -> None:
        start = self.source.offset(node.start_byte)
        end = self.source.offset(node.end_byte)
        line, column = line_column(self.source.text, start, self.source.starts)
        edit = None if text is None else Edit(start, end, text)
        self.findings.append(
            Finding(self.path, line, column, legacy, home, pattern, FIX if edit else PERSON, edit, advice,
                    self.refs.relatives(labels))
        )

    def consumer_labels(self, node: Any) -> frozenset[int]:
        for key in self.chain(node):
            own = self.own.get(key)
            if own:
                return frozenset(own)
        return frozenset()

    def pure(self, node: Any) -> bool:
        if node.type == "binary_expression":
            operator = node.child_by_field_name("operator")
            if operator is None or self.source.code(operator) not in ("??", "in"):
                return False  # the operators of this codemod's own fallbacks
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function is None or self.source.code(function) != "Object":
                return False  # a call may have effects: never read twice
        if node.type not in _PURE:
            return False
        return all(self.pure(child) for child in node.children)

    def statement_versions(self, node: Any, versions: set[str]) -> bool:
        current = node
        while current is not None and not (current.type.endswith("statement") or current.type.endswith("declaration")):
            current = current.parent
        if current is None:
            return False
        if current.type in ("if_statement", "while_statement"):
            current = current.child_by_field_name("condition") or current
        stack = [current]
        while stack:
            item = stack.pop()
            if item.type in ("string", "template_string") and _string(item, self.source) in versions:
                return True
            if item.type not in ("statement_block",):
                stack.extend(item.children)
        return False

    def fixed_already(self, node: Any, home: tuple[str, ...]) -> bool:
        parent = node.parent
        while parent is not None and parent.type == "parenthesized_expression":
            parent = parent.parent
        if parent is not None and parent.type == "binary_expression":
            right = parent.child_by_field_name("right")
            left = parent.child_by_field_name("left")
            if right is not None and right.id == node.id and left is not None and self.last_key(left) == home[-1]:
                return True
        if parent is not None and parent.type == "ternary_expression":
            alternative = parent.child_by_field_name("alternative")
            consequence = parent.child_by_field_name("consequence")
            if alternative is not None and alternative.id == node.id and consequence is not None:
                return self.last_key(consequence) == home[-1]
        return False

    def last_key(self, node: Any) -> str | None:
        while node.type in ("parenthesized_expression", "non_null_expression") and node.named_children:
            node = node.named_children[0]
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            return self.source.code(prop) if prop is not None else None
        if node.type == "subscript_expression":
            index = node.child_by_field_name("index")
            return _string(index, self.source) if index is not None else None
        return None

    def read(self, node: Any, receiver: Any, key: str, quote: str | None) -> None:
        labels = self.labels(receiver)
        if not labels:
            return
        move = self.refs.move(labels, key)
        if move is None:
            return
        pattern = "member" if quote is None else "subscript"
        if move is False:
            self.add(node, key, "?", pattern, labels, advice="the files it reads move this name to different homes")
            return
        home = move.home_path
        if self.fixed_already(node, home) or (len(home) > 1 and self.last_key(receiver) == home[-2]):
            return
        if key == "schema_version":
            if not self.statement_versions(node, self.refs.versions(labels)):
                return
            pattern = "schema_version"
        parent = node.parent
        if parent is not None and parent.type in ("assignment_expression", "augmented_assignment_expression"):
            left = parent.child_by_field_name("left")
            if left is not None and left.id == node.id:
                self.add(node, key, move.home, "write", labels, advice=f"writes `{key}`; write `{move.home}` in the new shape")
                return
        if parent is not None and parent.type in ("update_expression", "unary_expression") and self.source.code(parent).startswith("delete"):
            self.add(node, key, move.home, "write", labels, advice=f"deletes `{key}`; its value is at `{move.home}` now")
            return
        if not self.pure(receiver):
            self.add(node, key, move.home, pattern, labels,
                     advice=f"bind `{self.source.code(receiver)}` to a name, then read `{move.home}` with a fallback")
            return
        x = self.source.code(receiver)
        old = self.source.code(node)
        optional = any(child.type == "optional_chain" for child in node.children)
        q = quote or '"'
        if quote is None:
            dot = "?." if optional else "."
            new = x + dot + "?.".join(home)
            holder = x + "".join(f"?.{part}" for part in home[:-1])
        else:
            dot = "?." if optional else ""
            new = x + dot + "?.".join(f"[{quote}{part}{quote}]" for part in home)
            holder = x + "".join(f"?.[{quote}{part}{quote}]" for part in home[:-1])
        # `in`, not `??`: a member the migration moved may hold null, which `??` would pass over.
        test = f"{q}{home[-1]}{q} in Object({holder})"
        self.add(node, key, move.home, pattern, labels, text=self.asi_safe(node, f"({test} ? {new} : {old})"))

    def asi_safe(self, node: Any, text: str) -> str:
        """`text` (which opens with `(`) led by `;` where it would start a line of code
        written without semicolons: there `(` would call the previous line's value."""
        raw = self.source.raw
        start = node.start_byte
        line_start = raw.rfind(b"\n", 0, start) + 1
        if raw[line_start:start].strip():
            return text  # something precedes it on its line
        before = raw[:line_start].rstrip()
        if not before or before[-1:] in (b";", b"{", b"}", b"(", b"[", b",", b":", b"=", b"?", b"&", b"|", b"!"):
            return text
        if before.endswith((b"*/",)) or before.split(b"\n")[-1].lstrip().startswith(b"//"):
            return text  # a comment: the previous code line is further up; keep it simple
        return ";" + text

    def object_literal(self, node: Any) -> None:
        source = self.source
        keys: dict[str, Any] = {}
        version = None
        for child in node.named_children:
            if child.type == "pair":
                key_node = child.child_by_field_name("key")
                key = None
                if key_node is not None:
                    key = _string(key_node, source) if key_node.type == "string" else source.code(key_node)
                if key is not None:
                    keys[key] = child
                    value = child.child_by_field_name("value")
                    if key == "schema_version" and value is not None and value.type == "string":
                        version = _string(value, source)
            elif child.type == "shorthand_property_identifier":
                keys[source.code(child)] = child
        call = node.parent.parent if node.parent is not None and node.parent.type == "arguments" else None
        callee = call.child_by_field_name("function") if call is not None else None
        name = self.last_name(callee)
        if version is not None and self.refs.by_version.get(version):
            labels = frozenset(self.refs.by_version[version])
            if name in WRITES or "examples" in keys or "cases" in keys:
                self.add(node, "schema_version", "spec-first.workflow-eval-fixtures.v1", "writer", labels,
                         advice=f"builds a `{version}` fixture: write the canonical shape (`fixture-migrate migrate "
                         "--diff` shows it), or run `migrate` on what it writes")
            else:
                self.add(node, "schema_version", "extensions.migrated_from", "object_literal", labels,
                         advice=f"a literal holding the legacy `{version}`: migrated data has it under "
                         "`extensions.migrated_from`")
            return
        labels = self.consumer_labels(node)
        if not labels:
            return
        moved = [(key, self.refs.move(labels, key)) for key in keys]
        moved = [(key, move) for key, move in moved if move and key != "schema_version"]
        if not moved:
            return
        homes = ", ".join(f"`{key}` -> `{move.home}`" for key, move in moved)
        if name in ASSERTIONS:
            self.add(node, moved[0][0], moved[0][1].home, "object_literal", labels,
                     advice=f"an expected object in the legacy shape: {homes}")
        elif name == "object" and callee is not None and source.code(callee).endswith("z.object"):
            self.add(node, moved[0][0], moved[0][1].home, "schema", labels,
                     advice=f"a declared schema of the legacy shape: {homes}; accept the new homes")

    def last_name(self, callee: Any) -> str | None:
        if callee is None:
            return None
        if callee.type == "member_expression":
            prop = callee.child_by_field_name("property")
            return self.source.code(prop) if prop is not None else None
        if callee.type == "identifier":
            return self.source.code(callee)
        return None

    def destructuring(self, node: Any) -> None:
        value = node.child_by_field_name("value")
        name = node.child_by_field_name("name")
        if value is None or name is None or name.type != "object_pattern":
            return
        labels = self.labels(value)
        if not labels:
            return
        for child in name.named_children:
            key_node = child if child.type == "shorthand_property_identifier_pattern" else child.child_by_field_name("key")
            if key_node is None:
                continue
            key = self.source.code(key_node)
            move = self.refs.move(labels, key)
            if move:
                self.add(child, key, move.home, "destructuring", labels,
                         advice=f"destructures `{key}`; take `{move.home}` too (`{key} = x.{move.home.replace('.', '?.')} ?? x.{key}`)")

    def strings(self, node: Any) -> None:
        value = _string(node, self.source)
        if value is None:
            return
        parent = node.parent
        if parent is not None and parent.type == "arguments":
            call = parent.parent
            name = self.last_name(call.child_by_field_name("function")) if call is not None else None
            if name == "literal" and value in self.refs.by_version:
                labels = frozenset(self.refs.by_version[value])
                self.add(node, "schema_version", "extensions.migrated_from", "schema", labels,
                         advice=f"a declared schema pins `{value}`; accept the canonical version too")
                return
            if name == "toHaveProperty":
                labels = self.consumer_labels(node)
                move = self.refs.move(labels, value) if labels else None
                if move:
                    self.add(node, value, move.home, "in_test", labels,
                             advice=f"expects `{value}`; migrated data has `{move.home}`")
                    return
        moved = self.refs.moved_file(value)
        if moved is not None and node.type == "string":
            old_name = moved.relative.rsplit("/", 1)[-1]
            new_name = (moved.new_relative or "").rsplit("/", 1)[-1]
            code = self.source.code(node)
            labels = frozenset({self.refs.fixtures.index(moved)})
            migrated = moved.new_path is not None and moved.new_path.exists() and not moved.path.exists()
            if migrated and old_name in code:
                self.add(node, value, moved.new_relative or "", "path", labels, text=code.replace(old_name, new_name))
            else:
                self.add(node, value, moved.new_relative or "", "path", labels,
                         advice=f"the file becomes `{new_name}`, one JSON object with `cases`, not JSON Lines; "
                         "change the path and how it is read (after `migrate`, `--fix` changes the path)")

    def field_list(self, node: Any) -> None:
        items = node.named_children
        values = [_string(item, self.source) if item.type == "string" else None for item in items]
        if len(values) < 2 or any(v is None for v in values):
            return
        labels = self.consumer_labels(node)
        if not labels:
            return
        found = self.refs.field_list(labels, values)
        if found is not None:
            key, home, advice = found
            self.add(node, key, home, "field_list", labels, advice=advice)

    def find(self) -> None:
        for node in self.nodes:
            kind = node.type
            if kind == "member_expression":
                obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
                if obj is not None and prop is not None and prop.type == "property_identifier":
                    self.read(node, obj, self.source.code(prop), None)
            elif kind == "subscript_expression":
                obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
                if obj is not None and index is not None and index.type == "string":
                    value = _string(index, self.source)
                    if value is not None:
                        self.read(node, obj, value, self.source.code(index)[0])
            elif kind == "object":
                self.object_literal(node)
            elif kind == "variable_declarator":
                self.destructuring(node)
            elif kind in ("string", "template_string"):
                self.strings(node)
            elif kind == "array":
                self.field_list(node)


def find(path: str, text: str, refs: References, *, typescript: bool = False, tsx: bool = False) -> list[Finding]:
    """The findings of the JavaScript (or, with `typescript`, TypeScript; `tsx` for .tsx) source
    `text` of the file `path` (relative), in file order. Raises `FixtureError` (code
    `invalid_code`) when the text does not parse."""
    from fixture_migrate.errors import FixtureError

    raw = text.encode("utf-8")
    tree = _parser("tsx" if tsx else "typescript" if typescript else "javascript").parse(raw)
    source = _Source(raw, text)
    root = tree.root_node
    if root.has_error:
        bad = _first_error(root)
        line, column = line_column(text, source.offset(bad.start_byte), source.starts)
        raise FixtureError("does not parse", code="invalid_code", line=line, column=column)
    if _deeper_than(tree, MAX_DEPTH):
        raise FixtureError(f"nesting deeper than {MAX_DEPTH} levels is not read", code="too_deep")
    scan = _Scan(path, source, refs, root)
    scan.collect()
    if not scan.own:
        return []
    scan.solve()
    scan.find()
    scan.findings.sort(key=lambda f: (f.line, f.column))
    return scan.findings


MAX_DEPTH = 400
"""The deepest syntax tree read. tree-sitter finds a node's `parent` by walking down from
the root, so the scan's walks up the tree cost the square of the depth: a script nesting
20,000 levels (parentheses, a long `+` chain) took minutes. Hand-written code nests far less."""


def _deeper_than(tree: Any, limit: int) -> bool:
    """Whether `tree` nests deeper than `limit` (a cursor walk: each step is constant time)."""
    cursor = tree.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > limit:
                return True
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
            depth -= 1


def _first_error(node: Any) -> Any:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:
            return current
        stack.extend(reversed(current.children))
    return node
