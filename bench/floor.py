"""The floor of scenario (b), for bench/run.py: what a warm re-run cannot do without.

A warm `migrate --check` must still start the interpreter with what the tool imports to
begin (typer, orjson), walk the tree, read every file under the root rule and hash its
bytes, and check that the file is still the one it read. This loop does exactly that and
nothing else: one `os.scandir` per folder; per file one `openat2` below the root
(`fixture_migrate.files.beneath.open_beneath`, the call the tool reads with), `fstat`,
`read`, `close`, the cache's 128-bit XXH3 digest kept in a dict, and one `lstat`
relative to the root. Where the kernel has no `openat2`, a plain `openat` of the path
with `O_NOFOLLOW` stands in (less than the tool does there: a lower floor still). It
loads no configuration, no ignore rules and no cache file, and decides nothing.

    python bench/floor.py ROOT
"""

from __future__ import annotations

import os
import sys

import orjson  # noqa: F401 - imported, as the tool imports it
import typer  # noqa: F401
from xxhash import xxh3_128_digest

from fixture_migrate.files import beneath


def main(root: str) -> int:
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    below = beneath.available()  # without it, a plain open of the path: a lower floor still
    digests: dict[str, bytes] = {}
    folders = [""]
    while folders:
        folder = folders.pop()
        with os.scandir(os.path.join(root, folder) if folder else root) as entries:
            for entry in entries:
                relative = f"{folder}/{entry.name}" if folder else entry.name
                if entry.is_dir(follow_symlinks=False):
                    folders.append(relative)
                    continue
                if below:
                    fd = beneath.open_beneath(root_fd, relative, flags)
                    if fd is None:
                        continue
                else:
                    try:
                        fd = os.open(relative, flags, dir_fd=root_fd)
                    except OSError:
                        continue
                try:
                    size = os.fstat(fd).st_size
                    digests[relative] = xxh3_128_digest(os.read(fd, size + 1))
                finally:
                    os.close(fd)
    for relative in digests:
        os.lstat(relative, dir_fd=root_fd)
    os.close(root_fd)
    print(len(digests))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
