"""A warm interpreter that forks a child per job and times it, for ``scripts/bench_floor.py``.

Run with the sandbox's Python as ``python -s floor_child.py MODULES`` (comma-separated, imported
first, like the warm pool's server). It reads one JSON job per line on stdin and answers one JSON
line on stdout per job:

* ``{"kind": "bare"}``: fork a child that exits at once; ``fork_wall_s`` is fork to reaped exit,
  the cost of the warm pool's fork and reaping with nothing of the case in it;
* ``{"kind": "solve", "source": ...}``: in the child, compile and run the source as a module and
  call its ``solve()``; ``own_s`` is that, timed inside the child (the candidate's own time), and
  ``fork_wall_s`` fork to reaped exit;
* ``{"kind": "script", "source": ..., "files": {name: text}}``: the source as ``__main__`` in a
  fresh folder holding the files; ``own_s`` as above.

There is no sandbox, no limit, no verdict and no result channel: what is left is the physical
floor a warm case cannot go below. Standard library only (the sandbox's environment has nothing
of the harness).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import sys
import tempfile
import time


def _in_child(job: dict[str, object], report: int) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    started = time.perf_counter()
    ok = True
    try:
        if job["kind"] != "bare":
            source = str(job["source"])
            module = {"__name__": "__main__" if job["kind"] == "script" else "candidate"}
            exec(compile(source, "candidate.py", "exec"), module)
            if job["kind"] == "solve":
                module["solve"]()  # type: ignore[operator]
    except BaseException:  # the figure is a time; a failing reference is reported as such
        ok = False
    own = time.perf_counter() - started
    os.write(report, json.dumps({"own_s": own, "ok": ok}).encode())
    os._exit(0)


def run(job: dict[str, object]) -> dict[str, object]:
    read, write = os.pipe()
    folder = tempfile.mkdtemp(prefix="floor-")
    for name, text in dict(job.get("files") or {}).items():  # type: ignore[call-overload]
        with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
            fh.write(text)
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.chdir(folder)
        _in_child(job, write)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.waitpid(pid, 0)
    wall = time.perf_counter() - started
    os.close(read)
    shutil.rmtree(folder, ignore_errors=True)
    answer: dict[str, object] = json.loads(data) if data else {"own_s": None, "ok": False}
    answer["fork_wall_s"] = wall
    return answer


def main() -> None:
    for name in sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else ():
        with contextlib.suppress(Exception):  # a broken optional package must not stop the measurement
            importlib.import_module(name)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        print(json.dumps(run(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
