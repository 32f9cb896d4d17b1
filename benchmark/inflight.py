"""One bound on model requests in flight for all the processes of a run (``--max-in-flight``).

Each xdist worker used to hold ``max_in_flight / W`` permits of its own. Workers come up seconds
apart (each starts an interpreter and collects the whole dataset), so during a run's first
seconds only the early workers' parts were in use: at ``-n 4`` the model side lost most of a wave
of replies to it (issue 28). :class:`RunPermits` are instead ``max_in_flight`` lock files in the
run folder, each taken with an exclusive ``flock``: any process may hold any of them, the kernel
keeps the count across processes, and a process that dies lets go of its permits with its file
descriptors, so a crashed worker never shrinks the bound.

Within a process one waiting thread at a time scans the files (every :data:`POLL_S` while none is
free); the others wait on a condition, and a permit given back in the process wakes one of them at
once. A permit given back by another process is seen at the next scan, at most :data:`POLL_S`
later: a few milliseconds against model replies of seconds.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType

__all__ = ["POLL_S", "RunPermits"]

#: How often a process waiting for a permit looks for one given back by another process.
POLL_S = 0.005


class RunPermits:
    """``count`` permits shared by every process that opens the same ``folder``; use as
    ``with permits:`` around one request (the same form as a ``threading.BoundedSemaphore``)."""

    def __init__(self, folder: Path, count: int, poll_s: float = POLL_S) -> None:
        if count < 1:
            raise ValueError(f"a bound on requests in flight needs at least one permit, got {count}")
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.count = count
        self.poll_s = poll_s
        self._turn = threading.Condition()
        self._fds: dict[int, int] = {}  # permit → this process's descriptor of its file
        self._held: set[int] = set()  # permits a thread of this process holds
        self._polling = False  # whether a thread of this process is scanning on a timer
        self._next = 0
        self._local = threading.local()

    def __enter__(self) -> None:
        with self._turn:
            while (permit := self._take_free()) is None:
                if self._polling:
                    self._turn.wait()
                    continue
                self._polling = True
                try:
                    self._turn.wait(self.poll_s)
                finally:
                    self._polling = False
            self._turn.notify()  # the next waiter scans, and polls if it finds none
        self._stack().append(permit)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        permit = self._stack().pop()
        with self._turn:
            fcntl.flock(self._fds[permit], fcntl.LOCK_UN)
            self._held.discard(permit)
            self._turn.notify()

    def held_here(self) -> int:
        """How many permits the threads of this process hold now."""
        with self._turn:
            return len(self._held)

    def close(self) -> None:
        """Close this process's descriptors (which gives back any permit still held)."""
        with self._turn:
            for fd in self._fds.values():
                os.close(fd)
            self._fds.clear()
            self._held.clear()

    def _take_free(self) -> int | None:
        """A permit no process holds, now taken by this one; None when all are held. Called with
        ``_turn`` held, so no two threads of the process scan at once."""
        for step in range(self.count):
            permit = (self._next + step) % self.count
            if permit in self._held:
                continue
            try:
                fcntl.flock(self._fd(permit), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            self._held.add(permit)
            self._next = permit + 1
            return permit
        return None

    def _fd(self, permit: int) -> int:
        if permit not in self._fds:
            path = self.folder / f"permit-{permit:04d}"
            self._fds[permit] = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        return self._fds[permit]

    def _stack(self) -> list[int]:
        """The permits the calling thread holds, innermost last."""
        stack: list[int] | None = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack
