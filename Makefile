# Each target creates the environment first when it is missing (scripts/setup.sh is idempotent).
PY := .venv/bin/python
N ?= 2

.PHONY: setup setup-real-server bench test test-fast test-real-server lint

setup:
	bash scripts/setup.sh

## The main job: the benchmark on the built-in oracle model (must score 100%), every suite, and the
## validation stack on every MM-OptBench package (the oracle run has replayed each solver_ref.py; the
## tests regenerate and re-render a sample of every subcategory).
VALIDATE_SKIP := --skip reference_solve --skip solver_ref --skip regeneration --skip visuals
bench: setup
	$(PY) -m pytest --model=oracle -n $(N)
	$(PY) -m pytest --suite=mamo --model=oracle -n $(N)
	$(PY) -m pytest --suite=nldata --model=oracle -n $(N)
	$(PY) -m pytest --suite=tbmath --model=oracle -n $(N)
	$(PY) -m benchmark validate --processes $(N) $(VALIDATE_SKIP)

## The harness's own tests (the real-server test needs an optional install: see test-real-server).
test: setup
	$(PY) -m pytest tests -n $(N) -m "not real_server"

## The same without the tests marked slow (whole benchmark sessions in a subprocess).
test-fast: setup
	$(PY) -m pytest tests -n $(N) -m "not real_server and not slow"

setup-real-server:
	bash scripts/setup.sh --real-server

## The openai adapter against a real llama.cpp server on loopback (a failure, not a skip, if absent).
test-real-server: setup-real-server
	OPTBENCH_REQUIRE_REAL_SERVER=1 $(PY) -m pytest tests/test_real_server.py -m real_server -p no:cacheprovider

lint: setup
	$(PY) -m ruff check . && $(PY) -m ruff format --check . && $(PY) -m mypy benchmark adapters
