"""Executing AMPL model and data files with GNU MathProg (``glpsol``) when no real AMPL is installed.

MathProg is close to a subset of AMPL's modelling language, so a model and data file usually run
unchanged. Our rewrites before running (recorded in every result as ``rewrites``) are only these:

* AMPL *commands* that select solvers or print results are removed: ``option``, ``solve``,
  ``display``, ``print``, ``printf``, ``model``, ``data FILE``, ``reset``, ``include``, ``expand``,
  ``show``, ``write``, ``shell``, ``quit``, ``exit``, and the statements that can only hold such
  commands or move data in and out of files: ``for`` loops, AMPL's command ``if``, and ``table``.
  They never change the optimization problem; MathProg would either reject them or print into our
  result stream, or a file. The files are split into *statements* (a ``for``'s body and a block
  end with the ``for``), so a ``printf`` nested in a loop goes with its loop.
* A trailing ``end;`` is left to glpsol, which inserts a missing one itself.

Everything else goes to glpsol as written. A file glpsol rejects is classified (:func:`classify`):
AMPL-only constructs that MathProg lacks (``let``, ``ordered`` sets, ``Infinity``, ``ord()``/``first()``
and friends, ``complements``, ...) are ``unsupported_syntax``, kept apart from the model's own errors;
then ``undefined_entity`` (a name used before or without a declaration), ``undeclared_data_parameter``
(the data file assigns a name the model never declared), ``missing_data`` (a declared parameter or set
without a value), and ``syntax`` for the rest. A model glpsol solved reports ``optimal``, ``infeasible``
or ``unbounded``.

Only glpsol's own word counts: it writes its solution into a fresh directory outside the model's
working directory (``SANDBOX_SCRIPT``, :func:`run_local`), and a solve that glpsol's log says
failed (``incorrect bounds`` and the other ``glp_*`` refusals) is a ``runtime`` failure with that
log line as its reason, whatever any file says.

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

from benchmark.categories import ExecutionCategory
from benchmark.resources import resource_text
from benchmark.suites.nldata.categories import NLDataCategory
from benchmark.suites.nldata.entities import statements, tokens
from benchmark.suites.nldata.statements import statement_spans
from benchmark.suites.nldata.translate import translate

MODEL_FILE = "model.mod"
DATA_FILE = "model.dat"
RESULT_PREFIX = "NLDATA_RESULT "
BACKEND = "mathprog-glpsol"

_REMOVED_COMMANDS = frozenset(
    {"option", "options", "solve", "display", "print", "printf", "model", "reset", "include",
     "expand", "show", "write", "shell", "quit", "exit", "for", "if", "table"}
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
    for first_word, begin, end in statement_spans(text):
        word = first_word.lower()
        statement = text[begin:end]
        is_data_file = word == "data" and not re.fullmatch(r"data\s*;", statement.strip(), re.IGNORECASE)
        if word in _REMOVED_COMMANDS or is_data_file:
            spans.append((begin, end))
            removed.append(" ".join(statement.split())[:120])
    out, last = [], 0
    for begin, end in spans:
        out.append(text[last:begin])
        last = end
    out.append(text[last:])
    return Rewritten("".join(out), tuple(removed))


def rewrite(text: str) -> Rewritten:
    """The MathProg rewrite of one AMPL file (model or data)."""
    return _strip_commands(text)


@dataclass(frozen=True)
class Prepared:
    """A model and data file as glpsol gets them: commands removed, AMPL-only constructs translated
    (``translate.py``), and what was done, for the record."""

    model: str
    data: str
    rewrites: dict[str, list[str]]


def _merge_data_section(model: str, data: str) -> tuple[str, str, bool]:
    """glpsol ignores a model file's own ``data;`` section when a data file is given, as ours always
    is: the section moves to the front of the data file (its ``end;`` and the file's ``data;`` go)."""
    spans = statement_spans(model)
    start = next((b for w, b, _ in spans if w.lower() == "data"), None)
    if start is None:
        return model, data, False
    section = "".join(model[b:e] + "\n" for w, b, e in spans if b >= start and w.lower() != "end")
    body = "".join(
        data[b:e] + "\n"
        for i, (w, b, e) in enumerate(statement_spans(data))
        if not (i == 0 and w.lower() == "data")
    )
    return model[:start], section + body, True


def prepare(model: str, data: str) -> Prepared:
    rewritten_model, rewritten_data = rewrite(model), rewrite(data)
    model_part, data_text, moved = _merge_data_section(rewritten_model.text, rewritten_data.text)
    translated = translate(model_part, data_text)
    rewrites = {"model": list(rewritten_model.removed), "data": list(rewritten_data.removed)}
    if moved:
        rewrites["moved"] = ["the model file's data section into the data file"]
    if translated.notes:
        rewrites["translated"] = list(translated.notes)
    return Prepared(translated.model, translated.data, rewrites)


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
            NLDataCategory.UNDECLARED_DATA_PARAMETER,
            f"the data file assigns {match.group(1)}, which the model never declares ({decisive})",
        )
    if match := _UNDEFINED.search(log):
        unsupported = ampl_only_constructs(model, data)
        if unsupported:
            return (
                NLDataCategory.UNSUPPORTED_SYNTAX,
                f"AMPL syntax MathProg cannot run: {', '.join(unsupported)} ({decisive})",
            )
        return NLDataCategory.UNDEFINED_ENTITY, f"{match.group(1)} is used but never declared ({decisive})"
    if _MISSING.search(log):
        return NLDataCategory.MISSING_DATA, decisive
    unsupported = ampl_only_constructs(model, data)
    if unsupported:
        return (
            NLDataCategory.UNSUPPORTED_SYNTAX,
            f"AMPL syntax MathProg cannot run: {', '.join(unsupported)} ({decisive})",
        )
    return ExecutionCategory.SYNTAX, decisive


def read_solution(text: str) -> tuple[str, float | None]:
    """(status, objective) from a glpsol ``-w`` solution file (GLPK's plain-text format). A file with
    more than one status line is not glpsol's: ``undefined``."""
    lines = [line.split() for line in text.splitlines()]
    status_lines = [parts for parts in lines if parts and parts[0] == "s"]
    if len(status_lines) != 1:
        return "undefined", None
    parts = status_lines[0]
    if len(parts) >= 6 and parts[1] == "mip":
        names = {"o": "optimal", "f": "feasible", "n": "infeasible", "u": "undefined"}
        status = names.get(parts[4], parts[4])
        return status, float(parts[5]) if status == "optimal" else None
    if len(parts) >= 7 and parts[1] in ("bas", "ipt"):
        primal, dual = parts[4], parts[5]
        if primal == "f" and dual == "f":
            return "optimal", float(parts[6])
        if primal == "n":
            return "infeasible", None
        if primal == "f" and dual == "n":
            return "unbounded", None
    return "undefined", None


#: A solver routine's message in glpsol's log, e.g. ``glp_simplex: column 1: lb = 5, ub = 1; incorrect
#: bounds``: after such a refusal glpsol still writes a solution file (status undefined) and exits 0,
#: so the message is the reason given for a solve without an optimal status. (Not every such line is
#: a refusal: ``glp_mpl_build_prob: row z; constant term 6 ignored`` comes with optimal solves.)
_REFUSAL = re.compile(r"^glp_\w+: .*$", re.MULTILINE)
#: GLPK's message when an allocation fails (it then aborts): not a syntax error of the model.
_OUT_OF_MEMORY = re.compile(r"^glp_alloc: no memory available.*$", re.MULTILINE)


def interpret(
    rc: int, log: str, solution: str | None, model: str, data: str, rewrites: dict[str, list[str]]
) -> Execution:
    """Turn glpsol's exit status, log and solution file into an :class:`Execution`."""
    if memory := _OUT_OF_MEMORY.search(log):  # GLPK aborts where it stands, mid-translation or not
        reason = f"glpsol ran out of memory (the sandbox's memory cap): {memory.group()}"
        return Execution("error", None, ExecutionCategory.RUNTIME, reason, log, rewrites)
    translated = "Model has been successfully generated" in log
    if "MathProg model processing error" in log or (rc != 0 and solution is None and not translated):
        category, error = classify(log, model, data)
        return Execution(
            "not_solved", None, category, error, log, rewrites, tuple(ampl_only_constructs(model, data))
        )
    upper = log.upper()
    if "NO PRIMAL FEASIBLE SOLUTION" in upper or "NO INTEGER FEASIBLE SOLUTION" in upper:
        return Execution(
            "infeasible", None, NLDataCategory.INFEASIBLE, "the model has no feasible solution", log, rewrites
        )
    if "NO DUAL FEASIBLE SOLUTION" in upper or "UNBOUNDED PRIMAL SOLUTION" in upper:
        return Execution("unbounded", None, NLDataCategory.UNBOUNDED, "the model is unbounded", log, rewrites)
    if solution is None:
        return Execution(
            "error",
            None,
            ExecutionCategory.RUNTIME,
            f"glpsol wrote no solution (exit status {rc})",
            log,
            rewrites,
        )
    status, objective = read_solution(solution)
    if status == "optimal" and objective is not None:
        return Execution("optimal", objective, None, "", log, rewrites)
    if status in ("infeasible", "unbounded"):
        return Execution(status, None, NLDataCategory(status), f"the model is {status}", log, rewrites)
    if refusal := _REFUSAL.search(log):
        reason = f"glpsol refused to solve: {refusal.group()}"
        return Execution("error", None, ExecutionCategory.RUNTIME, reason, log, rewrites)
    return Execution(
        "error",
        None,
        ExecutionCategory.RUNTIME,
        f"glpsol stopped with solution status {status}",
        log,
        rewrites,
    )


def glpsol_argv(glpsol: str, solution: str, time_limit_s: int | None = None) -> list[str]:
    """glpsol on the two files in the working directory, its solution written to ``solution``: a
    path in a directory of its own, which nothing the model names can reach."""
    argv = [glpsol, "--math", MODEL_FILE, "-d", DATA_FILE, "-w", solution, "--mipgap", "0"]
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
    prepared = prepare(model, data)
    with (
        tempfile.TemporaryDirectory(prefix="optbench-nldata-") as tmp,
        tempfile.TemporaryDirectory(prefix="optbench-glpsol-") as private,
    ):
        work = Path(tmp)
        (work / MODEL_FILE).write_text(prepared.model, encoding="utf-8")
        (work / DATA_FILE).write_text(prepared.data, encoding="utf-8")
        solution_path = Path(private) / "solution.txt"
        proc = subprocess.run(
            glpsol_argv(exe, str(solution_path)), cwd=work, capture_output=True, text=True, timeout=120,
            check=False,
        )  # fmt: skip
        solution = solution_path.read_text(encoding="utf-8") if solution_path.is_file() else None
    return interpret(
        proc.returncode, proc.stdout + proc.stderr, solution, prepared.model, prepared.data, prepared.rewrites
    )


JOBS_FILE = "jobs.json"
#: Bytes of glpsol's LP translation returned from a ``check`` job (for EF1 by role, ``roles.py``),
#: and characters of a log (ten times as many for a check job, which holds the data's display).
LP_LIMIT = 2_000_000
LOG_LIMIT = 20_000

#: The script the sandbox runs: glpsol on each (model, data) pair listed in ``jobs.json`` (a
#: ``check`` job only translates, for the held-out data's display and the LP translation EF1 reads),
#: each solution written into a fresh private directory, everything glpsol produced reported as JSON.
#: Kept as a template file, resources/glpsol_runner.py.tmpl.
SANDBOX_SCRIPT = resource_text(__name__, "glpsol_runner.py.tmpl").format(
    result_prefix=RESULT_PREFIX, jobs_file=JOBS_FILE, lp_limit=LP_LIMIT, log_limit=LOG_LIMIT
)
