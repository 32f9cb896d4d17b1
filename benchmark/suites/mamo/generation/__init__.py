"""Generating our own Mamo cases (paper App. N): a mathematical construct with random parameters,
its answer computed exactly or to high accuracy and cross-checked by a second method, then a
real-world scenario that asks for the answer at a stated precision (Properties 1-4).

``python -m benchmark.suites.mamo.generation`` writes ``fixtures/mamo/``; ``--check`` regenerates
into a temporary folder and compares byte for byte.
"""
