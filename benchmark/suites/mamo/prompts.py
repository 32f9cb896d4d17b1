"""The prompts: the k-shot task prompt (paper Sec. 4.1.1, Figs. 17-18) and the code-modifier prompt
(App. D and R, Figs. 19-20), in our own words (the text is in ``resources/prompts.toml``).

The task prompt asks for exactly the artifact the scorer runs: a Python program that prints only
y(t0) for ODE questions, a CPLEX-format ``.lp`` file for optimization questions. The modifier prompt
carries only the artifact and the error message, never the question, so the modifier can repair
the format but has nothing to re-model from (the paper's point of the design).
"""

from __future__ import annotations

from benchmark.messages import Message
from benchmark.resources import text_fragments
from benchmark.suites.mamo.dataset import MamoCase
from benchmark.suites.mamo.examples import LP_EXAMPLES, ODE_EXAMPLES, Example

DEFAULT_SHOTS = 3
MAX_SHOTS = min(len(ODE_EXAMPLES), len(LP_EXAMPLES))

_PROMPTS = text_fragments(__name__, "prompts.toml")
_ODE_TASK = _PROMPTS["ode_task"]
_LP_TASK = _PROMPTS["lp_task"]
_ODE_FIX = _PROMPTS["ode_fix"]
_LP_FIX = _PROMPTS["lp_fix"]


def _block(example: Example, ode: bool) -> str:
    language = "python" if ode else "lp"
    return f"Question:\n{example.question}\n\nAnswer:\n```{language}\n{example.answer}\n```"


def task_messages(case: MamoCase, shots: int = DEFAULT_SHOTS) -> list[Message]:
    """One user message: instructions, ``shots`` worked examples, then the question."""
    if not 0 <= shots <= MAX_SHOTS:
        raise ValueError(f"shots must be between 0 and {MAX_SHOTS}, got {shots}")
    examples = (ODE_EXAMPLES if case.is_ode else LP_EXAMPLES)[:shots]
    parts = [_ODE_TASK if case.is_ode else _LP_TASK]
    if examples:
        parts.append("Examples:\n\n" + "\n\n".join(_block(e, case.is_ode) for e in examples))
    parts.append(f"Question:\n{case.question}\n\nAnswer:")
    return [Message.text("user", "\n\n".join(parts))]


def fenced(artifact: str, *, ode: bool) -> str:
    """An artifact as a reply in the contract (the oracle's answer)."""
    return f"```{'python' if ode else 'lp'}\n{artifact.rstrip()}\n```\n"


def modifier_messages(artifact: str, error: str, *, ode: bool) -> list[Message]:
    """The modifier's prompt: the failing artifact and its error message, nothing else."""
    template = _ODE_FIX if ode else _LP_FIX
    return [Message.text("user", template.format(artifact=artifact.rstrip(), error=error.strip()))]
