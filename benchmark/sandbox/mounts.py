"""Mount planning for bubblewrap: the sandbox's filesystem is built from an allowlist.

Nothing of the host is visible unless it is listed here, and only what generated code and its
solvers need is listed: the system's programs (``/usr/bin``) and shared libraries (the multiarch
folder under ``/usr/lib``, ``/usr/lib64``, the C.UTF-8 locale) with the ``/bin``, ``/lib*`` links
or folders, a handful of ``/etc`` files the dynamic loader and libc read, the sandbox's Python
environment (its venv and, of the base installation, the interpreter, ``libpython`` and the
standard library, whose ``site-packages`` is covered), and the case's read-only input folder. Not
``/usr/local``, ``/usr/share``, ``/usr/lib/python3*`` or any other site-packages.
``/dev`` holds only ``null``, ``zero``, ``random``, ``urandom`` and a small ``/dev/shm``; ``/proc``
is the sandbox's own; the working directory lives in ``/tmp``, a size-capped tmpfs that is the
case's whole writable disk. Everything else, including any copy of a dataset anywhere on the host,
simply does not exist inside.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchmark.sandbox.environment import PythonEnvironment

#: Top-level links (or folders, without merged /usr) the loader and ``#!`` lines use.
SYSTEM_ROOTS = ("/bin", "/lib", "/lib32", "/lib64", "/libx32")
#: Under /usr, the programs and the libraries; the multiarch folders are found per machine.
USR_PATHS = ("/usr/bin", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/usr/lib/locale")
MULTIARCH_GLOB = "/usr/lib/*-linux-gnu*"
ETC_PATHS = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/alternatives",
)
DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
#: Where the case's inputs (runner, candidate, extra files) appear, read-only.
INPUT_DIR = "/optbench/input"
#: The candidate's working directory and $HOME, inside the /tmp tmpfs.
WORK_DIR = "/tmp/sandbox"
#: Absolute paths some task layouts promise (the public TB-MathModel release reads /root/data,
#: writes /root/results, runs its verifier from /tests and logs to /logs): links into the work dir,
#: so each is part of the case's own size-capped tmpfs and shows nothing of the host. Links, not
#: /root itself, because the interpreter may be installed under /root. Left out when a mount lies
#: below one.
TASK_LINKS = {
    "/root/data": f"{WORK_DIR}/root/data",
    "/root/results": f"{WORK_DIR}/root/results",
    "/tests": f"{WORK_DIR}/tests",
    "/logs": f"{WORK_DIR}/logs",
}
SHM_BYTES = 64 * 1024 * 1024
_COVER_BYTES = 4096


def _within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def system_paths() -> list[Path]:
    """The system folders (and top-level links) the sandbox binds read-only, those that exist."""
    found = [Path(p) for p in SYSTEM_ROOTS if os.path.lexists(p)]
    usr = [Path(p) for p in USR_PATHS if os.path.lexists(p)]
    usr += sorted(Path(p) for p in glob.glob(MULTIARCH_GLOB) if os.path.isdir(p))
    # Without merged /usr, /lib is a folder of its own and already holds what it holds.
    return found + [p for p in usr if not any(_within(p, r) and not r.is_symlink() for r in found)]


class MountPlan:
    """The bwrap arguments that build one case's filesystem (same for every case of a sandbox)."""

    def __init__(self, environment: PythonEnvironment, hidden: Sequence[Path], tmp_bytes: int) -> None:
        self.tmp_bytes = tmp_bytes
        self.system = system_paths()
        self.etc = [Path(p) for p in ETC_PATHS if os.path.lexists(p)]
        roots = [*self.system, *self.etc]
        self.python = [
            p
            for p in environment.mounts
            if not any(_within(p, r) for r in roots)
            and not any(_within(p, o) and p != o for o in environment.mounts)
        ]
        exposed = [*roots, *self.python]
        # A hidden path inside something exposed (a checkout inside the Python installation, say)
        # is covered by an empty read-only tmpfs; hidden paths elsewhere are not mounted at all.
        resolved = {Path(os.path.realpath(h)) for h in hidden} | set(environment.covered)
        self.covered = sorted(h for h in resolved if any(_within(h, e) for e in exposed))
        self.links = {
            link: target
            for link, target in TASK_LINKS.items()
            if not any(_within(p, Path(link)) for p in [*exposed, *self.covered])
        }

    def args(self, input_dir: Path, scratch: Mapping[str, Path] | None = None) -> list[str]:
        """bwrap's mount arguments. ``scratch`` maps ``/tmp`` and ``/dev/shm`` to folders holding a
        tmpfs with a file cap (``tmpfs.py``) to bind there instead of bwrap's own size-capped tmpfs."""
        scratch = scratch or {}
        out: list[str] = []
        for path in self.system:
            if path.is_symlink():
                out += ["--symlink", os.readlink(path), str(path)]
            else:
                out += ["--ro-bind", str(path), str(path)]
        for path in self.etc:
            out += ["--ro-bind", str(path), str(path)]
        # The /tmp tmpfs comes before the Python environment: a checkout (and so its sandbox
        # environment) may itself live under /tmp, and a later tmpfs would hide it.
        if "/tmp" in scratch:
            out += ["--bind", str(scratch["/tmp"]), "/tmp", "--dir", WORK_DIR]
        else:
            out += ["--size", str(self.tmp_bytes), "--tmpfs", "/tmp", "--dir", WORK_DIR]
        for path in self.python:
            if path.is_symlink():
                out += ["--symlink", os.readlink(path), str(path)]
            else:
                out += ["--ro-bind", str(path), str(path)]
        for path in self.covered:
            if path.is_dir():
                out += ["--size", str(_COVER_BYTES), "--tmpfs", str(path), "--remount-ro", str(path)]
            else:
                out += ["--ro-bind", "/dev/null", str(path)]
        out += ["--proc", "/proc", "--tmpfs", "/dev"]
        for dev in DEVICES:
            if os.path.exists(dev):
                out += ["--dev-bind", dev, dev]
        out += [
            "--symlink", "/proc/self/fd", "/dev/fd",
            "--symlink", "/proc/self/fd/0", "/dev/stdin",
            "--symlink", "/proc/self/fd/1", "/dev/stdout",
            "--symlink", "/proc/self/fd/2", "/dev/stderr",
            *(["--bind", str(scratch["/dev/shm"]), "/dev/shm"] if "/dev/shm" in scratch
              else ["--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]),
            "--mqueue", "/dev/mqueue",
            "--remount-ro", "/dev",
            "--ro-bind", str(input_dir), INPUT_DIR,
        ]  # fmt: skip
        for link, target in self.links.items():
            out += ["--symlink", target, link]
        return [*out, "--remount-ro", "/"]

    def describe(self) -> dict[str, object]:
        return {
            "policy": "allowlist (default deny): nothing of the host is visible unless listed",
            "system_read_only": [str(p) for p in self.system + self.etc],
            "python_read_only": [str(p) for p in self.python],
            "covered_inside_exposed": [str(p) for p in self.covered],
            "devices": list(DEVICES),
            "writable": {"/tmp (work dir and $HOME in /tmp/sandbox)": self.tmp_bytes, "/dev/shm": SHM_BYTES},
            "input_read_only": INPUT_DIR,
            "links_into_work_dir": dict(self.links),
        }
