"""Executing AMPL model and data files with GNU MathProg (``glpsol``) when no real AMPL is installed.

MathProg is close to a subset of AMPL's modelling language, so a model and data file usually run
unchanged. Our rewrites before running (recorded in every result as ``rewrites``) are only these:

* AMPL *commands* that select solvers or print results are removed: ``option``, ``solve``,
  ``display``, ``print``, ``printf``, ``model``, ``data FILE``, ``reset``, ``include``, ``expand``,
  ``show``, ``write``, ``shell``, ``quit``, ``exit``. They never change the optimization problem;
  MathProg would either reject them or print into our result stream.
* A trailing ``end;`` is left to glpsol, which inserts a missing one itself.

Everything else goes to glpsol as written. A file glpsol rejects is classified (:func:`classify`):
AMPL-only constructs that MathProg lacks (``let``, ``ordered`` sets, ``Infinity``, ``ord()``/``first()``
and friends, ``complements``, ...) are ``unsupported_syntax``, kept apart from the model's own errors;
then ``undefined_entity`` (a name used before or without a declaration), ``undeclared_data_parameter``
(the data file assigns a name the model never declared), ``missing_data`` (a declared parameter or set
without a value), and ``syntax`` for the rest. A model glpsol solved reports ``optimal``, ``infeasible``
or ``unbounded``.

Backend: glpsol translates the model and solves it with GLPK's own simplex / branch-and-cut
(``--mipgap 0``); the generator cross-checks every gold optimum with HiGHS on glpsol's ``--wlp``
translation (see ``generation.py``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.suites.nldata.entities import statements, tokens

MODEL_FILE = "model.mod"
DATA_FILE = "model.dat"
RESULT_PREFIX = "NLDATA_RESULT "
BACKEND = "mathprog-glpsol"

_REMOVED_COMMANDS = frozenset(
    {"option", "options", "solve", "display", "print", "printf", "model", "reset", "include",
     "expand", "show", "write", "shell", "quit", "exit"}
)  # fmt: skip
#: AMPL constructs MathProg cannot express: (pattern, what it is).
_AMPL_ONLY: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE | re.MULTILINE), what)
    for pattern, what in (
        (r"^\s*let\b", "let (assignment command)"),
        (r"^\s*(fix|unfix|drop|restore|problem|environ|suffix|redeclare)\b", "AMPL command"),
        (r"\bordered\b|\bcircular\b", "ordered/circular sets"),
        (r"\bInfinity\b", "Infinity"),
        (r"\b(ord|ord0|first|last|next|prev|nextw|prevw|member)\s*\(", "ordered-set functions"),
        (r"\bcomplements\b", "complementarity constraints"),
        (r"\b(node|arc)\b[^;]*\b(net_in|net_out|from|to)\b", "network declarations (node/arc)"),
        (r"\bto_come\b", "to_come"),
        (r"\b(Current|Initial)\b", "named problems"),
        (r"\bsymbolic\s+in\b", "symbolic in"),
        (r"\bcard\s*\(\s*\{", "card of a set expression"),
    )
)


@dataclass(frozen=True)
class Rewritten:
    """A file after our MathProg rewrites, and what was removed (for the record)."""

    text: str
    removed: tuple[str, ...]


def _strip_commands(text: str) -> Rewritten:
    """Remove the command statements listed in the module docstring, keeping every other byte."""
    removed: list[str] = []
    spans: list[tuple[int, int]] = []
    # Tokens with their positions, so a removed statement can be cut out of the text exactly.
    pattern = re.compile(
        r"(#[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:[^\"\n])*\"|'(?:[^'\n])*'|[{}()\[\]]|;|[A-Za-z_][A-Za-z0-9_.]*|\S)",
        re.DOTALL,
    )
    depth, start, first_word = 0, None, None
    for match in pattern.finditer(text):
        token = match.group()
        if token.startswith(("#", "/*")):
            continue
        if start is None:
            start, first_word = match.start(), token
        if token in "([{" and len(token) == 1:
            depth += 1
        elif token in ")]}" and len(token) == 1:
            depth = max(0, depth - 1)
        elif token == ";" and depth == 0:
            word = (first_word or "").lower()
            statement = text[start : match.end()]
            is_data_file = word == "data" and not re.fullmatch(r"data\s*;", statement.strip(), re.IGNORECASE)
            if word in _REMOVED_COMMANDS or is_data_file:
                spans.append((start, match.end()))
                removed.append(" ".join(statement.split())[:120])
            start, first_word = None, None
    out, last = [], 0
    for begin, end in spans:
        out.append(text[last:begin])
        last = end
    out.append(text[last:])
    return Rewritten("".join(out), tuple(removed))


def rewrite(text: str) -> Rewritten:
    """The MathProg rewrite of one AMPL file (model or data)."""
    return _strip_commands(text)


def ampl_only_constructs(*texts: str) -> list[str]:
    """The AMPL-only constructs found in the files (comments and strings ignored)."""
    found: list[str] = []
    for text in texts:
        code = "\n".join(
            " ".join(value for value, _ in statement if not value.startswith(("'", '"')))
            for statement in statements(tokens(text))
        )
        for regex, what in _AMPL_ONLY:
            if regex.search(code) and what not in found:
                found.append(what)
    return found


_UNDEFINED = re.compile(r"^\S+:\d+: (\S+) not defined", re.MULTILINE)
_NOT_DECLARED_IN_DATA = re.compile(r"^\S+:\d+: (\S+) not a (?:parameter|set)", re.MULTILINE)
_MISSING = re.compile(r"no value for (\S+)|(\S+) not defined in data|(\S+)\[.*\] out of domain")
_ERROR_LINE = re.compile(r"^\S+:\d+: .*$", re.MULTILINE)


@dataclass(frozen=True)
class Execution:
    """What running one model/data pair gave. ``status`` is ``optimal``, ``infeasible``,
    ``unbounded``, ``not_solved`` (translation failed) or ``error`` (glpsol stopped otherwise)."""

    status: str
    objective: float | None
    category: str | None
    error: str
    log: str
    rewrites: dict[str, list[str]] = field(default_factory=dict)
    ampl_only: tuple[str, ...] = ()
    wall_s: float | None = None
    backend: str = BACKEND
    stderr: str = field(default="", repr=False)
    """What the sandboxed run wrote to stderr (``log`` is the solver's own output)."""

    def as_record(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "status": self.status,
            "objective": self.objective,
            "category": self.category,
            "error": self.error,
            "rewrites": self.rewrites,
            "ampl_only_constructs": list(self.ampl_only),
            "wall_s": self.wall_s,
        }


def classify(log: str, model: str, data: str) -> tuple[str, str]:
    """(category, the decisive error line) for a pair glpsol refused to translate."""
    error_lines = _ERROR_LINE.findall(log)
    decisive = next((line for line in error_lines if "warning" not in line), log.strip()[-300:])
    if match := _NOT_DECLARED_IN_DATA.search(log):
        return (
            "undeclared_data_parameter",
            f"the data file assigns {match.group(1)}, which the model never declares ({decisive})",
        )
    if match := _UNDEFINED.search(log):
        unsupported = ampl_only_constructs(model, data)
        if unsupported:
            return (
                "unsupported_syntax",
                f"AMPL syntax MathProg cannot run: {', '.join(unsupported)} ({decisive})",
            )
        return "undefined_entity", f"{match.group(1)} is used but never declared ({decisive})"
    if _MISSING.search(log):
        return "missing_data", decisive
    unsupported = ampl_only_constructs(model, data)
    if unsupported:
        return "unsupported_syntax", f"AMPL syntax MathProg cannot run: {', '.join(unsupported)} ({decisive})"
    return "syntax", decisive


def read_solution(text: str) -> tuple[str, float | None]:
    """(status, objective) from a glpsol ``-w`` solution file (GLPK's plain-text format)."""
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0] != "s":
            continue
        if parts[1] == "mip" and len(parts) >= 6:
            status = {"o": "optimal", "f": "feasible", "n": "infeasible", "u": "undefined"}.get(
                parts[4], parts[4]
            )
            return status, float(parts[5]) if status == "optimal" else None
        if parts[1] in ("bas", "ipt") and len(parts) >= 7:
            primal, dual = parts[4], parts[5]
            if primal == "f" and dual == "f":
                return "optimal", float(parts[6])
            if primal == "n":
                return "infeasible", None
            if primal == "f" and dual == "n":
                return "unbounded", None
            return "undefined", None
    return "undefined", None


def interpret(
    rc: int, log: str, solution: str | None, model: str, data: str, rewrites: dict[str, list[str]]
) -> Execution:
    """Turn glpsol's exit status, log and solution file into an :class:`Execution`."""
    translated = "Model has been successfully generated" in log
    if "MathProg model processing error" in log or (rc != 0 and solution is None and not translated):
        category, error = classify(log, model, data)
        return Execution(
            "not_solved", None, category, error, log, rewrites, tuple(ampl_only_constructs(model, data))
        )
    upper = log.upper()
    if "NO PRIMAL FEASIBLE SOLUTION" in upper or "NO INTEGER FEASIBLE SOLUTION" in upper:
        return Execution(
            "infeasible", None, "infeasible", "the model has no feasible solution", log, rewrites
        )
    if "NO DUAL FEASIBLE SOLUTION" in upper or "UNBOUNDED PRIMAL SOLUTION" in upper:
        return Execution("unbounded", None, "unbounded", "the model is unbounded", log, rewrites)
    if solution is None:
        return Execution(
            "error", None, "runtime", f"glpsol wrote no solution (exit status {rc})", log, rewrites
        )
    status, objective = read_solution(solution)
    if status == "optimal" and objective is not None:
        return Execution("optimal", objective, None, "", log, rewrites)
    if status in ("infeasible", "unbounded"):
        return Execution(status, None, status, f"the model is {status}", log, rewrites)
    return Execution("error", None, "runtime", f"glpsol stopped with solution status {status}", log, rewrites)


def glpsol_argv(glpsol: str, time_limit_s: int | None = None) -> list[str]:
    argv = [glpsol, "--math", MODEL_FILE, "-d", DATA_FILE, "-w", "solution.txt", "--mipgap", "0"]
    if time_limit_s is not None:
        argv += ["--tmlim", str(time_limit_s)]
    return argv


def run_local(model: str, data: str, glpsol: str | None = None) -> Execution:
    """Run a *trusted* pair (our gold files) with glpsol in this process's machine, no sandbox."""
    exe = glpsol or shutil.which("glpsol")
    if exe is None:
        raise FileNotFoundError(
            "glpsol not found on PATH (Debian package glpk-utils; scripts/setup.sh installs it)"
        )
    rewritten_model, rewritten_data = rewrite(model), rewrite(data)
    with tempfile.TemporaryDirectory(prefix="optbench-nldata-") as tmp:
        work = Path(tmp)
        (work / MODEL_FILE).write_text(rewritten_model.text, encoding="utf-8")
        (work / DATA_FILE).write_text(rewritten_data.text, encoding="utf-8")
        proc = subprocess.run(
            glpsol_argv(exe), cwd=work, capture_output=True, text=True, timeout=120, check=False
        )
        solution_path = work / "solution.txt"
        solution = solution_path.read_text(encoding="utf-8") if solution_path.is_file() else None
    rewrites = {"model": list(rewritten_model.removed), "data": list(rewritten_data.removed)}
    return interpret(proc.returncode, proc.stdout + proc.stderr, solution, model, data, rewrites)


#: The script the sandbox runs: glpsol on the two files, everything it produced reported as JSON.
SANDBOX_SCRIPT = f"""\
import json
import os
import shutil
import subprocess

exe = shutil.which("glpsol")
if exe is None:
    print({RESULT_PREFIX!r} + json.dumps({{"glpsol": None}}))
else:
    argv = {glpsol_argv("GLPSOL")!r}
    argv[0] = exe
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    solution = open("solution.txt").read() if os.path.isfile("solution.txt") else None
    log = (proc.stdout + proc.stderr)[-20000:]
    result = {{"glpsol": exe, "rc": proc.returncode, "log": log, "solution": solution}}
    print({RESULT_PREFIX!r} + json.dumps(result))
"""
