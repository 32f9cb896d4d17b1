"""The shared task-text helper: prose wrapped at one width, the contract kept verbatim."""

from __future__ import annotations

from benchmark.suites.mmopt.generation.task_text import (
    FEASIBILITY_PREAMBLE,
    SOLVE_PREAMBLE,
    WIDTH,
    output_contract,
    task_text,
)


def test_prose_is_wrapped_and_the_contract_is_verbatim():
    prose = " ".join(f"word{i}" for i in range(60))
    contract = output_contract(
        '- "status": "optimal";\n- "tour": a list, for example ["A", "B", "A"] ' + "x" * 120 + "\n"
    )
    text = task_text("Title (family)", prose, "Task: short.", contract=contract)
    title, wrapped, task, rest = text.split("\n\n")
    assert title == "Title (family)" and task == "Task: short."
    assert wrapped.replace("\n", " ") == prose
    assert len(wrapped.splitlines()) > 1 and max(len(line) for line in wrapped.splitlines()) <= WIDTH
    assert rest == contract and max(len(line) for line in rest.splitlines()) > WIDTH  # not re-wrapped


def test_contract_names_solve_and_the_model_kind():
    optimum = output_contract('- "status": "optimal";\n')
    decision = output_contract('- "status": "feasible";\n', feasibility=True)
    assert optimum == SOLVE_PREAMBLE + '- "status": "optimal";\n'
    assert decision.startswith(FEASIBILITY_PREAMBLE) and "(feasibility) model" in decision
    for preamble in (SOLVE_PREAMBLE, FEASIBILITY_PREAMBLE):
        assert "solve()" in preamble and preamble.endswith("returns a dict with the keys:\n")
