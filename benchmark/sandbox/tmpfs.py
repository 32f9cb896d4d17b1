"""The sandbox's ``/tmp`` and ``/dev/shm`` with a cap on files as well as bytes.

bwrap's ``--tmpfs`` takes a size only, and a tmpfs's default inode count is half the machine's
memory pages: a million empty files cost about 1 GB of kernel memory outside the size cap, and the
cleanup after them slowed the next warm case 70×. Where the harness may mount (root with
CAP_SYS_ADMIN), the process that becomes bwrap first enters a private mount namespace of its own,
mounts a tmpfs with ``size=`` and ``nr_inodes=`` on an empty folder there, and bwrap binds it as
``/tmp``. Nothing is ever mounted in the host's namespace: the mounts end with the sandbox, even
when the harness is killed (an empty folder may stay behind then, as any temporary folder would).
Where it may not, bwrap's own tmpfs is used, without a file cap, and the manifest says so
(:func:`inode_cap_problem`).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

_CLONE_NEWNS = 0x00020000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


class ScratchMount:
    """An empty folder and the tmpfs options to mount on it in the sandbox's own namespace."""

    def __init__(self, size_bytes: int, files: int) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="optbench-tmp-"))
        self.options = f"size={size_bytes},nr_inodes={files},mode=1777"

    def remove(self) -> None:
        """Remove the folder: once bwrap has bound the tmpfs (or is gone), it needs it no more."""
        with contextlib.suppress(OSError):
            os.rmdir(self.path)


def remove_all(mounts: Mapping[str, ScratchMount]) -> None:
    for mount in mounts.values():
        mount.remove()


def mount_privately(mounts: Mapping[str, ScratchMount]) -> Callable[[], None]:
    """What the child runs before it execs bwrap (computed before the fork): a private mount
    namespace, then each tmpfs on its folder. Raises OSError when the kernel refuses."""
    libc = _libc()
    jobs = [(str(m.path).encode(), m.options.encode()) for m in mounts.values()]

    def check(result: int, what: str) -> None:
        if result != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"{what}: {os.strerror(errno)}")

    def apply() -> None:
        if not jobs:
            return
        check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
        for path, options in jobs:
            check(libc.mount(b"tmpfs", path, b"tmpfs", 0, options), f"mount tmpfs on {path.decode()}")

    return apply


@functools.cache
def inode_cap_problem() -> str | None:
    """None when this process can give a child a capped tmpfs, else why not (asked once)."""
    if os.geteuid() != 0:
        return "not root: bwrap's own /tmp tmpfs is used, without a cap on the number of files"
    probe = {"/tmp": ScratchMount(1 << 20, 16)}
    try:
        subprocess.run(["true"], preexec_fn=mount_privately(probe), check=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot mount a tmpfs ({exc}): bwrap's own /tmp tmpfs is used, without a file cap"
    finally:
        remove_all(probe)
    return None
