"""``--max-cost``: every request reserves its worst-case cost before it is sent.

Checking what was spent before each request is not enough: requests in flight have no cost yet,
so with 32 of them in flight a run can pass its cap many times over before the first one answers.
So each request first reserves what it could cost at most (its prompt's upper token estimate at the
input price, the output-token limit at the output price) and is sent only when what the session
spent plus what is reserved plus this reservation stays within the cap; when the request is over,
its cost is in the ledger and the reservation is released.

Reservations live in ``budget.jsonl`` in the run folder, beside the request ledger, so every xdist
worker sees every other's: a reservation is read, decided and appended under one ``flock`` of the
file. A request refused for the cap is a line too, so the run can say that the cap stopped it. The
cap can still be passed by a request that costs more than its estimate (a prompt with more tokens
than the bound allows); the end of the run says so.
"""

from __future__ import annotations

import fcntl
import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from adapters.base import AdapterError, CompletionRequest
from benchmark.ledger import LEDGER_FILE, RequestLedger
from benchmark.prompt_size import PromptSize

__all__ = ["BUDGET_FILE", "Budget", "BudgetState", "budget_lines", "worst_case_usd"]

BUDGET_FILE = "budget.jsonl"


def worst_case_usd(request: CompletionRequest, described: Mapping[str, object]) -> float | None:
    """The most ``request`` can cost at the model's prices (None when it has none): the prompt's
    upper token estimate and the output-token limit it is sent with."""
    input_price, output_price = described.get("input_price_per_mtok"), described.get("output_price_per_mtok")
    if not isinstance(input_price, int | float) or not isinstance(output_price, int | float):
        return None
    output_tokens = request.decoding.max_tokens
    cap = described.get("max_output_tokens")
    if isinstance(cap, int):
        output_tokens = min(output_tokens, cap)
    input_tokens = PromptSize.of(request.messages).most_tokens()
    return (input_tokens * input_price + output_tokens * output_price) / 1e6


@dataclass(frozen=True)
class BudgetState:
    """This session's reservations: held now, requests refused for the cap."""

    held_usd: float = 0.0
    refused: int = 0


class Budget:
    """The reservations of one session against ``cap_usd``; spend is read from ``ledger``."""

    def __init__(self, path: Path, ledger: RequestLedger, cap_usd: float) -> None:
        self.path = path
        self.ledger = ledger
        self.cap_usd = cap_usd

    def reserve(self, request: CompletionRequest, estimate_usd: float) -> str:
        """Reserve ``estimate_usd`` for ``request`` and return the reservation's id, or raise
        ``budget_exhausted`` when the cap cannot cover it on top of what is spent and held."""
        with self._locked() as fd:
            state = self._read(fd)
            spent = self.ledger.spend().cost_usd
            if spent + state.held_usd + estimate_usd > self.cap_usd:
                self._append(fd, {"refused": request.case_key, "estimate_usd": estimate_usd})
                raise AdapterError(
                    f"budget exhausted: this session spent ${spent:.4f} of --max-cost ${self.cap_usd:g} "
                    f"and requests in flight hold ${state.held_usd:.4f}; case {request.case_key} could "
                    f"cost up to ${estimate_usd:.4f}, so it was not sent",
                    kind="budget_exhausted",
                )
            reservation = uuid.uuid4().hex
            self._append(fd, {"reserve": reservation, "usd": estimate_usd, "case": request.case_key})
            return reservation

    def release(self, reservation: str) -> None:
        """The request is over and its cost (if any) is in the ledger."""
        with self._locked() as fd:
            self._append(fd, {"release": reservation})

    def state(self) -> BudgetState:
        if not self.path.exists():
            return BudgetState()
        with self._locked() as fd:
            return self._read(fd)

    def _locked(self) -> _LockedFile:
        return _LockedFile(self.path)

    def _read(self, fd: int) -> BudgetState:
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        held: dict[str, float] = {}
        refused = 0
        for raw in b"".join(chunks).splitlines():
            try:
                entry = json.loads(raw)
            except json.JSONDecodeError:
                continue
            if not isinstance(entry, dict) or entry.get("session") != self.ledger.session:
                continue
            if "reserve" in entry:
                held[str(entry["reserve"])] = float(entry.get("usd") or 0.0)
            elif "release" in entry:
                held.pop(str(entry["release"]), None)
            elif "refused" in entry:
                refused += 1
        return BudgetState(held_usd=sum(held.values()), refused=refused)

    def _append(self, fd: int, entry: dict[str, object]) -> None:
        line = json.dumps({"session": self.ledger.session, **entry}, sort_keys=True) + "\n"
        os.write(fd, line.encode("utf-8"))


class _LockedFile:
    """The budget file opened for reading and appending under an exclusive ``flock``: the read,
    the decision and the append of a reservation are one step for every process and thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self.fd

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def budget_lines(run_root: Path, session: str, cap_usd: float | None) -> tuple[str, ...]:
    """What the end of a run says about its cap: that it stopped requests, that it was passed."""
    if cap_usd is None:
        return ()
    ledger = RequestLedger(run_root / LEDGER_FILE, session)
    spent = ledger.spend().cost_usd
    state = Budget(run_root / BUDGET_FILE, ledger, cap_usd).state()
    lines = []
    if state.refused:
        lines.append(
            f"--max-cost ${cap_usd:g} stopped the run: {state.refused} request(s) not sent (spent "
            f"${spent:.4f}); their cases are api_error (budget exhausted) and --resume sends them"
        )
    if spent > cap_usd:
        lines.append(
            f"--max-cost ${cap_usd:g} was passed: this session spent ${spent:.4f} (a request cost more "
            "than its reserved worst case)"
        )
    return tuple(lines)
