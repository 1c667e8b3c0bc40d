"""Consumers in JavaScript and TypeScript: reads of moved names (tree-sitter).

tree-sitter (with its JavaScript and TypeScript grammars) gives a concrete tree with the
byte range of every node, so a rewrite replaces exactly the bytes of one read. Fixture
data is followed by name as in `fixture_migrate.consumers.python_code`: a name bound
(`const`, `let`, assignment, `for ... of`, the parameters of a callback passed to a call on
fixture data) from an expression that holds a string naming a migrated file, or another
such name, holds fixture data.

Fixture data also flows into the file's own named functions, by position, from their calls
(`check(examples)`). A new object literal holds it only as a copy (`{ ...e }`) or in a member
a name binds (`ctx = { data: fixture }`: `ctx.data`): a report built from fixture values
(`{ examples: doc.examples.length }`) is no fixture data.

Rewrites (`FIX`): a member read `x.k` -> `("n" in Object(x) ? x.n : x.k)` (`in`, not `??`: a
moved member may hold null), `x["k"]` likewise, a home under `extensions` through
`x.extensions?.n`; a receiver with a call in it evaluated once, as the argument of an arrow
function making the same read (`((o) => ("n" in Object(o) ? o.n : o.k))(byId.get("a"))`);
a read of `schema_version` in a statement that checks it for a legacy version (the version,
a part of it, or a constant bound to it) -> the same fallback through
`extensions.migrated_from`. For a person: destructuring, object literals in assertions
(`toMatchObject`, `toEqual`, `objectContaining`), declared schemas (`z.object`,
`z.literal`), lists of field names looped over, writes of legacy names and legacy-shaped
literals, a path to a JSON Lines file the migration moves (read line by line, so the
reading changes with the path), and a legacy name passed as a string to a local function.
A whole parsed document used as a list becomes `(Array.isArray(x) ? x : x.cases)`. A
container filled with fixture data (`byId.set(c.id, c)`, `list.push(c)`) holds it; a lookup
(`byId.get(k)`) holds what its receiver holds, not what its key does.

The module runs to some 1060 lines: the binding walk, the reads and the person-only patterns
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

MUTATIONS = {"set": 1, "push": -1, "unshift": -1, "add": 0}
"""Methods that put a value into their receiver, by the argument index of the value (-1: all)."""

PARSE_CALLS = ("JSON.parse", "require", "yaml.load", "yaml.parse", "YAML.parse", "jsYaml.load", "parseYaml")
"""Calls that return a whole parsed document."""

LIST_USES = frozenset(
    {"map", "forEach", "filter", "some", "every", "find", "findIndex", "flatMap", "reduce", "length", "slice", "at",
     "entries", "keys", "values", "indexOf", "includes", "concat", "sort", "join"}
)
"""The members of an array that code reading a bare list uses on the whole document."""

KEY_METHODS = frozenset({"get", "has", "at", "includes", "indexOf", "lastIndexOf"})
"""Methods whose arguments are keys into the receiver: the result holds the receiver's data."""

_BODY_HOLDERS = frozenset(
    {"if_statement", "else_clause", "while_statement", "for_statement", "for_in_statement", "do_statement",
     "with_statement", "labeled_statement"}
)
"""Statements whose body follows a token that ends no expression (`)`, `else`, `do`, a label's `:`)."""

_EXPRESSION_BLOCKS = frozenset({"function_expression", "function", "arrow_function", "class", "generator_function"})
"""Expressions that end with a block's `}`: a `(` after one calls it (an arrow function's aside)."""

ITERATIONS = frozenset({"forEach", "map", "every", "some", "filter", "flatMap", "reduce", "find", "findIndex"})
"""The array methods that walk a list of field names one by one."""

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
    def __init__(self, path: str, source: _Source, refs: References, root: Any, typed: bool = False) -> None:
        self.path = path
        self.typed = typed
        self.source = source
        self.refs = refs
        self.root = root
        self.nodes: list[Any] = []
        self.bindings: list[tuple[int, list[str], Any]] = []
        self.callbacks: list[tuple[Any, Any]] = []  # (call, function argument)
        self.functions: dict[str, list[Any]] = {}  # the file's named functions
        self.constants: dict[str, str] = {}  # names bound to a string literal
        self.param_bound: set[tuple[int, str]] = set()  # parameters bound from their callers
        self.mutations: list[tuple[Any, str, Any]] = []  # (call, container name, value put in)
        self.parsed: list[tuple[int, str, str]] = []  # (scope, name, callee) of `x = JSON.parse(...)`
        self.declared: set[tuple[int, str]] = set()  # (scope, name) of each declaration
        self.masked: int | None = None  # the function whose caller-bound parameters are masked
        self.calls: list[tuple[str, Any, Any]] = []  # (callee name, call, arguments)
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
                if name is not None:
                    for declared in _pattern_names(name, source):
                        self.declared.add((self.key(_scope(node)), declared))
                if name is not None and value is not None:
                    self.bindings.append((self.key(_scope(node)), _pattern_names(name, source), value))
                    if name.type == "identifier" and value.type == "object":  # `ctx = { data: fixture }`
                        for pair in value.named_children:
                            key, held = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                            if pair.type == "pair" and key is not None and held is not None and key.type == "property_identifier":
                                self.bindings.append((self.key(_scope(node)), [f"{source.code(name)}.{source.code(key)}"], held))
                            elif pair.type == "shorthand_property_identifier":
                                self.bindings.append((self.key(_scope(node)), [f"{source.code(name)}.{source.code(pair)}"], pair))
                    parsed = value.named_children[0] if value.type == "await_expression" and value.named_children else value
                    callee = parsed.child_by_field_name("function") if parsed.type == "call_expression" else None
                    if name.type == "identifier" and callee is not None:
                        self.parsed.append((self.key(_scope(node)), source.code(name), source.code(callee)))
                    if name.type == "identifier" and value.type == "string":
                        text = _string(value, source)
                        if text is not None:
                            self.constants[source.code(name)] = text
                    if name.type == "identifier" and value.type in FUNCTIONS:
                        self.functions.setdefault(source.code(name), []).append(value)
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
                    self.functions.setdefault(source.code(name), []).append(node)
            elif kind == "call_expression":
                arguments = node.child_by_field_name("arguments")
                for arg in arguments.named_children if arguments is not None else ():
                    if arg.type in FUNCTIONS:
                        self.callbacks.append((node, arg))
                callee = node.child_by_field_name("function")
                if callee is not None and callee.type == "identifier" and arguments is not None:
                    self.calls.append((source.code(callee), node, arguments))
                if callee is not None and callee.type == "member_expression" and arguments is not None:
                    prop = callee.child_by_field_name("property")
                    holder = _dotted(callee.child_by_field_name("object"), source)
                    slot = MUTATIONS.get(source.code(prop)) if prop is not None else None
                    args = arguments.named_children
                    if holder is not None and slot is not None and args:
                        values = args[slot:] if slot >= 0 else args  # `m.set(k, v)`: v; `a.push(...)`: all
                        for value in values[:1] if slot >= 0 else values:
                            if value.type in ("identifier", "member_expression", "subscript_expression"):
                                # the data itself, not a new object built from some of it (a report row)
                                self.mutations.append((node, holder, value))
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
                if key == self.masked and (key, parts[0]) in self.param_bound:
                    continue  # what a function returns of its own, not what its callers pass it
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
            if kind == "call_expression":
                callee = current.child_by_field_name("function")
                arguments = current.child_by_field_name("arguments")
                prop = callee.child_by_field_name("property") if callee is not None and callee.type == "member_expression" else None
                method = self.source.code(prop) if prop is not None else None
                if method in KEY_METHODS:  # `byId.get(id)`: what the map holds, whatever the key
                    stack.append(callee.child_by_field_name("object"))
                    continue
                first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
                if method in ("map", "flatMap") and first is not None and first.type in FUNCTIONS:
                    body = first.child_by_field_name("body")  # what the callback returns
                    if body is not None:
                        stack.append(body)
                    continue
            if kind == "object":  # a new object: fixture data only where it copies some (`...e`)
                stack.extend(child for child in current.named_children if child.type == "spread_element")
                continue
            if kind in ("identifier", "member_expression", "shorthand_property_identifier"):
                dotted = _dotted(current, self.source)
                if dotted is not None:
                    labels |= self.lookup(current, dotted)
                    if kind != "member_expression":
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

    def own_labels(self, value: Any) -> frozenset[int]:
        """The labels of a binding's `value`; for a function (or its body), what it returns of
        its own, its parameters' labels from its callers masked (a shared `readJson(p)` helper
        is not fixture data because one caller passes it a fixture's path)."""
        function = value if value.type in FUNCTIONS else value.parent if (
            value.parent is not None and value.parent.type in ("function_declaration", "generator_function_declaration")
            and value.parent.child_by_field_name("body") is not None
            and value.parent.child_by_field_name("body").id == value.id) else None
        if function is None or not any(key == function.id for key, _ in self.param_bound):
            return self.labels(value)
        memo, self.memo, self.masked = self.memo, {}, function.id
        try:
            return self.labels(value)
        finally:
            self.memo, self.masked = memo, None

    def solve(self) -> None:
        for _ in range(8):
            self.memo.clear()
            changed = False
            for key, names, value in self.bindings:
                labels = self.own_labels(value)
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
            changed |= self.pass_arguments()
            for call, holder, value in self.mutations:  # `byId.set(c.id, c)`: the map holds fixture data
                labels = self.labels(value)
                if labels:
                    root = holder.split(".")[0]
                    key = next((k for k in self.chain(call) if (k, root) in self.declared), self.key(_scope(call)))
                    changed |= self.bind(key, holder, labels)
            if not changed:
                break
        self.memo.clear()

    def pass_arguments(self) -> bool:
        """Bind the parameters of the file's own named functions to what its calls pass them:
        `check(examples)` with `examples` fixture data makes `check`'s first parameter fixture
        data in its body (by position; a rest or destructured parameter is left alone)."""
        changed = False
        for name, call, arguments in self.calls:
            functions = self.functions.get(name)
            if not functions:
                continue
            args = [arg for arg in arguments.named_children if arg.type != "comment"]
            for function in functions:
                params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
                if params is None:
                    continue
                names = [params] if params.type == "identifier" else [
                    child for child in params.named_children if child.type != "comment"
                ]
                for arg, param in zip(args, names):
                    if arg.type == "spread_element":
                        break
                    target = param.child_by_field_name("pattern") if param.type in (
                        "required_parameter", "optional_parameter") else param
                    if target is None or target.type != "identifier":
                        continue
                    labels = self.labels(arg)
                    if labels:
                        self.param_bound.add((function.id, self.source.code(target)))
                        changed |= self.bind(function.id, self.source.code(target), labels)
        return changed

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
            if item.type in ("string", "template_string") and References.checks_version(_string(item, self.source), versions):
                return True
            if item.type == "identifier" and References.checks_version(self.constants.get(self.source.code(item)), versions):
                return True  # `x.schema_version !== FIXTURE_SCHEMA_VERSION`
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
        optional = any(child.type == "optional_chain" for child in node.children)
        if self.cut_chain(node):
            self.add(node, key, move.home, pattern, labels,
                     advice=f"an optional chain goes on after `{key}`: a rewrite in parentheses would end its "
                     f"short-circuit; read `{move.home}` with a fallback to `{key}` (bind the object to a name)")
            return
        q = quote or '"'
        if not self.pure(receiver):
            # A receiver with a call in it is evaluated once: it becomes the argument of an
            # arrow function that reads the new home with its fallback.
            self.add(node, key, move.home, pattern, labels,
                     text=self.asi_safe(node, self.once(receiver, key, home, quote, optional)))
            return
        x = self.source.code(receiver)
        old = self.source.code(node)
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

    def cut_chain(self, node: Any) -> bool:
        """Whether the read `node` holds a `?.` (its own or its receiver's: `a?.b.k`) and the chain
        goes on after it with a plain link (`a?.k.trim()`): in parentheses, a null before the `?.`
        would no longer end the whole chain, and what follows would throw. A next link that is
        optional (`a?.k?.b`) ends it the same inside parentheses or not."""
        parent = node.parent
        if parent is None:
            return False
        goes_on = (
            parent.type in ("member_expression", "subscript_expression")
            and parent.child_by_field_name("object") is not None
            and parent.child_by_field_name("object").id == node.id
        ) or (
            parent.type == "call_expression"
            and parent.child_by_field_name("function") is not None
            and parent.child_by_field_name("function").id == node.id
        )
        if not goes_on:
            return False
        if any(child.type == "optional_chain" for child in parent.children):
            return False  # `a?.k?.b`: the next link is optional itself, so a null still ends the chain
        current = node
        while current is not None and current.type in ("member_expression", "subscript_expression", "call_expression"):
            if any(child.type == "optional_chain" for child in current.children):
                return True
            current = current.child_by_field_name("function" if current.type == "call_expression" else "object")
        return False

    def once(self, receiver: Any, key: str, home: tuple[str, ...], quote: str | None, optional: bool) -> str:
        """`((o) => ("n" in Object(o.extensions) ? o.extensions.n : o.k))(receiver)`: the
        fallback read with `receiver` evaluated once (`o: any` in TypeScript)."""
        q = quote or '"'
        param = "o: any" if self.typed else "o"
        dot = "?." if optional else "."
        if quote is None:
            new = "o" + dot + "?.".join(home)
            old = f"o{dot}{key}"
            holder = "o" + "".join(f"?.{part}" for part in home[:-1])
        else:
            new = "o" + ("?." if optional else "") + "?.".join(f"[{quote}{part}{quote}]" for part in home)
            old = "o" + ("?." if optional else "") + f"[{quote}{key}{quote}]"
            holder = "o" + "".join(f"?.[{quote}{part}{quote}]" for part in home[:-1])
        return f"(({param}) => ({q}{home[-1]}{q} in Object({holder}) ? {new} : {old}))({self.source.code(receiver)})"

    def asi_safe(self, node: Any, text: str) -> str:
        """`text` (which opens with `(`) led by `;` where it starts a statement of code written
        without semicolons: there `(` would call the value the previous statement ends with
        (`const o = { a: 1 }` or `let n = 0`, whatever comments lie between). Inside a
        statement (after `=>`, `+`, `of`, ...) or after a `;`, a `{`, a block's `}` or the
        header of an `if`/`for`/`while`, it stays as it is."""
        statement = node
        while statement.parent is not None and statement.parent.start_byte == node.start_byte and (
            statement.type != "expression_statement"
        ):
            statement = statement.parent
        if statement.type != "expression_statement":
            return text  # the read continues an expression: the token before it is no statement's end
        holder = statement.parent
        if holder is not None and holder.type in _BODY_HOLDERS:
            return text  # `if (x)\n  (...)`: the header's `)` ends no expression
        before = statement.prev_sibling
        while before is not None and before.type == "comment":
            before = before.prev_sibling
        if before is None:
            return text
        leaf = before
        while leaf.child_count:
            leaf = leaf.children[-1]
        if leaf.type in (";", "{", ":", "else", "do"):
            return text
        if leaf.type == "}":
            block = leaf.parent
            outer = block.parent if block is not None else None
            if block is not None and block.type in ("statement_block", "class_body", "switch_body") and (
                outer is None or outer.type not in _EXPRESSION_BLOCKS
            ):
                return text  # a block statement's `}` (a function or class declaration, an `if`)
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
        spread = [child for child in node.named_children if child.type == "spread_element" and self.labels(child)]
        if spread:  # `{ ...entry, expected: [...] }`: a copy of fixture data with a legacy member set
            self.add(keys[moved[0][0]], moved[0][0], moved[0][1].home, "write", labels,
                     advice=f"copies fixture data and sets legacy members: {homes}; set the new homes")
        elif name in ASSERTIONS:
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
            # For a person only: the file is one JSON object now, so whatever reads it as lines (or
            # hands it to a tool that does) must change with the path; a new path alone would
            # trade a missing file for a parse error.
            self.add(node, value, moved.new_relative or "", "path", labels,
                     advice=f"the file becomes `{new_name}`, one JSON object with `cases`, not JSON Lines: "
                     f"read `{new_name}` with JSON.parse and take `.cases`, where this reads `{old_name}` line by line")

    def iterated(self, node: Any) -> bool:
        """Whether the array literal `node` is looped over as names (`for (const f of [...])`,
        `[...].forEach(...)`, `const FIELDS = [...]`), not a value passed to a call
        (`arrayContaining(['expected', 'output-quality'])`: tags, not field names)."""
        parent = node.parent
        if parent is None:
            return False
        if parent.type == "for_in_statement":
            return parent.child_by_field_name("right") is not None and parent.child_by_field_name("right").id == node.id
        if parent.type == "member_expression" and parent.parent is not None and parent.parent.type == "call_expression":
            prop = parent.child_by_field_name("property")
            return prop is not None and self.source.code(prop) in ITERATIONS
        return parent.type == "variable_declarator"

    def field_list(self, node: Any) -> None:
        if not self.iterated(node):
            return
        items = node.named_children
        values = [_string(item, self.source) if item.type == "string" else None for item in items]
        if len(values) < 2 or any(v is None for v in values):
            return
        labels = self.consumer_labels(node)
        if not labels:
            return
        found = self.refs.field_list(labels, values)
        if found is None:
            return
        key, home, advice = found
        loop = self.loop_of(node)
        homes = {name: self.refs.move(labels, name) for name in values}
        if loop is not None and all(move is not False for move in homes.values()):
            var, body = loop
            table = {name: move.home_path for name, move in homes.items() if move}
            reads, fixed = self.loop_reads(var, body)
            if any(self.cut_chain(read) for read in reads) or self.tests_names(var, body):
                reads = []  # what the table cannot stand in for: left for a person, as a whole
            for read in reads:
                obj = read.child_by_field_name("object")
                optional = any(child.type == "optional_chain" for child in read.children)
                self.add(read, key, home, "field_list", self.labels(obj),
                         text=self.asi_safe(read, self.by_table(obj, var, table, optional)))
            if reads or fixed:
                return
        self.add(node, key, home, "field_list", labels, advice=advice)

    def loop_of(self, node: Any) -> tuple[str, Any] | None:
        """`(loop variable, loop body)` of the literal array `node` looped over by `for ... of`
        or by a callback of `forEach`/`map`/...; None for a list bound to a name."""
        parent = node.parent
        if parent.type == "for_in_statement":
            names = _pattern_names(parent.child_by_field_name("left"), self.source)
            body = parent.child_by_field_name("body")
            return (names[0], body) if len(names) == 1 and body is not None else None
        if parent.type == "member_expression":
            call = parent.parent
            arguments = call.child_by_field_name("arguments") if call is not None else None
            function = arguments.named_children[0] if arguments is not None and arguments.named_children else None
            if function is None or function.type not in FUNCTIONS:
                return None
            params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
            if params is None:
                return None
            first = params if params.type == "identifier" else (params.named_children[0] if params.named_children else None)
            if first is not None and first.type in ("required_parameter", "optional_parameter"):
                first = first.child_by_field_name("pattern")
            body = function.child_by_field_name("body")
            if first is None or first.type != "identifier" or body is None:
                return None
            return self.source.code(first), body
        return None

    def loop_reads(self, var: str, body: Any) -> tuple[list[Any], bool]:
        """The reads `x[var]` of fixture data `x` in a loop's `body` (not writes), and whether
        the body holds this codemod's table reads already (a second run)."""
        reads: list[Any] = []
        fixed = False
        stack = [body]
        while stack:
            item = stack.pop()
            if item.type == "call_expression" and self.source.code(item).startswith(("((o, k) =>", "((o: any, k: string) =>")):
                fixed = True
                continue
            if item.type == "subscript_expression":
                obj, index = item.child_by_field_name("object"), item.child_by_field_name("index")
                if (
                    obj is not None and index is not None and index.type == "identifier"
                    and self.source.code(index) == var and self.labels(obj) and not self.written(item)
                ):
                    reads.append(item)
                    continue
            stack.extend(item.children)
        return reads, fixed

    def tests_names(self, var: str, body: Any) -> bool:
        """Whether the loop `body` tests its name `var` on fixture data (`var in x`,
        `x.hasOwnProperty(var)`, `Object.hasOwn(x, var)`): the legacy name, which a migrated case
        lacks, so rewriting only the reads `x[var]` would leave the loop half-fixed."""
        stack = [body]
        while stack:
            item = stack.pop()
            if item.type == "binary_expression":
                left, operator = item.child_by_field_name("left"), item.child_by_field_name("operator")
                right = item.child_by_field_name("right")
                if (
                    operator is not None and self.source.code(operator) == "in" and left is not None
                    and left.type == "identifier" and self.source.code(left) == var and right is not None
                    and self.labels(right)
                ):
                    return True
            if item.type == "call_expression":
                callee, arguments = item.child_by_field_name("function"), item.child_by_field_name("arguments")
                name = self.last_name(callee)
                args = arguments.named_children if arguments is not None else []
                if name in ("hasOwnProperty", "hasOwn") and any(
                    a.type == "identifier" and self.source.code(a) == var for a in args
                ) and (self.labels(callee) or any(self.labels(a) for a in args)):
                    return True
            stack.extend(item.children)
        return False

    def written(self, node: Any) -> bool:
        parent = node.parent
        if parent is None:
            return False
        if parent.type in ("assignment_expression", "augmented_assignment_expression"):
            left = parent.child_by_field_name("left")
            return left is not None and left.id == node.id
        return parent.type in ("update_expression", "unary_expression") and self.source.code(parent).startswith(("delete", "++", "--")) or (
            parent.type == "update_expression")

    def by_table(self, receiver: Any, var: str, table: dict[str, tuple[str, ...]], optional: bool) -> str:
        """A read of `receiver[var]`, `var` one of a literal list of names, through the table of
        their new homes, with the fallback to the name itself:
        `((o, k) => { const t = {"expected": ["expected_outcome"]}; ... })(entry, field)`."""
        import json

        rows = ", ".join(f"{json.dumps(name)}: [{', '.join(json.dumps(p) for p in home)}]" for name, home in table.items())
        o, a = ("o: any, k: string", "a: any, p: string") if self.typed else ("o, k", "a, p")
        fallback = "o?.[k]" if optional else "o[k]"
        return (
            f"(({o}) => {{ const t = {{{rows}}}; const h = Object.prototype.hasOwnProperty.call(t, k) ? t[k] : null; "
            f"const v = h ? h.slice(0, -1).reduce(({a}) => a?.[p], o) : null; "
            f"return h && h[h.length - 1] in Object(v) ? v[h[h.length - 1]] : {fallback}; }})"
            f"({self.source.code(receiver)}, {var})"
        )

    def whole_document(self, node: Any) -> bool:
        """Whether the identifier `node` names a whole parsed document (bound to a `parses`
        call: `JSON.parse(...)`, `require(...)`, the file's own `readJson(...)`), not a part of one."""
        name = self.source.code(node)
        chain = self.chain(node)
        key = next((k for k in chain if (k, name) in self.declared), None)
        return any(k == key and n == name and self.parses(callee) for k, n, callee in self.parsed)

    def parses(self, callee: str) -> bool:
        """Whether a call of `callee` returns a parsed document: a parser (`JSON.parse`,
        `require`, `yaml.load`, ...) or one of the file's own functions that calls one."""
        if callee in PARSE_CALLS:
            return True
        return any(
            any(call in self.source.code(function) for call in PARSE_CALLS)
            for function in self.functions.get(callee, ())
        )

    def list_root(self, node: Any) -> None:
        """A whole document used as a list (`for (const t of doc)`, `doc.map(...)`, `doc.length`,
        `doc[0]`, `Array.isArray(doc)`): a bare list the migration wraps in the canonical object
        (DESIGN "Syntax stays": the cases go under `cases`). -> `(Array.isArray(doc) ? doc :
        doc.cases)`, which reads a legacy list and a migrated file alike."""
        parent = node.parent
        if parent is None:
            return
        use = None
        if parent.type == "for_in_statement":
            right = parent.child_by_field_name("right")
            operator = parent.child_by_field_name("operator")
            if right is not None and right.id == node.id and operator is not None and self.source.code(operator) == "of":
                use = "for...of"
        elif parent.type == "member_expression" and parent.child_by_field_name("object").id == node.id:
            prop = parent.child_by_field_name("property")
            if prop is not None and self.source.code(prop) in LIST_USES:
                use = f".{self.source.code(prop)}"
        elif parent.type == "subscript_expression" and parent.child_by_field_name("object").id == node.id:
            index = parent.child_by_field_name("index")
            if index is not None and index.type == "number":
                use = "[n]"
        elif parent.type == "spread_element" and parent.parent is not None and parent.parent.type == "array":
            use = "[...]"
        elif parent.type == "arguments" and parent.parent is not None and parent.parent.type == "call_expression":
            callee = parent.parent.child_by_field_name("function")
            if callee is not None and callee.type == "identifier" and self.source.code(callee) in self.functions:
                if all(self.refs.fixtures[i].wrapped for i in self.labels(node)):
                    use = "argument"  # handed whole to the file's own function, which takes a list
            elif callee is not None and self.source.code(callee) == "Array.isArray":
                holder = parent.parent.parent
                while holder is not None and holder.type == "parenthesized_expression":
                    holder = holder.parent
                alternative = holder.child_by_field_name("alternative") if holder is not None and holder.type == "ternary_expression" else None
                if alternative is not None and self.source.code(alternative) == f"{self.source.code(node)}.cases":
                    return  # this codemod's own rewrite
                use = "Array.isArray"
        if use is None or not self.whole_document(node):
            return
        labels = self.labels(node)
        if not labels or not self.refs.wrapped(labels):
            return  # an object read as one (`Array.isArray(doc)` to refuse a list) stays an object
        x = self.source.code(node)
        self.add(node, "[...]", "cases", "list_root", labels,
                 text=self.asi_safe(node, f"(Array.isArray({x}) ? {x} : {x}.cases)"))

    def name_arguments(self) -> None:
        """A legacy name passed as a string to one of the file's own functions together with
        fixture data (`requireString(test, "prompt")`, `countBy(cases, "expected")`): the
        function reads it by name, so a person passes the new home or reads both."""
        for name, call, arguments in self.calls:
            if name not in self.functions:
                continue
            args = arguments.named_children
            labels: frozenset[int] = frozenset().union(*(self.labels(a) for a in args if a.type != "string"))
            if not labels:
                continue
            data = [a for a in args if a.type in ("identifier", "member_expression") and self.labels(a)]
            for arg in args:
                value = _string(arg, self.source) if arg.type == "string" else None
                move = self.refs.move(labels, value) if value else None
                if not move:
                    continue
                holder = data[0] if len(data) == 1 else None
                if len(move.home_path) == 1 and holder is not None and self.pure(holder) and not self.whole_document(holder):
                    # The name the data has: `requireString(test, ("input" in Object(test) ? "input" : "prompt"))`.
                    q = self.source.code(arg)[0]
                    home = move.home_path[0]
                    self.add(arg, value, move.home, "name_argument", labels,
                             text=f"({q}{home}{q} in Object({self.source.code(holder)}) ? {q}{home}{q} : {self.source.code(arg)})")
                    continue
                self.add(arg, value, move.home, "name_argument", labels,
                         advice=f"passes the legacy name `{value}` to `{name}`, which reads it from fixture "
                         f"data: pass `{move.home}` (or read both) there")

    def find(self) -> None:
        self.name_arguments()
        for node in self.nodes:
            kind = node.type
            if kind == "identifier":
                self.list_root(node)
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
    scan = _Scan(path, source, refs, root, typed=typescript or tsx)
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
