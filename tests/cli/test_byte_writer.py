"""`ByteWriter`: the bytes of `normalize` reach a file or pipe in batches, whole and in order;
a terminal gets each write at once."""

from __future__ import annotations

import io
import os
import pty

import pytest
from fixture_migrate.cli import jsontext
from fixture_migrate.cli.jsontext import ByteWriter


def _stream(fd: int) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BufferedWriter(io.FileIO(fd, "w", closefd=False)), encoding="utf-8")


def _drain(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_pipe_gets_the_bytes_held_until_the_batch_fills_or_a_flush(monkeypatch):
    monkeypatch.setattr(jsontext, "BATCH_BYTES", 10)
    read, write = os.pipe()
    try:
        out = _stream(write)
        out.write("text first\n")  # written by the text stream before: still first
        writer = ByteWriter(out)
        writer(b"abcd")
        writer(b"efgh")
        assert _drain(read) == b"text first\n"  # 8 bytes held
        writer(b"ij")  # 10: the batch is full
        assert _drain(read) == b"abcdefghij"
        writer(b"k")
        writer.flush()
        writer.flush()  # nothing more held: nothing written
        assert _drain(read) == b"k"
    finally:
        os.close(read)
        os.close(write)


def test_a_short_write_is_continued_from_where_it_stopped(monkeypatch):
    read, write = os.pipe()
    calls = []

    def short_writev(fd, parts):  # at most 3 bytes a call, as a full pipe may take
        data = b"".join(bytes(part) for part in parts)[:3]
        calls.append(len(parts))
        return os.write(fd, data)

    monkeypatch.setattr(os, "writev", short_writev)
    try:
        writer = ByteWriter(_stream(write))
        for part in (b"hello", b" ", b"world", b"!"):
            writer(part)
        writer.flush()
        assert _drain(read) == b"hello world!"
        assert len(calls) == 4 and calls[0] == 4  # 12 bytes, 3 at a time; first all four parts
    finally:
        os.close(read)
        os.close(write)


def test_a_terminal_gets_each_write_at_once():
    leader, follower = pty.openpty()
    try:
        out = _stream(follower)
        writer = ByteWriter(out)
        writer(b"line\n")
        out.buffer.flush()
        assert b"line" in os.read(leader, 100)
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize("out", [io.StringIO(), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")], ids=["str", "bytes"])
def test_a_stream_with_no_file_behind_it_is_written_through(out):
    writer = ByteWriter(out)
    writer("é\n".encode())
    writer.flush()
    if isinstance(out, io.StringIO):
        assert out.getvalue() == "é\n"
    else:
        out.buffer.flush()
        assert out.buffer.getvalue() == "é\n".encode()


def test_normalize_writes_the_cases_before_a_message_where_both_go_to_one_pipe(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    example = (Path(__file__).resolve().parents[2] / "examples" / "canonical" / "release-notes.json").read_bytes()
    evals = tmp_path / "skills" / "demo" / "evals"
    evals.mkdir(parents=True)
    (evals / "a.json").write_bytes(example)
    (evals / "b.json").write_bytes(b'{"schema_version": "spec-first.workflow-eval-fixtures.v1", "cases": [')
    (evals / "c.json").write_bytes(example)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "fixture_migrate",
            "normalize",
            "--output-format",
            "jsonl",
            "--repo-root",
            str(tmp_path),
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=False,
    )
    lines = done.stdout.decode().splitlines()
    error = next(i for i, line in enumerate(lines) if "b.json" in line and not line.startswith("{"))
    sources = [line.split('"source_file":"')[1].split('"')[0] for line in lines if line.startswith("{")]
    assert done.returncode == 2 and sources and set(sources) == {"skills/demo/evals/a.json", "skills/demo/evals/c.json"}
    assert all("a.json" in line for line in lines[:error]) and all(
        "c.json" in line for line in lines[error + 1 :] if line.startswith("{")
    )


def test_a_full_non_blocking_pipe_is_written_once_it_takes_more():
    import threading

    read, write = os.pipe()
    os.set_blocking(write, False)
    data = [bytes([65 + i % 26]) * 50_000 for i in range(8)]  # 400 kB: several pipes full
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(b"".join(iter(lambda: os.read(read, 1 << 16), b""))))
    reader.start()
    try:
        writer = ByteWriter(_stream(write))
        for part in data:
            writer(part)
        writer.flush()
    finally:
        os.close(write)
        reader.join(10)
        os.close(read)
    assert got == [b"".join(data)]


def test_a_wrapped_buffer_sees_every_write(tmp_path):
    # A wrapper of stdout's buffer (a run's recording) must see the bytes: writing to the
    # file beneath it would go round it, however many it holds.
    class Spy:
        def __init__(self, buffer):
            self.buffer, self.seen = buffer, []

        def write(self, data):
            self.seen.append(bytes(data))
            return self.buffer.write(data)

        def __getattr__(self, name):  # `fileno`, `flush`: the wrapped buffer's
            return getattr(self.buffer, name)

    class Stream:
        def __init__(self, buffer):
            self.buffer = buffer

        def flush(self):
            self.buffer.flush()

    with open(tmp_path / "out", "wb") as raw:
        spy = Spy(raw)
        writer = ByteWriter(Stream(spy))
        writer(b"one")
        writer(b"two")
        writer.flush()
    assert spy.seen == [b"one", b"two"] and (tmp_path / "out").read_bytes() == b"onetwo"
