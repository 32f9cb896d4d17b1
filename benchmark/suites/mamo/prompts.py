"""The prompts: the k-shot task prompt (paper Sec. 4.1.1, Figs. 17-18) and the code-modifier prompt
(App. D and R, Figs. 19-20), in our own words.

The task prompt asks for exactly the artifact the scorer runs: a Python program that prints only
y(t0) for ODE questions, a CPLEX-format ``.lp`` file for optimization questions. The modifier prompt
carries only the artifact and the error message, never the question, so the modifier can repair
the format but has nothing to re-model from (the paper's point of the design).
"""

from __future__ import annotations

from benchmark.messages import Message
from benchmark.suites.mamo.dataset import MamoCase
from benchmark.suites.mamo.examples import LP_EXAMPLES, ODE_EXAMPLES, Example

DEFAULT_SHOTS = 3
MAX_SHOTS = min(len(ODE_EXAMPLES), len(LP_EXAMPLES))

_ODE_TASK = """\
You model real-world situations with ordinary differential equations. Read the question, set up \
the differential equation(s) with their initial conditions, and write a Python program that solves \
them numerically (for example with scipy.integrate.solve_ivp at tight tolerances) and prints only \
the requested value y(t0): a single number, with no words or units. Reply with the program alone \
in one ```python block."""

_LP_TASK = """\
You model real-world decision problems as linear or mixed-integer linear programs. Read the \
question and write the model as a file in CPLEX LP format (sections Maximize or Minimize, Subject \
To, optionally Bounds, Generals, Binaries, and End; variables are non-negative unless bounded \
otherwise; every constraint keeps variables on the left and a constant on the right). A solver \
will read the file and its optimal value is your answer. Reply with the file alone in one ```lp \
block."""

_ODE_FIX = """\
The Python program below fails when it runs. Fix only what stops it from running correctly \
(syntax, imports, library usage, output format) and keep the mathematics exactly as it is: the \
same equations, parameter values, initial conditions and final time. The fixed program must print \
only one number. Reply with the corrected program alone in one ```python block.

Program:
```python
{artifact}
```

Error message:
```
{error}
```"""

_LP_FIX = """\
The CPLEX LP file below could not be read or solved. Fix only its format (syntax, section names, \
constraints written with variables on the left and a constant on the right, bounds and variable \
declarations) and keep the model exactly as it is: the same objective, constraints and \
coefficients. Reply with the corrected file alone in one ```lp block.

LP file:
```lp
{artifact}
```

Error message:
```
{error}
```"""


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
