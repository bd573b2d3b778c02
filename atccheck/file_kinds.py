"""What a path is before anything reads it: a regular file, or a FIFO, device, socket, directory.

Opening a FIFO blocks until a writer comes, and reading a device may never end: atccheck stats
the files a model or a command names, and reads only a bounded head of regular files. A Git LFS
pointer (the small text file a clone made without ``git lfs pull`` holds in place of the real
file) is recognised here too, from its first bytes.
"""

from __future__ import annotations

import os
from typing import BinaryIO


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words, from its ``st_mode``."""
    import stat

    for test, kind in ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return kind
    return "regular file" if stat.S_ISREG(mode) else "special file"


def open_regular(path: "str | os.PathLike[str]") -> "BinaryIO | None":
    """``path`` opened for reading when it is a regular file, else None.

    A FIFO, a device, a socket or a directory is never read: the file is opened without
    blocking (opening a FIFO otherwise waits for a writer) and judged on the open descriptor,
    so a file swapped for a FIFO after a caller's ``stat`` cannot hang a read either. OSError
    when it cannot be opened at all.
    """
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_head(path: "str | os.PathLike[str]", size: int) -> bytes | None:
    """The first ``size`` bytes of a regular file, or None when ``path`` is not one (see open_regular)."""
    handle = open_regular(path)
    if handle is None:
        return None
    with handle:
        return handle.read(size)


# The Git LFS pointer format (git-lfs docs/spec.md): a small text file whose first line starts with
# this key. It is the format of the file a clone made without ``git lfs pull`` holds in place of
# the real one, not a CANN fact; only files no larger than LFS_POINTER_MAX_BYTES are looked at.
LFS_POINTER_PREFIX = b"version https://git-lfs"
LFS_POINTER_MAX_BYTES = 1024  # the spec caps pointer files well below this


def is_lfs_pointer(path: "str | os.PathLike[str]", size: int) -> bool:
    """Whether a regular file of ``size`` bytes is a Git LFS pointer (only its first bytes are read)."""
    if size > LFS_POINTER_MAX_BYTES:
        return False
    try:
        head = read_head(path, len(LFS_POINTER_PREFIX))
    except OSError:
        return False
    return head == LFS_POINTER_PREFIX
