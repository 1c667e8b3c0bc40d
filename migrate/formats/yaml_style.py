"""How a YAML file writes what it holds, so new text looks like the rest of the file.

`detect_style` reads a stream's indentation of mappings and sequences, the gap after
a dash, its quote character, whether it quotes keys or most strings, and whether
lists of scalars are written `[a, b]`, by a vote over the nodes of its span tree
(`fixture_migrate.formats.yaml_text`). The writer copies the `YamlStyle` it gives.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from fixture_migrate.formats.yaml_text import MAP, SCALAR, SEQ, YNode, column, walk


@dataclass(frozen=True)
class YamlStyle:
    """How a file writes what the writer adds: `map_indent` (columns from a key to the
    keys of a mapping under it), `seq_indent` (from a key to the dashes of a sequence
    under it), `dash_gap` (from a dash to the content after it), `quote` (the quote
    character for strings that need one), `key_quote` (set when the file quotes its
    keys), `quote_values` (set when the file quotes most of its strings), `flow_seqs` with
    `flow_keys`/`block_keys` (lists of scalars as `[a, b]`)."""

    map_indent: int = 2
    seq_indent: int = 2
    dash_gap: int = 2
    quote: str = '"'
    key_quote: str | None = None
    quote_values: bool = False
    flow_seqs: bool = False
    flow_keys: frozenset[str] = frozenset()
    block_keys: frozenset[str] = frozenset()

    def flow_seq(self, key: str | None) -> bool:
        """Whether a new list of scalars under member `key` is written `[a, b]`."""
        if key in self.flow_keys:
            return True
        return False if key in self.block_keys else self.flow_seqs


def _vote(counter: Counter[Any], default: Any) -> Any:
    return counter.most_common(1)[0][0] if counter else default


def detect_style(text: str, roots: list[YNode]) -> YamlStyle:
    """The `YamlStyle` of a stream from its text and document roots."""
    map_indent: Counter[int] = Counter()
    seq_indent: Counter[int] = Counter()
    dash_gap: Counter[int] = Counter()
    quotes: Counter[str] = Counter()
    strings: Counter[bool] = Counter()
    keys: Counter[str | None] = Counter()
    flow: Counter[bool] = Counter()
    flow_keys: set[str] = set()
    block_keys: set[str] = set()
    for root in roots:
        for node in walk(root):
            if node.kind == MAP:
                for key, knode, child in zip(node.keys, node.knodes, node.children, strict=True):
                    keys[knode.style] += 1
                    if child.kind == SCALAR and isinstance(child.data, str) and child.style in (None, "'", '"'):
                        strings[child.style is not None] += 1
                    if child.kind == MAP and child.block and not node.flow:
                        map_indent[child.col - node.col] += 1
                    elif child.kind == SEQ and not node.flow:
                        if child.block:
                            seq_indent[child.col - node.col] += 1
                        if child.children and all(item.kind == SCALAR for item in child.children):
                            flow[child.flow] += 1
                            (flow_keys if child.flow else block_keys).add(key)
            elif node.kind == SEQ and node.block:
                for dash, child in zip(node.dashes, node.children, strict=True):
                    if child.block:
                        dash_gap[child.col - column(text, dash)] += 1
            elif node.kind == SCALAR and node.style in ("'", '"'):
                quotes[node.style] += 1
    key_style = _vote(keys, None)
    sequences = max(0, _vote(seq_indent, 2))
    return YamlStyle(
        map_indent=max(1, _vote(map_indent, sequences or 2)),
        seq_indent=sequences,
        dash_gap=max(2, _vote(dash_gap, 2)),
        quote=_vote(quotes, '"'),
        key_quote=key_style if key_style in ("'", '"') else None,
        quote_values=strings[True] > strings[False],
        flow_seqs=flow[True] > flow[False],
        flow_keys=frozenset(flow_keys - block_keys),
        block_keys=frozenset(block_keys - flow_keys),
    )
