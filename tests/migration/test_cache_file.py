"""`fixture_migrate.migration.cache_file`: entries held compact read back as they were written,
and a file read in chunks (or fed a block at a time) gives what reading it whole gives."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from fixture_migrate.migration import cache_file
from fixture_migrate.migration.cache_file import Entries, Loader

STATUSES = ("unchanged", "not_fixture", "changed")
KEY = "0123456789abcdef0123456789abcdef"

_TEXT = st.text(alphabet=st.sampled_from('ab/é\n\\",:{}[] \t'), max_size=8)
_DIGEST = st.one_of(
    st.integers(0, 2**128 - 1).map(lambda n: f"{n:032x}"),
    st.sampled_from(["", "00", "DIGEST", "0" * 31 + "G", "F" * 32]),  # kept as read
)
_ENTRY = st.tuples(
    _DIGEST,
    st.sampled_from(STATUSES),
    st.lists(_TEXT, max_size=2),
    st.integers(0, 9),
    st.integers(1, 9),
    st.dictionaries(_TEXT, st.integers(0, 3), max_size=2),
    _TEXT,
    st.booleans(),
).map(list)
_ENTRIES = st.lists(st.tuples(_TEXT, _ENTRY), max_size=30)


def whole(body: bytes) -> dict:
    """The entries as a JSON reader reads the document."""
    value = orjson.loads(body)
    assert value["key"] == KEY
    return value["entries"]


def as_dict(entries: Entries) -> dict:
    return dict(entries.items())


@given(_ENTRIES, st.integers(1, 200))
def test_what_is_written_reads_back_the_same_in_chunks_and_fed_in_blocks(pairs, block):
    entries = Entries()
    for relative, entry in pairs:
        entries.set(relative, entry)
    body = cache_file.dump(KEY, entries)
    expected = dict(pairs)  # a path set twice keeps its place and its last entry
    assert whole(body) == expected and list(whole(body)) == list(expected)
    chunk_bytes = cache_file.CHUNK_BYTES
    try:
        cache_file.CHUNK_BYTES = block  # chunks of a few entries: every cut is exercised
        loaded = cache_file.load(body, KEY, STATUSES)
    finally:
        cache_file.CHUNK_BYTES = chunk_bytes
    assert loaded is not None and as_dict(loaded) == expected and list(loaded) == list(expected)
    loader = Loader(b"magic\n" + cache_file.header(KEY), STATUSES)
    data = b"magic\n" + body
    for start in range(0, len(data), block):
        loader.feed(data[start : start + block])
    fed = loader.finish()
    assert fed is not None and as_dict(fed) == expected


@given(_ENTRIES)
def test_a_document_of_another_layout_is_read_whole_with_the_same_answer(pairs):
    body = orjson.dumps({"key": KEY, "entries": dict(pairs)}, option=orjson.OPT_INDENT_2)
    loaded = cache_file.load(body, KEY, STATUSES)
    assert loaded is not None and as_dict(loaded) == dict(pairs)
    loader = Loader(cache_file.header(KEY), STATUSES)
    loader.feed(body)
    assert loader.finish() is None  # the caller reads it whole then


def test_a_bad_entry_anywhere_voids_the_file_and_another_key_is_no_cache_of_this_one():
    good = ["0" * 32, "unchanged", ["canonical"], 0, 1, {}, "r", False]
    entries = Entries()
    for n in range(50):
        entries.set(f"f{n}.json", good)
    body = cache_file.dump(KEY, entries)
    bad = body.replace(b'"f49.json":["' + b"0" * 32 + b'","unchanged"', b'"f49.json":["' + b"0" * 32 + b'","written"')
    assert bad != body
    assert len(cache_file.load(bad, KEY, STATUSES)) == 0
    loader = Loader(cache_file.header(KEY), STATUSES)
    loader.feed(bad)
    assert len(loader.finish()) == 0
    assert len(cache_file.load(body, "f" * 32, STATUSES)) == 0
    assert len(cache_file.load(body[:-1], KEY, STATUSES)) == 0  # truncated: not JSON
    assert len(cache_file.load(body, KEY, STATUSES)) == 50


def test_entries_share_one_verdict_and_hand_out_their_own_containers():
    entries = Entries()
    for n in range(3):
        entries.set(f"f{n}.json", [f"{n:032x}", "changed", ["a"], 2, 3, {"a": 1}, "why", True])
    first = entries.get("f0.json")
    first[2].append("mutated")
    first[5]["b"] = 2
    assert entries.get("f0.json") == ["0" * 32, "changed", ["a"], 2, 3, {"a": 1}, "why", True]
    assert entries.digest_of("f2.json") == "0" * 31 + "2" and entries.digest_of("g.json") is None
    assert len(entries._verdicts) == 1
    entries.pop("f1.json")
    entries.keep(lambda relative: relative != "f2.json")
    assert list(entries) == ["f0.json"]


@given(_ENTRIES, st.data())
def test_seen_entries_read_and_write_as_they_were(pairs, data):
    """`see` marks an entry read with its own bytes in this run; the mark changes nothing
    `get`, `digest_of` or `dump` give, and a read of other bytes marks nothing."""
    entries = Entries()
    for relative, entry in pairs:
        entries.set(relative, entry)
    before = {relative: entries.get(relative) for relative in entries}
    written = cache_file.dump(KEY, entries)
    marked = set()
    for relative in list(entries):
        digest = entries.digest_of(relative)
        assert digest is not None
        compact = len(digest) == 32 and all(ch in "0123456789abcdef" for ch in digest)  # held as an integer
        if data.draw(st.booleans()):
            entries.see(relative, bytes(16) if digest != "0" * 32 else b"\x01" * 16, 7)  # other bytes
        elif compact:
            entries.see(relative, bytes.fromhex(digest), 7)
            marked.add(relative)
    assert {relative for relative in entries if entries.seen_entry(relative, 7) is not None} == marked
    assert all(entries.seen_entry(relative, 8) is None for relative in entries)  # the file is another since
    assert {relative: entries.get(relative) for relative in entries} == before
    assert cache_file.dump(KEY, entries) == written
    entries.see("not there", bytes(16), 7)
    assert not entries.seen_entry("not there", 7)
    for relative in marked:  # read again with other bytes: seen no more
        digest = entries.digest_of(relative)
        entries.see(relative, bytes(16) if digest != "0" * 32 else b"\x01" * 16, 7)
        assert entries.seen_entry(relative, 7) is None and not entries.seen(relative)
    assert {relative: entries.get(relative) for relative in entries} == before


def test_holds_says_whether_a_path_in_scope_has_a_verdict():
    entries = Entries()
    assert not entries.holds("changed", [""])
    entries.set("a/x.json", [KEY, "unchanged", [], 0, 1, {}, "", False])
    assert not entries.holds("changed", [""])
    entries.set("a/b/y.json", [KEY, "changed", ["x"], 2, 1, {}, "", False])
    assert entries.holds("changed", [""]) and entries.holds("changed", ["a/"]) and entries.holds("changed", ["a/b/"])
    assert entries.holds("changed", ["a/b/y.json"]) and entries.holds("unchanged", ["a/x.json", "c/"])
    assert not entries.holds("changed", ["a/x.json", "a/b/y", "a/b", "c/", "a/b/y.json/"])
    entries.set("c.json", ["DIGEST", "changed", [], 0, 1, {}, "", False])  # kept as read
    entries.pop("a/b/y.json")
    assert entries.holds("changed", ["c.json"]) and not entries.holds("changed", ["a/"])
    entries.pop("c.json")
    assert not entries.holds("changed", [""])  # a verdict no entry holds any more


def test_pins_nothing_reads_the_seen_entry_s_last_member():
    entries = Entries()
    entries.set("a.json", [KEY, "unchanged", [], 0, 1, {}, "", True])
    entries.set("b.json", ["0" * 32, "unchanged", [], 0, 1, {}, "", False])
    entries.set("c.json", ["DIGEST", "unchanged", [], 0, 1, {}, "", True])  # kept as read: never seen
    assert not entries.pins_nothing("a.json")  # not seen yet
    for relative in ("a.json", "b.json", "c.json"):
        entries.see(relative, bytes.fromhex(KEY if relative == "a.json" else "0" * 32), 7)
    names = ("a.json", "b.json", "c.json", "d.json")
    assert [entries.pins_nothing(name) for name in names] == [True, False, False, False]
    assert [entries.seen_entry(name, 7) is not None for name in ("a.json", "b.json", "c.json")] == [True, True, False]


def _dump_whole(key: str, entries: Entries) -> bytes:
    """The document as `dump` made it before it was written a piece at a time."""
    lines = [orjson.dumps(relative) + b":" + orjson.dumps(entry) for relative, entry in entries.items()]
    if not lines:
        return cache_file.header(key) + b"}}"
    return cache_file.header(key) + b"\n" + b",\n".join(lines) + b"\n}}"


@given(_ENTRIES, st.sampled_from([1, 2, 3, 7, 2048]))
def test_the_document_written_in_pieces_is_the_whole_one(pairs, lines):
    entries = Entries()
    for relative, entry in pairs:
        entries.set(relative, entry)
    original = cache_file.DUMP_LINES
    cache_file.DUMP_LINES = lines
    try:
        pieces = list(cache_file.dump_chunks(KEY, entries))
    finally:
        cache_file.DUMP_LINES = original
    assert b"".join(pieces) == _dump_whole(KEY, entries)
    assert len(pieces) <= 2 + -(-len(entries) // lines)  # the head, a piece per `lines` entries, the tail


def test_learnt_pins_nothing_is_one_integer_and_carries_to_the_same_bytes_only():
    entries = Entries()
    entries.set("a.json", [KEY, "unchanged", ["canonical"], 1, 1, {}, "r", False])
    entries.set("b.json", ["0" * 32, "unchanged", ["canonical"], 1, 1, {}, "r", False])
    entries.set("c.json", ["0" * 32, "changed", ["x"], 2, 3, {"x": 1}, "", True])
    assert not entries.learn_pins_nothing("a.json")  # not seen: nothing learnt
    entries.see("a.json", bytes.fromhex(KEY), 2**64 - 1)
    entries.see("c.json", bytes(16), 0)
    assert entries.learn_pins_nothing("a.json")
    assert not entries.learn_pins_nothing("a.json")  # already known
    assert not entries.learn_pins_nothing("c.json")  # known before
    assert entries.get("a.json") == [KEY, "unchanged", ["canonical"], 1, 1, {}, "r", True]
    assert list(entries.learnt()) == [("a.json", int(KEY, 16))]
    assert isinstance(entries._values["a.json"], int)
    # Another copy of the file (as another run wrote it): only an entry of the same bytes takes it.
    other = Entries()
    other.set("a.json", [KEY, "unchanged", ["canonical"], 1, 1, {}, "r", False])
    other.set("b.json", ["0" * 32, "unchanged", ["canonical"], 1, 1, {}, "r", False])
    other.learn_from(entries)
    assert other.get("a.json")[7] is True and other.get("b.json")[7] is False
    changed = Entries()
    changed.set("a.json", ["f" * 32, "unchanged", ["canonical"], 1, 1, {}, "r", False])
    changed.learn_from(entries)
    assert changed.get("a.json")[7] is False
    assert cache_file.dump(KEY, entries) == _dump_whole(KEY, entries)  # no mark of this run written
