"""A pytest plugin for the tests' benchmark sessions: watches the warm pool's processes of the run.

The run is given its own ``TMPDIR``, so every pool server's folder is ``$TMPDIR/optbench-pool-*``.
That folder is the marker: it is on bwrap's command line, and every process inside the server's
sandbox has it in its ``/proc/<pid>/mountinfo`` (the source of its input bind mount), whatever its
name. In the controller process the plugin polls for marked processes while the cases run and
looks once more when the session finishes, before xdist shuts the workers down (the start of the
run's teardown); it writes what it saw as JSON to ``$OPTBENCH_POOL_WATCH``.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path

import pytest

POOL_PREFIX = "optbench-pool-"
_POLL_S = 0.1


def pool_marker() -> str:
    """The marker of this process's pool folders: their path up to the random suffix."""
    return os.path.join(os.path.realpath(tempfile.gettempdir()), POOL_PREFIX)


def live_marked_processes(marker: str) -> list[int]:
    """Live (not zombie) host pids whose command line or mount table names ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[-1].split()[0]
            named = marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes()
            named = named or marker in Path(f"/proc/{entry}/mountinfo").read_text()
        except (OSError, IndexError):
            continue
        if named and state not in ("Z", "X"):
            found.append(int(entry))
    return found


class _Watch:
    def __init__(self, output: Path) -> None:
        self.output = output
        self.marker = pool_marker()
        self.most_seen = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.stop.wait(_POLL_S):
            self.most_seen = max(self.most_seen, len(live_marked_processes(self.marker)))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.stop.set()
        self.thread.join()
        left = live_marked_processes(self.marker)
        self.output.write_text(
            json.dumps({"marker": self.marker, "most_seen": self.most_seen, "at_finish": left})
        )


def pytest_configure(config: pytest.Config) -> None:
    output = os.environ.get("OPTBENCH_POOL_WATCH")
    if output and not hasattr(config, "workerinput"):  # the controller only
        watch = _Watch(Path(output))
        config.pluginmanager.register(watch, "optbench-pool-watch")
        watch.thread.start()
