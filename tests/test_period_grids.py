"""The shared reader of returned ``row → period → number`` tables (unit commitment, lot sizing,
inventory routing): every spelling models use is read, every bad cell is named."""

from __future__ import annotations

from benchmark.suites.mmopt.generation.period_grids import read_grid, resolve_label

ROWS = ["P1", "P2"]
PERIODS = ["t1", "t2"]


def test_names_in_any_case_bare_numbers_and_list_rows_are_read() -> None:
    grid, problems = read_grid(
        {"p1": {"T1": 1, 2: "2.5"}, 2: [3, 4.0]}, ROWS, PERIODS, "production", "product", "P"
    )
    assert problems == []
    assert grid == {"P1": {"t1": 1.0, "t2": 2.5}, "P2": {"t1": 3.0, "t2": 4.0}}


def test_every_bad_cell_is_named_with_the_table_and_the_row_kind() -> None:
    grid, problems = read_grid(
        {"P1": {"t1": "x", "t9": 1}, "Q": {}, "P2": 7}, ROWS, PERIODS, "setup", "product", "P"
    )
    assert problems == [
        "setup[P1][t1] = 'x' is not a number",
        "setup[P1]: unknown period 't9'",
        "setup: unknown product 'Q'",
        "setup[P2] is not a dict of periods",
        "setup[P1][t1] is missing",
        "setup[P1][t2] is missing",
        "setup[P2][t1] is missing",
        "setup[P2][t2] is missing",
    ]
    assert grid == {"P1": {}}


def test_a_table_that_is_not_a_mapping_is_one_problem() -> None:
    assert read_grid([1, 2], ROWS, PERIODS, "deliveries", "customer", "C") == (
        {},
        ["deliveries is not a dict of customers"],
    )


def test_resolve_label_prefixes_bare_numbers_only() -> None:
    names = {"g3": "G3", "3": "3x"}
    assert resolve_label(" 3 ", names, "G") == "G3"
    assert resolve_label("g3", names, "G") == "G3"
    assert resolve_label("G4", names, "G") is None
