"""The messages a model receives for one NLData2Opt task, and the reply contract.

Our own wording (the paper's prompts are not reused): the description, the data tables in CSV style
(``nl``: none, the numbers are in the text), and the request for two fenced blocks, ``mod`` (the AMPL
model file) and ``dat`` (the AMPL data file), so that model and data stay separate as in §4.1.
"""

from __future__ import annotations

from benchmark.messages import Message
from benchmark.suites.nldata.dataset import Task

SYSTEM = (
    "You are an expert in mathematical optimization and the AMPL modelling language. You turn problem "
    "statements into a correct AMPL model file and a matching AMPL data file."
)
CONTRACT = (
    "Write the optimization model in AMPL. Reply with exactly two fenced code blocks: first the model "
    "file in a block opened with ```mod, declaring every set, parameter, variable, the objective and "
    "the constraints, with no data values in it; then the data file in a block opened with ```dat, "
    "assigning every set and parameter the model declares. Do not include solve, option or display "
    "commands."
)


def task_messages(task: Task) -> list[Message]:
    parts = [f"Problem description:\n{task.description}"]
    if task.tables:
        parts.append("Data tables:\n\n" + "\n\n".join(table.render() for table in task.tables))
    parts.append(CONTRACT)
    return [Message.text("system", SYSTEM), Message.text("user", "\n\n".join(parts))]


def fenced(model: str, data: str) -> str:
    """A reply in the contract's format (what the oracle answers with)."""
    return f"```mod\n{model.rstrip()}\n```\n\n```dat\n{data.rstrip()}\n```\n"
