"""Consumers in Python: the reads of moved names in code that reads migrated fixtures (libcst).

Which values are fixture data is followed by name, per function: a name bound from an
expression that holds a string naming a fixture file (`References`) or another such
name is fixture data, and so are the loop targets over it, the parameters of a lambda
applied to it, the parameters of a module function called with it, and a function that
returns it (and a parameter named as that function, as pytest passes fixtures). A new dict
holds it only as a copy (`{**case}`): a report built from fixture values is no fixture data. Only a
read whose receiver is fixture data is looked at, so an unrelated object's
`.get("type")` is never touched.

Rewrites (`FIX`) read the new home first and fall back to the legacy name, so the code
works on migrated and on legacy data: `x["k"]` -> `(x["n"] if "n" in x else x["k"])`,
`x.get("k", d)` -> `x.get("n", x.get("k", d))`, a home under `extensions` through
`(x.get("extensions") or {}).get("n", x.get("k"))`; a receiver with a call in it evaluated
once, as a lambda's argument (`(lambda o: ...)(load())`, where a `.get` default is a
literal); a legacy schema_version compared with a legacy version string (or a part of one)
reads `extensions.migrated_from` first. Other uses (`"k" in x`,
dict literals with legacy keys, lists of field names, writes) are reported for a person.

Some 560 lines: the binding walk (`_Scopes`, `_Taint`) and the reads (`_Reads`) share the
scope model of one module, and splitting them would split it.
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from fixture_migrate.consumers.findings import FIX, PERSON, Edit, Finding, References, line_starts

_PURE = (cst.Name, cst.Attribute, cst.Subscript, cst.SimpleString, cst.Integer, cst.IfExp, cst.Dict, cst.Comparison)

WRITE_CALLS = frozenset({"dump", "dumps", "write_text", "write", "safe_dump", "writeFileSync", "writeFile"})
"""Calls that write a value out: a legacy-shaped literal passed to one is a writer of legacy fixtures."""


def _string(node: cst.CSTNode) -> str | None:
    """The value of a plain (non-bytes) string literal, or an f-string with its holes as `*`."""
    if isinstance(node, cst.SimpleString):
        if "b" in node.prefix.lower():
            return None
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        parts = []
        for part in node.parts:
            parts.append(part.value if isinstance(part, cst.FormattedStringText) else "*")
        return "".join(parts)
    if isinstance(node, cst.ConcatenatedString):
        left, right = _string(node.left), _string(node.right)
        return None if left is None or right is None else left + right
    return None


def _dotted(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _pure(node: cst.CSTNode) -> bool:
    """Whether `node` may be evaluated twice: names, attributes, subscripts, literals and the
    `.get` reads and conditionals the rewrites make."""
    if isinstance(node, cst.Call):
        func = node.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "get"
            and _pure(func.value)
            and all(_pure(arg.value) for arg in node.args)
        )
    if isinstance(node, cst.BooleanOperation):
        return _pure(node.left) and _pure(node.right)
    if isinstance(node, cst.Subscript):  # its index sits in a SubscriptElement, no expression itself
        return _pure(node.value) and all(
            isinstance(element.slice, cst.Index) and _pure(element.slice.value) for element in node.slice
        )
    if not isinstance(node, _PURE):
        return False
    return all(_pure(child) for child in node.children if isinstance(child, cst.BaseExpression))


class _Scopes(cst.CSTVisitor):
    """Pass 1: the bindings of each function, and the strings naming fixtures."""

    METADATA_DEPENDENCIES = (ParentNodeProvider,)

    def __init__(self, refs: References) -> None:
        self.refs = refs
        self.stack: list[cst.CSTNode | None] = [None]
        self.scope_of: dict[int, cst.CSTNode | None] = {}  # id(expression node) -> its function
        self.bindings: list[tuple[cst.CSTNode | None, list[str], cst.CSTNode]] = []
        self.functions: dict[str, cst.FunctionDef] = {}
        self.returns: list[tuple[cst.FunctionDef, cst.CSTNode]] = []
        self.calls: list[tuple[cst.CSTNode | None, cst.Call]] = []
        self.lambdas: list[tuple[cst.CSTNode | None, cst.Call, cst.Lambda]] = []
        self.own: dict[int, set[int]] = {}  # id(function or 0) -> fixtures its own strings name

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.scope_of[id(node)] = self.stack[-1]
        value = _string(node) if isinstance(node, (cst.SimpleString, cst.FormattedString)) else None
        if value is not None:
            named = self.refs.named(value)
            if named:
                self.own.setdefault(id(self.stack[-1]) if self.stack[-1] is not None else 0, set()).update(named)
        return super().on_visit(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.stack[-1] is None:
            self.functions[node.name.value] = node
        self.stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Return(self, node: cst.Return) -> None:
        function = self.stack[-1]
        if isinstance(function, cst.FunctionDef) and node.value is not None:
            self.returns.append((function, node.value))

    def _bind(self, target: cst.CSTNode, value: cst.CSTNode) -> None:
        names = _target_names(target)
        if names:
            self.bindings.append((self.stack[-1], names, value))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target, node.iter)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name, node.item)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append((self.stack[-1], node))
        for arg in node.args:
            if isinstance(arg.value, cst.Lambda):
                self.lambdas.append((self.stack[-1], node, arg.value))


def _target_names(target: cst.CSTNode) -> list[str]:
    dotted = _dotted(target)
    if dotted is not None:
        return [dotted]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


class _Taint:
    """Fixture data by name: `(function, dotted name)` -> the fixtures it holds."""

    def __init__(self, scopes: _Scopes, parents: Any) -> None:
        self.scopes = scopes
        self.parents = parents
        self.names: dict[tuple[int, str], frozenset[int]] = {}
        self.memo: dict[int, frozenset[int]] = {}

    def chain(self, scope: cst.CSTNode | None) -> list[int]:
        found = []
        while scope is not None:
            found.append(id(scope))
            scope = self.scopes.scope_of.get(id(scope))
        found.append(0)
        return found

    def lookup(self, scope: cst.CSTNode | None, name: str) -> frozenset[int]:
        labels: set[int] = set()
        parts = name.split(".")
        for key in self.chain(scope):
            for end in range(1, len(parts) + 1):
                labels |= self.names.get((key, ".".join(parts[:end])), frozenset())
            if labels:
                break
        return frozenset(labels)

    def labels(self, node: cst.CSTNode) -> frozenset[int]:
        """The fixtures the value of expression `node` holds data of."""
        found = self.memo.get(id(node))
        if found is not None:
            return found
        labels: set[int] = set()
        value = _string(node) if isinstance(node, (cst.SimpleString, cst.FormattedString)) else None
        if value is not None:
            labels |= self.scopes.refs.named(value)
        dotted = _dotted(node)
        if dotted is not None:
            labels |= self.lookup(self.scopes.scope_of.get(id(node)), dotted)
        if isinstance(node, cst.Dict):  # a new dict: fixture data only where it copies some (`**case`)
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):
                    labels |= self.labels(element.value)
        elif not isinstance(node, cst.Name):
            for child in node.children:
                if isinstance(child, (cst.Lambda, cst.FunctionDef)):
                    continue
                labels |= self.labels(child)
        found = self.memo[id(node)] = frozenset(labels)
        return found

    def bind(self, scope: cst.CSTNode | None, name: str, labels: frozenset[int]) -> bool:
        key = (id(scope) if scope is not None else 0, name)
        old = self.names.get(key, frozenset())
        if labels <= old:
            return False
        self.names[key] = old | labels
        return True

    def solve(self) -> None:
        scopes = self.scopes
        for _ in range(8):
            self.memo.clear()
            changed = False
            for scope, names, value in scopes.bindings:
                labels = self.labels(value)
                if labels:
                    for name in names:
                        changed |= self.bind(scope, name, labels)
            for function, value in scopes.returns:
                labels = self.labels(value)
                if labels:
                    outer = scopes.scope_of.get(id(function))
                    changed |= self.bind(outer, function.name.value, labels)
            for scope, call in scopes.calls:
                callee = scopes.functions.get(call.func.value) if isinstance(call.func, cst.Name) else None
                if callee is None:
                    continue
                params = [param.name.value for param in callee.params.params]
                for position, arg in enumerate(call.args):
                    labels = self.labels(arg.value)
                    if not labels:
                        continue
                    if arg.keyword is not None:
                        changed |= self.bind(callee, arg.keyword.value, labels)
                    elif position < len(params) and arg.star == "":
                        changed |= self.bind(callee, params[position], labels)
            for scope, call, lam in scopes.lambdas:
                labels = self.labels(call.func) | frozenset().union(
                    *(self.labels(arg.value) for arg in call.args if arg.value is not lam)
                )
                if labels:
                    for param in lam.params.params:
                        changed |= self.bind(scope, param.name.value, labels)
            for name, function in scopes.functions.items():  # pytest: a parameter named as a fixture function
                labels = self.names.get((0, name))
                if not labels:
                    continue
                for other in scopes.functions.values():
                    for param in other.params.params:
                        if param.name.value == name:
                            changed |= self.bind(other, name, labels)
            if not changed:
                break
        self.memo.clear()


class _Reads(cst.CSTVisitor):
    """Pass 2: the reads of moved names on fixture data, and the other uses for a person."""

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider)

    def __init__(self, path: str, module: cst.Module, taint: _Taint, text: str) -> None:
        self.path = path
        self.module = module
        self.taint = taint
        self.refs = taint.scopes.refs
        self.starts = line_starts(text)
        self.findings: list[Finding] = []

    # --- helpers ----------------------------------------------------------------------------

    def _where(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """`(line, column, start offset, end offset)` of `node`, 1-based line and column."""
        where = self.get_metadata(PositionProvider, node)
        start = self.starts[where.start.line - 1] + where.start.column
        end = self.starts[where.end.line - 1] + where.end.column
        return where.start.line, where.start.column + 1, start, end

    def _code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def _parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        try:
            return self.get_metadata(ParentNodeProvider, node)
        except KeyError:
            return None

    def _add(self, node: cst.CSTNode, legacy: str, home: str, pattern: str, labels: frozenset[int], *,
             text: str | None = None, advice: str = "") -> None:
        line, column, start, end = self._where(node)
        edit = None if text is None else Edit(start, end, text)
        self.findings.append(
            Finding(self.path, line, column, legacy, home, pattern, FIX if edit else PERSON, edit, advice,
                    self.refs.relatives(labels))
        )

    def _consumer_labels(self, node: cst.CSTNode) -> frozenset[int]:
        """The fixtures the function holding `node` (or the module, at module level) names."""
        scope = self.taint.scopes.scope_of.get(id(node))
        while True:
            own = self.taint.scopes.own.get(id(scope) if scope is not None else 0)
            if own:
                return frozenset(own)
            if scope is None:
                return frozenset()
            scope = self.taint.scopes.scope_of.get(id(scope))

    def _fixed_already(self, node: cst.CSTNode, home: str) -> bool:
        """Whether `node` is the legacy fallback of a rewrite made before (idempotence)."""
        last = home.split(".")[-1]
        current: cst.CSTNode | None = node
        for _ in range(4):
            current = self._parent(current) if current is not None else None
            if current is None:
                return False
            if isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute):
                if current.func.attr.value == "get" and current.args and _string(current.args[0].value) == last:
                    return True
            if isinstance(current, cst.IfExp) and isinstance(current.test, cst.Comparison):
                if _string(current.test.left) == last:
                    return True
        return False

    def _in_assertion(self, node: cst.CSTNode) -> bool:
        """Whether `node` is part of an `assert` or an argument of an `assert...` call."""
        current = self._parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
            if isinstance(current, cst.Assert):
                return True
            if isinstance(current, cst.Call):
                func = current.func
                name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
                if name.lower().startswith("assert"):
                    return True
            current = self._parent(current)
        return False

    def _stored(self, node: cst.CSTNode) -> bool:
        parent = self._parent(node)
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, (cst.Del, cst.AugAssign)):
            return True
        return isinstance(parent, cst.AnnAssign) and parent.target is node

    def _statement_versions(self, node: cst.CSTNode, versions: set[str]) -> bool:
        """Whether the statement holding `node` checks for one of the legacy `versions` with a string
        (`References.checks_version`)."""
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self._parent(current)
        if current is None:
            return False
        holder = current.test if isinstance(current, (cst.If, cst.While)) else current
        found = []

        class _Find(cst.CSTVisitor):
            def visit_SimpleString(self, s: cst.SimpleString) -> None:
                if References.checks_version(_string(s), versions):
                    found.append(s)

        holder.visit(_Find())
        return bool(found)

    # --- reads ------------------------------------------------------------------------------

    def _read(self, node: cst.CSTNode, receiver: cst.CSTNode, key_node: cst.CSTNode, default: str | None,
              pattern: str) -> None:
        key = _string(key_node)
        if key is None:
            return
        labels = self.taint.labels(receiver)
        if not labels:
            return
        move = self.refs.move(labels, key)
        if move is None:
            return
        if move is False:
            self._add(node, key, "?", pattern, labels, advice="the files it reads move this name to different homes")
            return
        home = move.home
        if self._fixed_already(node, home) or (len(move.home_path) > 1 and _last_key(receiver) == move.home_path[-2]):
            return  # a rewrite made before: the legacy fallback, or the read of the new home
        if key == "schema_version":
            if not self._statement_versions(node, self.refs.versions(labels)):
                return  # a read of the version not compared with a legacy one needs nothing
            pattern = "schema_version"
        if self._stored(node):
            self._add(node, key, home, "write", labels, advice=f"writes `{key}`; write `{home}` in the new shape")
            return
        if not _pure(receiver):
            receiver_code, code = self._code(receiver), self._code(node)
            if code.startswith(receiver_code) and (default is None or _literal(default)):
                # Evaluated once: the receiver becomes the argument of a lambda making the read.
                read = rewrite("o", "o" + code[len(receiver_code):], key, move.home_path, _quote(key_node), pattern)
                self._add(node, key, home, pattern, labels, text=f"(lambda o: {read})({receiver_code})")
                return
            self._add(node, key, home, pattern, labels,
                      advice=f"bind `{receiver_code}` to a name, then read `{home}` with a fallback to `{key}`")
            return
        self._add(node, key, home, pattern, labels, text=rewrite(self._code(receiver), self._code(node), key,
                                                                 move.home_path, _quote(key_node), pattern))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        index = node.slice[0].slice.value
        if _string(index) is not None:
            self._read(node, node.value, index, None, "subscript")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "get" and 1 <= len(node.args) <= 2:
            if node.args[0].keyword is None and _string(node.args[0].value) is not None:
                default = self._code(node.args[1].value) if len(node.args) == 2 else None
                self._read(node, func.value, node.args[0].value, default, "get")
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if name in WRITE_CALLS:
            for arg in node.args:
                if isinstance(arg.value, cst.Dict):
                    self._legacy_literal(arg.value, writer=True)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)):
                key = _string(node.left)
                labels = self.taint.labels(target.comparator)
                if key is None or not labels:
                    continue
                move = self.refs.move(labels, key)
                if move and not self._fixed_already(node, move.home):
                    self._add(node, key, move.home, "in_test", labels,
                              advice=f"test for `{move.home}` too: migrated data has no `{key}`")

    def visit_Dict(self, node: cst.Dict) -> None:
        self._legacy_literal(node, writer=False)

    def _legacy_literal(self, node: cst.Dict, *, writer: bool) -> None:
        keys = {}
        version = None
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = _string(element.key)
                if key is not None:
                    keys[key] = element
                    if key == "schema_version":
                        version = _string(element.value)
        if version is not None and self.refs.by_version.get(version):
            labels = frozenset(self.refs.by_version[version])
            shaped = writer or any(isinstance(keys.get(k), cst.DictElement) for k in ("examples", "cases"))
            if shaped:
                self._add(node, "schema_version", "spec-first.workflow-eval-fixtures.v1", "writer", labels,
                          advice=f"builds a `{version}` fixture: write the canonical shape (`fixture-migrate "
                          "migrate --diff` shows it), or run `migrate` on what it writes")
            else:
                self._add(node, "schema_version", "extensions.migrated_from", "object_literal", labels,
                          advice=f"a literal holding the legacy `{version}`: migrated data has it under "
                          "`extensions.migrated_from`")
            return
        labels = self._consumer_labels(node)
        if not labels or not self._in_assertion(node):
            return
        moved = [(key, self.refs.move(labels, key)) for key in keys]
        moved = [(key, move) for key, move in moved if move and key != "schema_version"]
        if moved:
            homes = ", ".join(f"`{key}` -> `{move.home}`" for key, move in moved)
            self._add(node, moved[0][0], moved[0][1].home, "object_literal", labels,
                      advice=f"a literal in the legacy shape: {homes}")

    def _field_list(self, node: cst.CSTNode, elements: Any) -> None:
        strings = [_string(element.value) for element in elements]
        if len(strings) < 2 or any(s is None for s in strings):
            return
        parent = self._parent(node)
        iterated = (
            (isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node)
            or (isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node)
        )
        if not iterated:
            return  # a value (`assert tags == ["expected", "trigger"]`), not names looped over
        labels = self._consumer_labels(node)
        if not labels:
            return
        found = self.refs.field_list(labels, strings)
        if found is not None:
            key, home, advice = found
            self._add(node, key, home, "field_list", labels, advice=advice)

    def visit_List(self, node: cst.List) -> None:
        self._field_list(node, node.elements)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._field_list(node, node.elements)

    def visit_Set(self, node: cst.Set) -> None:
        self._field_list(node, node.elements)


def rewrite(x: str, old: str, key: str, home: tuple[str, ...], quote: str, pattern: str) -> str:
    """The tolerant read of `key` (now at `home`) on the receiver text `x`; `old` is the read
    as written (`x["k"]` with pattern "subscript", `x.get("k"...)` with "get")."""
    q = quote
    if pattern == "subscript" and len(home) == 1:
        return f"({x}[{q}{home[0]}{q}] if {q}{home[0]}{q} in {x} else {old})"
    inner = x
    for part in home[:-1]:
        inner = f"({inner}.get({q}{part}{q}) or {{}})"
    # A default is evaluated first: on migrated data `x["k"]` would raise, `x.get("k")` not.
    fallback = f"{x}.get({q}{key}{q})" if pattern == "subscript" else old
    return f"{inner}.get({q}{home[-1]}{q}, {fallback})"


def _literal(text: str) -> bool:
    """Whether the default `text` of a `.get` is a literal (`[]`, `""`, `None`, `0`, ...), which
    reads the same inside a lambda (a name might not: a class body's names are not seen there)."""
    import ast

    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _last_key(node: cst.CSTNode) -> str | None:
    """The key the expression `node` reads last: `x["k"]`, `x.get("k")`, `(x.get("k") or {})`."""
    while isinstance(node, cst.BooleanOperation):
        node = node.left
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get":
        return _string(node.args[0].value) if node.args else None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return _string(node.slice[0].slice.value)
    return None


def _quote(node: cst.CSTNode) -> str:
    if isinstance(node, cst.SimpleString):
        quote = node.quote
        return quote[0] if len(quote) == 3 else quote
    return '"'


def find(path: str, text: str, refs: References) -> list[Finding]:
    """The findings of the Python source `text` (its file `path`, relative), in file order.
    Raises `libcst.ParserSyntaxError` for text that does not parse."""
    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = _Scopes(refs)
    wrapper.visit(scopes)
    if not scopes.own:
        return []  # no string names a migrated fixture: not consumer code
    taint = _Taint(scopes, None)
    taint.solve()
    reads = _Reads(path, module, taint, text)
    wrapper.visit(reads)
    reads.findings.sort(key=lambda f: (f.line, f.column))
    return reads.findings
