"""One open of a file below a directory descriptor, in one system call that never leaves it
and never follows a symlink: Linux's `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`
(Linux 5.6 and later; the standard library has no binding for it, so it is called through
`ctypes`).

`open_beneath(directory_fd, relative, flags)` gives the new descriptor, or None when it
cannot answer: no such call here (another system, an older kernel, a sandbox that forbids
it), or the open failed for any reason (a symlink or `..` on the way, a name gone, no
permission). None is never a verdict: the caller then takes its own, slower path, which
decides and says why. What the call does is what walking from the directory one
component at a time with `O_NOFOLLOW` does (`fixture_migrate.files.root.open_directory`),
without a system call per component.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_SYSCALL_OPENAT2 = 437
"""`openat2`'s number: the same on every Linux architecture that has the unified system call
table (x86-64, i386, ARM, AArch64, RISC-V, among others)."""

_MACHINES = frozenset({"x86_64", "i386", "i686", "aarch64", "arm64", "armv7l", "armv8l", "riscv64"})

_RESOLVE = 0x04 | 0x08 | 0x02
"""`RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (linux/openat2.h)."""

_CALL: Any = None
"""The bound call and its argument builder once looked up; False where there is none."""


def _lookup() -> Any:
    """The `openat2` caller, or False: looked up once per process, on first use (so a run
    that never reads below a held directory never imports `ctypes`)."""
    global _CALL
    if _CALL is not None:
        return _CALL
    _CALL = False
    if not sys.platform.startswith("linux") or os.uname().machine not in _MACHINES:
        return _CALL
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
    except (OSError, AttributeError):
        return _CALL
    # No `argtypes`: every argument is passed as the C object it must be (the number and the
    # size as `long` and `size_t`, made once; the directory as an `int`, made once per
    # descriptor), which spares ctypes a conversion per argument on every call.
    syscall.restype = ctypes.c_long

    class OpenHow(ctypes.Structure):
        _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

    number = ctypes.c_long(_SYSCALL_OPENAT2)
    size = ctypes.c_size_t(ctypes.sizeof(OpenHow))
    hows: dict[int, Any] = {}  # per flags: a reference to its `open_how` (kept alive here), made once
    descriptors: dict[int, Any] = {}  # per directory descriptor: it as a C `int`

    def call(directory_fd: int, relative: bytes, flags: int) -> int:
        how = hows.get(flags)
        if how is None:
            how = hows[flags] = ctypes.byref(OpenHow(flags, 0, _RESOLVE))
        fd = descriptors.get(directory_fd)
        if fd is None:
            if len(descriptors) > 64:
                descriptors.clear()
            fd = descriptors[directory_fd] = ctypes.c_int(directory_fd)
        return syscall(number, fd, relative, how, size)  # bytes go as `char *`

    # One trial open of the directory itself: a kernel without the call, or a sandbox that
    # refuses it, says so here, and the call is never tried again in this process.
    try:
        probe = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return _CALL
    try:
        fd = call(probe, b".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    finally:
        os.close(probe)
    if fd < 0:
        return _CALL
    os.close(fd)
    _CALL = call
    return _CALL


def available() -> bool:
    """Whether this process can open beneath a directory in one call (see the module)."""
    return bool(_lookup())


def open_beneath(directory_fd: int, relative: str, flags: int) -> int | None:
    """A descriptor of `relative` (a relative path, `/`-separated, no `..` needed) opened with
    `flags` below the open directory `directory_fd`, never leaving it and never through a
    symlink (the file itself included); or None (see the module): never raises."""
    call = _CALL if _CALL is not None else _lookup()
    if not call:
        return None
    encoded = os.fsencode(relative)
    if b"\0" in encoded:
        return None  # the C string would end there: another name
    fd = call(directory_fd, encoded, flags)
    return fd if fd >= 0 else None
