# Each target creates the environment first when it is missing (scripts/setup.sh is idempotent).
PY := .venv/bin/python
N ?= 2

.PHONY: setup bench test lint

setup:
	bash scripts/setup.sh

## The main job: the benchmark on the built-in oracle model (must score 100%).
bench: setup
	$(PY) -m pytest --model=oracle -n $(N)

## The harness's own tests.
test: setup
	$(PY) -m pytest tests -n $(N)

lint: setup
	$(PY) -m ruff check . && $(PY) -m ruff format --check .
