"""The sandbox's ``/tmp`` and ``/dev/shm`` with a cap on files as well as bytes.

bwrap's ``--tmpfs`` takes a size only, and a tmpfs's default inode count is half the machine's
memory pages: a million empty files cost about 1 GB of kernel memory outside the size cap, and the
cleanup after them slowed the next warm case 70×. Where the harness may mount (root with
CAP_SYS_ADMIN on the host), it mounts a tmpfs with ``size=`` and ``nr_inodes=`` itself and binds
it into bwrap as ``/tmp``; once bwrap holds its own copy (the pool server is up, or the cold case
ended) the host mount is detached, so nothing stays mounted on the host. Where it may not, bwrap's
own tmpfs is used, without a file cap, and the manifest says so (:func:`inode_cap_problem`).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

_MNT_DETACH = 2


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


class HostTmpfs:
    """One tmpfs mounted on the host, with its size and file caps, until :meth:`detach`."""

    def __init__(self, size_bytes: int, files: int) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="optbench-tmp-"))
        options = f"size={size_bytes},nr_inodes={files},mode=1777".encode()
        if _libc().mount(b"tmpfs", str(self.path).encode(), b"tmpfs", 0, options) != 0:
            errno = ctypes.get_errno()
            os.rmdir(self.path)
            raise OSError(errno, f"cannot mount a tmpfs on {self.path}: {os.strerror(errno)}")
        self.mounted = True

    def detach(self) -> None:
        """Unmount from the host (a sandbox that bound it keeps its own copy) and remove the folder."""
        if self.mounted:
            _libc().umount2(str(self.path).encode(), _MNT_DETACH)
            self.mounted = False
            with contextlib.suppress(OSError):
                os.rmdir(self.path)


def detach_all(mounts: Mapping[str, HostTmpfs]) -> None:
    for tmpfs in mounts.values():
        tmpfs.detach()


@functools.cache
def inode_cap_problem() -> str | None:
    """None when this process can mount capped tmpfs folders, else why not (asked once)."""
    if os.geteuid() != 0:
        return "not root: bwrap's own /tmp tmpfs is used, without a cap on the number of files"
    try:
        HostTmpfs(1 << 20, 16).detach()
    except OSError as exc:
        return f"{exc.strerror}: bwrap's own /tmp tmpfs is used, without a cap on the number of files"
    return None
