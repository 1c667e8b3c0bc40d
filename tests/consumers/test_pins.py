"""The pin index (`fixture_migrate.consumers.pins`): its fast scan finds exactly what reading
each line with the three regexes finds, and the index reads the files a repository tracks."""

from __future__ import annotations

import hashlib
import os

from hypothesis import example, given
from hypothesis import strategies as st

from fixture_migrate.consumers.pins import _HEX, _NAME, _NUMBER, PinIndex, scan


def line_by_line(data: bytes, relative: str) -> tuple[dict[str, str], dict[tuple[str, int], list[str]]]:
    """The index as it was first built: every line of `data` through the three regexes."""
    digests: dict[str, str] = {}
    sizes: dict[tuple[str, int], list[str]] = {}
    for number, line in enumerate(data.splitlines(), 1):
        for match in _HEX.finditer(line):
            digests.setdefault(match.group().decode().lower(), f"{relative}:{number}")
        names = _NAME.findall(line)
        if names:
            for size in _NUMBER.findall(line):
                for name in names:
                    sizes.setdefault((name.decode("utf-8", "replace"), int(size)), []).append(f"{relative}:{number}")
    return digests, sizes


def scanned(data: bytes, relative: str = "f.txt") -> tuple[dict[str, str], dict[tuple[str, int], list[str]]]:
    digests: dict[str, str] = {}
    sizes: dict[tuple[str, int], list[str]] = {}
    scan(data, relative, digests, sizes)
    return digests, sizes


HEX40 = "a3F9" * 10
HEX64 = "0b" * 32
PIECES = [
    "\n", "\r", "\r\n", " ", ".", "-", "_", "#", "x", "é", "0", "12", "4096", "1.5", "v2",
    "a.json", "cases.jsonl", "b.yaml", "c.yml", "m.py", ".json", "x.pyc", "e.jsonx",
    HEX40, HEX64, HEX40 + "0", "f" * 39, "sha1:", "\0",
]  # fmt: skip


@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
@example(f"{HEX40}\r\na.json 12\r{HEX64} b.yaml\n\nb.yaml 7 8\r\r\n{HEX40}")
@example("a.json\r12\n.json 3\nx.json.json 5")
def test_the_fast_scan_finds_what_each_line_holds(text):
    data = text.encode("utf-8")
    assert scanned(data) == line_by_line(data, "f.txt")


def test_the_fast_scan_numbers_lines_as_splitlines_does():
    data = b"one\r\ntwo\rthree\n" + HEX40.encode() + b"\r\nfour cases.json 321\n"
    digests, sizes = scanned(data, "pins.md")
    assert digests == {HEX40.lower(): "pins.md:4"}
    assert sizes == {("cases.json", 321): ["pins.md:5"]}


def test_the_index_reads_tracked_text_files_only(tmp_path):
    (tmp_path / "skills/a/evals").mkdir(parents=True)
    fixture = tmp_path / "skills/a/evals/cases.json"
    fixture.write_text('{"cases": []}\n')
    body = fixture.read_bytes()
    sha256, sha1 = hashlib.sha256(body).hexdigest(), hashlib.sha1(body).hexdigest()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/pins.txt").write_text(f"header\n{sha1.upper()}  skills/a/evals/cases.json\n")
    (tmp_path / "notes/binary.dat").write_bytes(b"\0" + sha256.encode())  # binary: not read
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden/pins.txt").write_text(sha256)  # a hidden folder is not walked
    os.symlink(tmp_path / "notes/pins.txt", tmp_path / "link.txt")  # a symlink is not read
    index = PinIndex(tmp_path)
    assert index.pinned_by(fixture, (len(body), sha1, sha256)) == "notes/pins.txt:2"
    assert index.pinned_by(fixture, (len(body), "0" * 40, "0" * 64)) is None
    (tmp_path / "notes/pins.txt").write_text(f"cases.json {len(body)}\n")
    assert PinIndex(tmp_path).pinned_by(fixture, (len(body), "0" * 40, "0" * 64)) == "notes/pins.txt:1"
