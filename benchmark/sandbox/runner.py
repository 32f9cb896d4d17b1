"""In-sandbox runner: executes the candidate's code and writes a JSON verdict to a result file.

The harness puts this file and the case's inputs (``candidate.py`` and, for scripts, extra files
under ``files/``) into a read-only input directory and starts it with the sandbox's Python as
``python -s _optbench_runner.py MODE INPUT_DIR RESULT_FD RESULT_LIMIT``; the warm pool imports it
and calls :func:`run_case` in a freshly forked child instead. It must use the standard library only,
because the harness's own package (``benchmark``) is deliberately not importable in the sandbox.

Why a runner instead of ``python candidate.py``: the classification of a failure (syntax vs. missing
dependency vs. runtime error vs. broken response contract) is only reliable from inside the
interpreter, where the exception object still exists. The verdict goes to its own descriptor, the
write end of a pipe the harness reads (not stdout), so that whatever the candidate prints can never
be confused with it. The pipe starts with :data:`STARTED_MARK` as soon as the runner runs, before
any candidate code (so the harness can tell "the interpreter never started" from "the candidate
crashed", and no candidate can take the mark back), and the verdict follows it. The candidate can
write to the pipe too, so the harness trusts no infrastructure claim that comes through it. A
verdict longer than RESULT_LIMIT bytes is replaced by an ``output_format`` "result too large"
verdict.

JSON choices for ``solve()``'s return value (documented here because this is where they are made):

* NumPy scalars become Python scalars and arrays become (nested) lists, as models often return
  ``np.int64`` counts or ``ndarray`` solutions; NumPy scalar dict keys are coerced likewise.
* Tuples become lists (what ``json`` does anyway).
* Dict keys must be ``str``, ``int``, ``float``, ``bool`` or ``None`` (JSON's own coercion turns
  them into strings, so the returned value has string keys); tuple keys, other key types, or two
  keys that collide once stringified (``1`` and ``"1"``) are an output-format error.
* Non-finite floats (NaN, ±inf) are allowed and kept (Python's ``json`` extension), because
  ``{"objective": float("inf")}`` is a meaningful, if usually wrong, answer that the grader should
  score as a wrong objective rather than a format failure. Writers of strict-JSON files must handle
  them.
* Anything else (sets, complex numbers, custom objects, cycles) is an output-format error.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import linecache
import os
import signal
import sys
import traceback
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import importlib.machinery

CANDIDATE_FILE = "candidate.py"
FILES_DIR = "files"
RUNNER_FILE = "_optbench_runner.py"
STARTED_MARK = b"optbench-runner-started\n"

_TRACEBACK_LINES = 30
_ERROR_CHARS = 4000
_RUNNER_PATH = os.path.abspath(__file__)
_runner_pid = os.getpid()
_workdir = "."
# ImportErrors the dynamic loader raises when the address-space cap is hit: not a missing dependency.
_CO_COROUTINE = 0x0080
_CO_ASYNC_GENERATOR = 0x0200
_MEMORY_IMPORT_ERRORS = ("failed to map segment", "cannot allocate memory", "cannot map zero-fill pages")


class _FormatError(Exception):
    """The return value cannot be represented as the JSON object the contract asks for."""


class _GhostNamespaceBlocker:
    """Makes packages whose source tree is hidden from the sandbox fail to import.

    An editable install (setuptools' finder) still maps ``benchmark`` to the repository after bwrap
    has hidden the repository, and Python then imports it as an empty namespace package. Generated
    code must see a plain ``ModuleNotFoundError`` instead, so a namespace package none of whose
    directories exists is treated as missing.
    """

    def __init__(self) -> None:
        self._busy: set[str] = set()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is None:
                    continue
                locations = spec.submodule_search_locations
                namespace = spec.origin in (None, "namespace") and locations is not None
                if namespace and not any(os.path.isdir(p) for p in list(locations or ())):
                    raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
                return spec
            return None
        finally:
            self._busy.discard(fullname)


def _strip_runner_frames(te: traceback.TracebackException) -> None:
    """Drop this runner's frames and importlib's plumbing from a traceback and its chain."""
    seen: set[int] = set()
    todo: list[traceback.TracebackException | None] = [te]
    while todo:
        cur = todo.pop()
        if cur is None or id(cur) in seen:
            continue
        seen.add(id(cur))
        kept = [
            f
            for f in cur.stack
            if f.filename != _RUNNER_PATH and not f.filename.startswith("<frozen importlib")
        ]
        cur.stack = traceback.StackSummary.from_list(kept)
        todo.extend([cur.__cause__, cur.__context__])


def _describe_exception(exc: BaseException) -> tuple[str, str]:
    """(one-line summary, traceback tail) for an exception raised by candidate code."""
    lines = traceback.format_exception_only(type(exc), exc)
    summary = lines[-1].strip() if lines else type(exc).__name__
    try:
        te = traceback.TracebackException(type(exc), exc, exc.__traceback__, capture_locals=False)
        _strip_runner_frames(te)
        text = "".join(te.format())
    except Exception:  # formatting must never turn a candidate error into a runner crash
        text = "".join(lines)
    tail = "\n".join(text.rstrip("\n").splitlines()[-_TRACEBACK_LINES:])
    return summary, tail


def _error(summary: str, detail: str = "") -> str:
    text = summary if not detail else f"{summary}\n{detail}"
    if len(text) > _ERROR_CHARS:
        text = text[: _ERROR_CHARS // 4] + "\n[...]\n" + text[-(_ERROR_CHARS * 3 // 4) :]
    return text


def _classify_exception(exc: BaseException, where: str) -> dict[str, Any]:
    """Verdict for an exception escaping the module body or solve()/the script."""
    summary, tail = _describe_exception(exc)
    if isinstance(exc, ImportError):
        message = str(exc).lower()
        if not isinstance(exc, ModuleNotFoundError) and any(m in message for m in _MEMORY_IMPORT_ERRORS):
            return {
                "outcome": "runtime",
                "error": _error(
                    f"{where}: {summary} (a shared library could not be mapped: memory cap)", tail
                ),
            }
        if isinstance(exc, ModuleNotFoundError):
            label = f"missing module {exc.name or '?'!r}"
        else:  # e.g. "cannot import name 'x' from 'scipy.optimize'": an API the installed version lacks
            label = f"import from {exc.name!r} failed" if exc.name else "import failed"
        return {"outcome": "dependency", "error": _error(f"{where}: {label}: {summary}", tail)}
    if isinstance(exc, SystemExit):
        return {"outcome": "runtime", "error": _error(f"{where}: called sys.exit({exc.code!r})", tail)}
    if isinstance(exc, MemoryError):
        return {"outcome": "runtime", "error": _error(f"{where}: MemoryError (memory cap reached)", tail)}
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return {"outcome": "runtime", "error": _error(f"{where}: {summary} ({_disk_caps()})", tail)}
    return {"outcome": "runtime", "error": _error(f"{where}: {summary}", tail)}


def _disk_caps() -> str:
    """What filled up, for an ENOSPC: the work directory's file system and its two caps."""
    try:
        fs = os.statvfs(_workdir)
    except OSError:
        return "the sandbox's writable disk is full"
    size_mb = fs.f_blocks * fs.f_frsize // (1024 * 1024)
    used = fs.f_files - fs.f_ffree
    return (
        f"the sandbox's writable disk is full: it holds at most {size_mb} MB and {fs.f_files} files "
        f"and folders; {used} files and folders are in use"
    )


def _numpy_to_python(obj: object) -> tuple[bool, object]:
    """(True, converted) for NumPy scalars and arrays, else (False, obj); never imports NumPy."""
    np = sys.modules.get("numpy")
    if np is None:
        return False, obj
    if isinstance(obj, np.generic):
        return True, obj.item()
    if isinstance(obj, np.ndarray):
        return True, obj.tolist()
    return False, obj


def _json_key(key: object, where: str) -> str:
    """The string JSON will use for a dict key, or a _FormatError for keys JSON cannot hold."""
    _, key = _numpy_to_python(key)
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int | float):
        return json.dumps(key)
    raise _FormatError(
        f"dict key {key!r} at {where} is a {type(key).__name__}; JSON object keys must be strings "
        "(or numbers, which become strings)"
    )


def _to_json(obj: object, where: str, active: set[int]) -> object:
    """A JSON-ready copy of obj, applying the module docstring's coercions."""
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    converted, obj = _numpy_to_python(obj)
    if converted:
        return _to_json(obj, where, active)
    if isinstance(obj, dict | list | tuple):
        if id(obj) in active:
            raise _FormatError(f"circular reference at {where}")
        active.add(id(obj))
        try:
            if isinstance(obj, dict):
                out: dict[str, object] = {}
                for key, val in obj.items():
                    skey = _json_key(key, where)
                    if skey in out:
                        raise _FormatError(
                            f"dict keys at {where} collide once converted to JSON strings: {skey!r}"
                        )
                    out[skey] = _to_json(val, f"{where}[{skey!r}]", active)
                return out
            return [_to_json(v, f"{where}[{i}]", active) for i, v in enumerate(obj)]
        finally:
            active.discard(id(obj))
    raise _FormatError(f"value at {where} has type {type(obj).__module__}.{type(obj).__qualname__}, not JSON")


def _required_parameters(func: Any) -> list[str] | None:
    """Names of parameters solve() cannot be called without; None when it is async.

    Plain functions are read from their code object, because importing ``inspect`` costs more than
    the rest of the runner; other callables (bound methods, partials, classes) go through inspect.
    """
    if isinstance(func, types.FunctionType):
        code = func.__code__
        if code.co_flags & (_CO_COROUTINE | _CO_ASYNC_GENERATOR):
            return None
        positional = code.co_varnames[: code.co_argcount]
        kwonly = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
        n_defaults = len(func.__defaults__ or ())
        required = list(positional[: len(positional) - n_defaults])
        required += [name for name in kwonly if name not in (func.__kwdefaults__ or {})]
        return required
    import inspect

    if inspect.iscoroutinefunction(func):
        return None
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in params if p.default is inspect.Parameter.empty and p.kind not in variadic]


def _check_solve(module: types.ModuleType) -> dict[str, Any] | None:
    """A response-contract verdict when the module has no usable no-argument solve(), else None."""
    solve = module.__dict__.get("solve")
    if solve is None:
        return {"outcome": "response_contract", "error": "no top-level solve() function is defined"}
    if not callable(solve):
        kind = type(solve).__name__
        return {
            "outcome": "response_contract",
            "error": f"top-level name 'solve' is a {kind}, not a function",
        }
    required = _required_parameters(solve)
    if required is None:
        return {"outcome": "response_contract", "error": "solve() must be a plain function, not async"}
    if required:
        names = ", ".join(required)
        return {
            "outcome": "response_contract",
            "error": f"solve() must take no arguments but requires: {names}",
        }
    return None


def _compile(source: str) -> tuple[types.CodeType | None, dict[str, Any] | None]:
    # Tracebacks name the file "candidate.py" in every sandbox kind; register its lines so they show.
    lines = source.splitlines(keepends=True)
    linecache.cache[CANDIDATE_FILE] = (len(source), None, lines, CANDIDATE_FILE)
    try:
        return compile(source, CANDIDATE_FILE, "exec", dont_inherit=True), None
    except (SyntaxError, ValueError) as exc:  # ValueError: NUL bytes in the source
        detail = "".join(traceback.format_exception_only(type(exc), exc)).rstrip("\n")
        if isinstance(exc, SyntaxError):
            summary = f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"
        else:
            summary = f"SyntaxError: {exc}"
        return None, {"outcome": "syntax", "error": _error(summary, detail)}


def _run(mode: str, source: str, workdir: str) -> dict[str, Any]:
    code, verdict = _compile(source)
    if code is None:
        return verdict or {"outcome": "syntax", "error": "could not compile"}
    module_name = "__main__" if mode == "script" else "candidate"
    module = types.ModuleType(module_name)
    module.__file__ = os.path.join(workdir, CANDIDATE_FILE)
    sys.modules[module_name] = module
    sys.argv = [CANDIDATE_FILE]
    try:
        exec(code, module.__dict__)
    except SystemExit as exc:
        _leave_if_forked()
        if mode == "script" and exc.code in (None, 0):
            return {"outcome": "ok", "value": None}
        where = "script" if mode == "script" else "while importing the module"
        return _classify_exception(exc, where)
    except BaseException as exc:
        _leave_if_forked()
        where = "script" if mode == "script" else "while importing the module"
        return _classify_exception(exc, where)
    _leave_if_forked()
    if mode == "script":
        return {"outcome": "ok", "value": None}

    contract = _check_solve(module)
    if contract is not None:
        return contract
    try:
        value = module.solve()
    except BaseException as exc:
        _leave_if_forked()
        return _classify_exception(exc, "in solve()")
    _leave_if_forked()
    if not isinstance(value, dict):
        kind = type(value).__name__
        return {
            "outcome": "output_format",
            "error": f"solve() returned {kind}, expected a dict (JSON object)",
        }
    try:
        return {"outcome": "ok", "value": _to_json(value, "$", set())}
    except _FormatError as exc:
        return {"outcome": "output_format", "error": f"solve()'s return value is not JSON: {exc}"}
    except RecursionError:
        return {"outcome": "output_format", "error": "solve()'s return value is nested too deeply for JSON"}
    except Exception as exc:  # e.g. a dict subclass whose items() raises: still the candidate's doing
        return {"outcome": "output_format", "error": f"solve()'s return value could not be read: {exc!r}"}


def _leave_if_forked() -> None:
    """A forked copy of the candidate that returns into the runner must not write a second verdict."""
    if os.getpid() != _runner_pid:
        os._exit(0)


def _encode_verdict(verdict: dict[str, Any], limit: int) -> bytes:
    """The verdict as JSON bytes, or a small output-format verdict when it cannot be stored."""
    try:
        data = json.dumps(verdict, allow_nan=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except (MemoryError, ValueError, TypeError, UnicodeError) as exc:
        small = {"outcome": "output_format", "error": f"solve()'s return value could not be stored: {exc!r}"}
        return json.dumps(small).encode()
    if len(data) > limit:
        del data
        return json.dumps(
            {
                "outcome": "output_format",
                "error": f"result too large: solve()'s return value exceeds the {limit}-byte limit as JSON",
            }
        ).encode()
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _copy_inputs(input_dir: str, workdir: str) -> None:
    """Extra files of a script run, copied from the read-only input directory into the work dir."""
    root = os.path.join(input_dir, FILES_DIR)
    for folder, _dirs, names in os.walk(root):
        rel = os.path.relpath(folder, root)
        target = os.path.normpath(os.path.join(workdir, rel))
        os.makedirs(target, exist_ok=True)
        for name in names:
            with open(os.path.join(folder, name), "rb") as src, open(os.path.join(target, name), "wb") as dst:
                dst.write(src.read())


def run_case(mode: str, source: str, workdir: str, result_fd: int, result_limit: int) -> None:
    """Run one candidate in this process (cwd ``workdir``), write its verdict, and ``os._exit``.

    Never returns: interpreter teardown is skipped so that non-daemon threads or atexit hooks of the
    candidate cannot turn a finished run into a timeout (and teardown of solver libraries is slow).
    """
    global _runner_pid, _workdir
    _runner_pid, _workdir = os.getpid(), workdir
    _write_all(result_fd, STARTED_MARK)
    # Past RLIMIT_FSIZE, writes fail with EFBIG instead of the kernel killing the process (SIGXFSZ);
    # the ignored disposition is inherited by everything the candidate starts.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    # Line buffering keeps what was printed before a timeout kill.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)
    sys.meta_path.insert(0, _GhostNamespaceBlocker())
    try:
        with open(
            os.path.join(workdir, CANDIDATE_FILE), "w", encoding="utf-8", errors="surrogateescape"
        ) as fh:
            fh.write(source)
        verdict = _run(mode, source, workdir)
    except BaseException as exc:
        # The runner shares its process with the candidate, which can break it (replace builtins,
        # close descriptors): no verdict from in here can claim an infrastructure fault.
        _leave_if_forked()
        verdict = {
            "outcome": "runtime",
            "error": _error(f"the runner failed running the candidate: {exc!r}", traceback.format_exc()),
        }
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # the candidate may have closed or replaced the stream
            stream.flush()
    data = _encode_verdict(verdict, result_limit)
    with contextlib.suppress(OSError):
        _write_all(result_fd, data)
    os._exit(0)


def main() -> None:
    mode, input_dir, result_fd, result_limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(os.path.join(input_dir, CANDIDATE_FILE), encoding="utf-8", errors="surrogateescape") as fh:
        source = fh.read()
    workdir = os.getcwd()
    _copy_inputs(input_dir, workdir)
    run_case(mode, source, workdir, result_fd, result_limit)


if __name__ == "__main__":
    main()
