"""ODE constructs: first-order equations, second-order equations and systems.

Each construct draws parameters, describes a real situation in words (the equation is never named
or written out as a formula; Property 4) and knows its right-hand side as Python source, which is
both what the reference program integrates and what :func:`solve` checks. Where a closed form exists
it gives the answer and the numerical solution must agree with it; otherwise the answer comes from
Radau (implicit, stiff-capable) at tight tolerances, cross-checked by DOP853 (explicit, order 8).
The reference program integrates with DOP853 at rtol 1e-10, which every construct here allows.
"""

from __future__ import annotations

import cmath
import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import expm

from benchmark.suites.mamo.generation.text import num

#: Numerical and closed-form values must agree to this relative accuracy (absolute below 1).
AGREEMENT = 1e-7


#: What a question needs beyond transcribing given rates; each case lists its own (``needs``).
NEEDS = (
    "inferred_parameter",  # a rate or constant fixed by a measurement, a half-life, a stretch
    "unit_conversion",  # data in mixed units (feet and inches, minutes and hours, litres and m^3)
    "piecewise_input",  # an input that switches at a stated time (a valve closed, a force removed)
    "event_time",  # the answer is the time a state reaches a level, not a state at a time
    "more_than_two_states",  # a system of three or more coupled quantities
    "distractor",  # a stated number the model does not use (declared in ``distractors``)
)


@dataclass(frozen=True)
class OdeProblem:
    """One question: its right-hand side as source, and what the answer is read from.

    The answer is ``scale`` times component ``component`` at ``t_end``; with ``event`` set it is
    instead the first time that component reaches the level ``event`` (``t_end`` is then only a
    horizon). ``breakpoints`` are the times where a piecewise input switches: integration restarts
    there, so no step straddles a jump.
    """

    construct: str
    domain: str
    question: str
    rhs: str
    initial: tuple[float, ...]
    t_end: float
    component: int
    exact: float | None
    parameters: dict[str, Any] = field(default_factory=dict)
    breakpoints: tuple[float, ...] = ()
    event: float | None = None
    scale: float = 1.0
    needs: tuple[str, ...] = ()
    distractors: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.event is not None and self.breakpoints:
            raise ValueError("an event question with a piecewise input is not supported")
        if unknown := set(self.needs) - set(NEEDS):
            raise ValueError(f"unknown needs {sorted(unknown)}")

    @property
    def method(self) -> str:
        return "closed form" if self.exact is not None else "numerical"

    @property
    def segments(self) -> list[tuple[float, float]]:
        times = [0.0, *self.breakpoints, self.t_end]
        return list(itertools.pairwise(times))


class Rejected(Exception):
    """The drawn parameters give no acceptable case; the caller draws again."""


def rhs_function(source: str) -> Callable[[float, Any], list[float]]:
    namespace: dict[str, Any] = {"math": math}
    body = "\n".join(f"    {line}" for line in source.splitlines())
    exec(f"def rhs(t, u):\n{body}\n", namespace)  # our own generated source, never model output
    return namespace["rhs"]  # type: ignore[no-any-return]


_SOLVER_OPTIONS = 'method="DOP853", rtol=1e-10, atol=1e-12'


def reference_program(problem: OdeProblem) -> str:
    """The reference artifact: the model a correct answer writes, integrated at tight tolerances."""
    body = "\n".join(f"    {line}" for line in problem.rhs.splitlines())
    header = "import math\n\n" if "math." in problem.rhs else ""
    program = f"{header}from scipy.integrate import solve_ivp\n\n\ndef rhs(t, u):\n{body}\n\n\n"
    factor = "" if problem.scale == 1.0 else f"{problem.scale!r} * "
    if problem.event is not None:
        return program + (
            f"def reaches(t, u):\n    return u[{problem.component}] - {problem.event!r}\n\n\n"
            "reaches.terminal = True\n"
            f"solution = solve_ivp(rhs, (0.0, {problem.t_end!r}), {list(problem.initial)!r}, "
            f"{_SOLVER_OPTIONS}, events=reaches)\n"
            "print(solution.t_events[0][0])\n"
        )
    if problem.breakpoints:
        segments = ", ".join(f"({a!r}, {b!r})" for a, b in problem.segments)
        return program + (
            f"state = {list(problem.initial)!r}\n"
            f"for start, stop in ({segments}):\n"
            f"    solution = solve_ivp(rhs, (start, stop), state, {_SOLVER_OPTIONS})\n"
            "    state = list(solution.y[:, -1])\n"
            f"print({factor}state[{problem.component}])\n"
        )
    return program + (
        f"solution = solve_ivp(rhs, (0.0, {problem.t_end!r}), {list(problem.initial)!r}, "
        f"{_SOLVER_OPTIONS})\n"
        f"print({factor}solution.y[{problem.component}, -1])\n"
    )


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= AGREEMENT * max(1.0, abs(a))


def _integrate(problem: OdeProblem, method: str, rtol: float) -> float:
    rhs = rhs_function(problem.rhs)
    if problem.event is not None:
        level, component = problem.event, problem.component

        def reaches(t: float, u: Any) -> float:
            return float(u[component] - level)

        reaches.terminal = True  # type: ignore[attr-defined]
        sol = solve_ivp(
            rhs,
            (0.0, problem.t_end),
            list(problem.initial),
            method=method,
            rtol=rtol,
            atol=1e-12,
            events=reaches,
        )
        if not sol.success or not len(sol.t_events[0]):
            raise Rejected(f"{method}: the level is not reached before the horizon")
        return float(sol.t_events[0][0])
    state = list(problem.initial)
    for start, stop in problem.segments:
        sol = solve_ivp(rhs, (start, stop), state, method=method, rtol=rtol, atol=1e-12)
        if not sol.success:
            raise Rejected(f"{method} failed: {sol.message}")
        state = list(sol.y[:, -1])
    value = problem.scale * float(state[problem.component])
    if not math.isfinite(value):
        raise Rejected(f"{method} gave a non-finite value")
    return value


def solve(problem: OdeProblem) -> tuple[float, dict[str, float]]:
    """(answer, the value each method found); :class:`Rejected` when two methods disagree.

    With a closed form, the closed form is the answer and DOP853 at rtol 1e-12 must reproduce it.
    Without one, Radau (implicit, stiff-capable) at rtol 1e-10 gives the answer and DOP853 must
    agree with it.
    """
    values = {"DOP853": _integrate(problem, "DOP853", 1e-12)}
    if problem.exact is not None:
        values["closed_form"] = problem.exact
    else:
        values["Radau"] = _integrate(problem, "Radau", 1e-10)
    answer = values.get("closed_form", values.get("Radau", 0.0))
    if not math.isfinite(answer) or not _close(answer, values["DOP853"]):
        raise Rejected(f"methods disagree: {values}")
    return answer, values


def _pick(rng: random.Random, scenarios: list[tuple[str, str]], **fields: Any) -> tuple[str, str]:
    domain, template = rng.choice(scenarios)
    return domain, template.format(
        **{k: num(v) if isinstance(v, float | int) else v for k, v in fields.items()}
    )


def _u(rng: random.Random, low: float, high: float, places: int) -> float:
    return round(rng.uniform(low, high), places)


# ----------------------------------------------------------------------------- first order


def exponential(rng: random.Random) -> OdeProblem:
    growth = rng.random() < 0.5
    k, y0, t = _u(rng, 0.05, 0.45, 3), float(rng.randint(2, 90)), float(rng.randint(2, 12))
    scenarios = (
        [
            (
                "natural_science",
                (
                    "A bacterial culture starts with {y0} million cells and grows at a rate proportional "
                    "to its size, the rate being {k} times the current population per hour. How "
                    "many million cells are there after {t} hours?"
                ),
            ),
            (
                "business",
                (
                    "A start-up has {y0} thousand registered users, and new users arrive at a "
                    "rate proportional to the current number of users, {k} per user per month. "
                    "How many thousand users are there after {t} months?"
                ),
            ),
            (
                "daily_life",
                (
                    "A patch of mould on forgotten bread covers {y0} square millimetres and spreads "
                    "at a rate of {k} square millimetres per day for every square millimetre "
                    "already covered. What area does it cover after {t} days, in square millimetres?"
                ),
            ),
        ]
        if growth
        else [
            (
                "natural_science",
                (
                    "A sample holds {y0} grams of a radioactive isotope, which decays at a rate "
                    "proportional to the amount present: {k} grams per day for each gram. How "
                    "many grams remain after {t} days?"
                ),
            ),
            (
                "environment",
                (
                    "A pond contains {y0} kg of a pesticide that breaks down at a rate proportional "
                    "to the amount left, namely {k} kg per week for each kg present. How many "
                    "kg remain after {t} weeks?"
                ),
            ),
            (
                "business",
                (
                    "The stock of an outdated phone model in a shop's warehouse is {y0} units; "
                    "customers buy it at a rate of {k} units per week for each unit still in "
                    "stock. How many units remain after {t} weeks (treat the stock as a continuous "
                    "quantity)?"
                ),
            ),
        ]
    )
    rate = k if growth else -k
    domain, question = _pick(rng, scenarios, y0=y0, k=k, t=t)
    return OdeProblem(
        "exponential",
        domain,
        question,
        f"return [{rate!r} * u[0]]",
        (y0,),
        t,
        0,
        y0 * math.exp(rate * t),
        {"k": rate, "y0": y0},
    )


def cooling(rng: random.Random) -> OdeProblem:
    ambient, start = float(rng.randint(15, 25)), float(rng.randint(60, 98))
    k, t = _u(rng, 0.02, 0.15, 3), float(rng.randint(5, 40))
    manufacturing = rng.random() < 0.3
    if manufacturing:
        ambient, start = float(rng.randint(18, 30)), float(rng.randint(400, 900))
    scenarios = (
        [
            (
                "manufacturing",
                (
                    "A forged steel bracket leaves the press at {start} degrees Celsius and cools "
                    "in a workshop kept at {ambient} degrees Celsius. Its temperature falls at "
                    "a rate equal to {k} per minute times the difference between its temperature "
                    "and the workshop's. What is its temperature after {t} minutes, in degrees "
                    "Celsius?"
                ),
            )
        ]
        if manufacturing
        else [
            (
                "daily_life",
                (
                    "A bowl of soup at {start} degrees Celsius is left on a kitchen table in "
                    "a room at {ambient} degrees Celsius. The soup's temperature changes at a "
                    "rate proportional to the difference between its temperature and the room's, "
                    "with a proportionality constant of {k} per minute. What is the soup's temperature "
                    "after {t} minutes, in degrees Celsius?"
                ),
            ),
            (
                "natural_science",
                (
                    "In a lab, a beaker of water at {start} degrees Celsius is placed in a water "
                    "bath held at {ambient} degrees Celsius. The beaker's temperature approaches "
                    "the bath's at a rate of {k} per minute times their temperature difference. "
                    "What is the beaker's temperature after {t} minutes, in degrees Celsius?"
                ),
            ),
        ]
    )
    domain, question = _pick(rng, scenarios, start=start, ambient=ambient, k=k, t=t)
    exact = ambient + (start - ambient) * math.exp(-k * t)
    return OdeProblem(
        "cooling",
        domain,
        question,
        f"return [-{k!r} * (u[0] - {ambient!r})]",
        (start,),
        t,
        0,
        exact,
        {"k": k, "ambient": ambient},
    )


def logistic(rng: random.Random) -> OdeProblem:
    capacity = float(rng.randint(5, 80) * 100)
    p0 = float(rng.randint(2, int(capacity // 10)))
    r, t = _u(rng, 0.1, 0.8, 2), float(rng.randint(3, 15))
    scenarios = [
        (
            "environment",
            (
                "A lake can support at most {K} trout. It is stocked with {p0} trout, and "
                "the population grows at a rate proportional both to its size and to the "
                "fraction of the lake's capacity still unused, with an intrinsic growth rate "
                "of {r} per year. How many trout are in the lake after {t} years?"
            ),
        ),
        (
            "business",
            (
                "A new messaging app targets a market of {K} potential users in a town. It "
                "starts with {p0} users, and adoption grows at a rate proportional to the "
                "number of users times the share of the market not yet using it, with proportionality "
                "constant {r} per month. How many users does it have after {t} months?"
            ),
        ),
        (
            "daily_life",
            (
                "A rumour spreads through a boarding school of {K} students. Initially {p0} "
                "students have heard it. It spreads at a rate proportional to the number "
                "who know it times the fraction who do not, with constant {r} per day. How "
                "many students know it after {t} days?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, K=capacity, p0=p0, r=r, t=t)
    exact = capacity / (1 + (capacity / p0 - 1) * math.exp(-r * t))
    rhs = f"return [{r!r} * u[0] * (1 - u[0] / {capacity!r})]"
    return OdeProblem("logistic", domain, question, rhs, (p0,), t, 0, exact, {"r": r, "K": capacity})


def mixing(rng: random.Random) -> OdeProblem:
    volume, flow = float(rng.randint(2, 40) * 100), float(rng.randint(2, 30))
    inflow_concentration, q0, t = (
        _u(rng, 0.0, 0.5, 2),
        float(rng.randint(0, 200)),
        float(rng.randint(10, 120)),
    )
    scenarios = [
        (
            "environment",
            (
                "A retention pond holds {V} cubic metres of water containing {q0} kg of a "
                "dissolved pollutant. Runoff carrying {c} kg of pollutant per cubic metre "
                "flows in at {r} cubic metres per hour, and the well-mixed water flows out "
                "at the same rate. How many kg of pollutant are in the pond after {t} hours?"
            ),
        ),
        (
            "manufacturing",
            (
                "A {V}-litre mixing tank in a pickle factory contains {q0} kg of dissolved "
                "salt. Brine with {c} kg of salt per litre is pumped in at {r} litres per "
                "minute, and the well-stirred mixture is drawn off at the same rate. How "
                "many kg of salt are in the tank after {t} minutes?"
            ),
        ),
        (
            "daily_life",
            (
                "A {V}-litre hot tub contains {q0} grams of dissolved chlorine. Fresh water "
                "with {c} grams of chlorine per litre enters at {r} litres per minute and "
                "the well-mixed water drains at the same rate. How many grams of chlorine "
                "are in the tub after {t} minutes?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, V=volume, q0=q0, c=inflow_concentration, r=flow, t=t)
    equilibrium = inflow_concentration * volume
    exact = equilibrium + (q0 - equilibrium) * math.exp(-flow * t / volume)
    rhs = f"return [{inflow_concentration * flow!r} - {flow!r} * u[0] / {volume!r}]"
    if abs(q0 - equilibrium) < 1:
        raise Rejected("starts at equilibrium")
    return OdeProblem(
        "mixing",
        domain,
        question,
        rhs,
        (q0,),
        t,
        0,
        exact,
        {"V": volume, "r": flow, "c": inflow_concentration},
    )


def linear_source(rng: random.Random) -> OdeProblem:
    kind = rng.randrange(3)
    if kind == 0:
        emf, resistance, capacitance = (
            float(rng.choice([6, 9, 12, 24])),
            float(rng.randint(1, 20) * 100),
            _u(rng, 0.001, 0.01, 4),
        )
        v0, t = float(rng.randint(0, 3)), _u(rng, 0.2, 3 * resistance * capacitance, 2)
        question = (
            f"A {num(capacitance)} farad capacitor, initially charged to {num(v0)} volts, "
            f"is connected in series with a {num(resistance)} ohm resistor to a {num(emf)} "
            "volt battery at time zero. What is the voltage across the capacitor after "
            f"{num(t)} seconds, in volts?"
        )
        b = 1 / (resistance * capacitance)
        a, y0, domain = emf * b, v0, "natural_science"
        data = {"emf": emf, "R": resistance, "C": capacitance}
    elif kind == 1:
        a, b, y0, t = (
            float(rng.randint(20, 200)),
            _u(rng, 0.05, 0.5, 3),
            float(rng.randint(0, 100)),
            float(rng.randint(1, 24)),
        )
        question = (
            f"A patient receives a drug through an intravenous drip at {num(a)} mg per "
            "hour. The body removes the drug at a rate proportional to the amount present, "
            f"{num(b)} per hour. If {num(y0)} mg are in the body when the drip starts, "
            f"how many mg are in the body after {num(t)} hours?"
        )
        domain = "natural_science"
        data = {}
    else:
        a, b, y0, t = (
            float(rng.randint(50, 400)),
            _u(rng, 0.02, 0.3, 3),
            float(rng.randint(100, 3000)),
            float(rng.randint(2, 30)),
        )
        question = (
            f"A distribution centre receives {num(a)} pallets of goods per day, arriving "
            f"continuously, and ships out each day a fraction {num(b)} of the pallets "
            f"it holds, also continuously. It holds {num(y0)} pallets now. How many pallets "
            f"will it hold after {num(t)} days (treat pallets as a continuous quantity)?"
        )
        domain = "business"
        data = {}
    exact = a / b + (y0 - a / b) * math.exp(-b * t)
    return OdeProblem(
        "linear_source",
        domain,
        question,
        f"return [{a!r} - {b!r} * u[0]]",
        (y0,),
        t,
        0,
        exact,
        {"a": a, "b": b, **data},
    )


def draining(rng: random.Random) -> OdeProblem:
    h0, k = float(rng.randint(1, 9) * 50), _u(rng, 0.2, 1.5, 2)
    empty_at = 2 * math.sqrt(h0) / k
    t = round(rng.uniform(0.2, 0.8) * empty_at, 1)
    scenarios = [
        (
            "manufacturing",
            (
                "A cylindrical vat of cooking oil is drained through a valve at its bottom. "
                "The oil level, initially {h0} cm, drops at a rate of {k} times the square "
                "root of the current level (in cm) per minute. What is the oil level after "
                "{t} minutes, in cm?"
            ),
        ),
        (
            "daily_life",
            (
                "A rain barrel filled to a depth of {h0} cm empties through a tap at its "
                "base; the water level falls at a rate of {k} times the square root of the "
                "depth (depth in cm, rate in cm per minute). What is the depth after {t} "
                "minutes, in cm?"
            ),
        ),
        (
            "environment",
            (
                "A small reservoir behind a breached earth dam has a water depth of {h0} "
                "cm. Water escapes so that the depth decreases at a rate of {k} times the "
                "square root of the depth (cm per hour, depth in cm). What is the depth after "
                "{t} hours, in cm?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, h0=h0, k=k, t=t)
    exact = (math.sqrt(h0) - k * t / 2) ** 2
    return OdeProblem(
        "draining", domain, question, f"return [-{k!r} * math.sqrt(u[0])]", (h0,), t, 0, exact, {"k": k}
    )


def gompertz(rng: random.Random) -> OdeProblem:
    capacity, y0 = float(rng.randint(20, 200)), _u(rng, 0.5, 10, 1)
    r, t = _u(rng, 0.05, 0.4, 3), float(rng.randint(3, 20))
    scenarios = [
        (
            "natural_science",
            (
                "A tumour has a volume of {y0} cubic centimetres. Its volume grows at a rate "
                "equal to {r} per week times the volume times the natural logarithm of the "
                "ratio of a limiting volume of {K} cubic centimetres to the current volume. "
                "What is the volume after {t} weeks, in cubic centimetres?"
            ),
        ),
        (
            "business",
            (
                "Cumulative sales of a new board game stand at {y0} thousand copies. Sales "
                "grow at a rate equal to {r} per month times current cumulative sales times "
                "the natural logarithm of the ratio of the market ceiling of {K} thousand "
                "copies to current sales. What are cumulative sales after {t} months, in "
                "thousand copies?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, y0=y0, r=r, K=capacity, t=t)
    exact = capacity * math.exp(math.log(y0 / capacity) * math.exp(-r * t))
    return OdeProblem(
        "gompertz",
        domain,
        question,
        f"return [{r!r} * u[0] * math.log({capacity!r} / u[0])]",
        (y0,),
        t,
        0,
        exact,
        {"r": r, "K": capacity},
    )


def harvested_logistic(rng: random.Random) -> OdeProblem:
    capacity, r = float(rng.randint(10, 60) * 1000), _u(rng, 0.2, 0.9, 2)
    harvest = round(rng.uniform(0.2, 0.7) * r * capacity / 4)
    p0, t = float(round(rng.uniform(0.5, 0.9) * capacity)), float(rng.randint(2, 12))
    scenarios = [
        (
            "environment",
            (
                "A fishery's cod stock is {p0} tonnes. Left alone it would grow at a rate "
                "proportional to its size and to the fraction of the ecosystem's capacity "
                "of {K} tonnes still unused, with intrinsic rate {r} per year, but the fleet "
                "lands {H} tonnes per year, spread evenly over the year. What is the stock "
                "after {t} years, in tonnes?"
            ),
        ),
        (
            "environment",
            (
                "A managed forest holds {p0} cubic metres of timber. Without logging, the "
                "timber volume would grow at a rate proportional to the volume and to the "
                "fraction of the site's maximum of {K} cubic metres not yet reached, with "
                "intrinsic rate {r} per year. Logging removes {H} cubic metres per year at "
                "a steady pace. How much timber is there after {t} years, in cubic metres?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, p0=p0, K=capacity, r=r, H=harvest, t=t)
    rhs = f"return [{r!r} * u[0] * (1 - u[0] / {capacity!r}) - {float(harvest)!r}]"
    return OdeProblem(
        "harvested_logistic", domain, question, rhs, (p0,), t, 0, None, {"r": r, "K": capacity, "H": harvest}
    )


def daily_cycle(rng: random.Random) -> OdeProblem:
    mean, swing, k = float(rng.randint(5, 25)), float(rng.randint(3, 10)), _u(rng, 0.1, 0.4, 2)
    start, t = float(rng.randint(15, 22)), float(rng.randint(4, 30))
    scenarios = [
        (
            "daily_life",
            (
                "An unheated cabin is at {T0} degrees Celsius at midnight. Outside, the temperature "
                "in degrees Celsius is {m} plus {a} times the sine of (2 pi times the hours "
                "since midnight divided by 24). The cabin's temperature changes at a rate "
                "of {k} per hour times the difference between the outside temperature and "
                "its own. What is the cabin's temperature {t} hours after midnight, in degrees "
                "Celsius?"
            ),
        ),
        (
            "environment",
            (
                "The water of a shallow pond is at {T0} degrees Celsius at midnight. The "
                "air temperature in degrees Celsius is {m} plus {a} times the sine of (2 "
                "pi times the hours since midnight divided by 24), and the water temperature "
                "moves toward the air temperature at a rate of {k} per hour times their difference. "
                "What is the water temperature {t} hours after midnight, in degrees Celsius?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, T0=start, m=mean, a=swing, k=k, t=t)
    rhs = f"return [{k!r} * ({mean!r} + {swing!r} * math.sin(2 * math.pi * t / 24) - u[0])]"
    return OdeProblem("daily_cycle", domain, question, rhs, (start,), t, 0, None, {"k": k})


# ----------------------------------------------------------------------------- first order, modelling


def cooling_reading(rng: random.Random) -> OdeProblem:
    """Newton cooling whose constant the solver must infer from a second reading."""
    ambient, start = float(rng.randint(15, 25)), float(rng.randint(70, 95))
    drawn, t_reading = _u(rng, 0.02, 0.12, 3), float(rng.randint(4, 15))
    reading = round(ambient + (start - ambient) * math.exp(-drawn * t_reading), 1)
    if reading >= start - 1 or reading <= ambient + 5:
        raise Rejected("the reading says too little")
    k = -math.log((reading - ambient) / (start - ambient)) / t_reading
    thing, place = rng.choice(
        [
            ("cup of tea", "kitchen"),
            ("loaf of bread fresh from the oven", "bakery"),
            ("mug of cocoa", "staff room"),
        ]
    )
    setting = (
        f"A {thing} at {num(start)} degrees Celsius is set down in a {place} kept at {num(ambient)} "
        f"degrees Celsius. It cools at a rate proportional to the difference between its temperature "
        f"and the {place}'s, and {num(t_reading)} minutes later a thermometer reads {num(reading)} "
        "degrees Celsius."
    )
    parameters = {"k": k, "ambient": ambient, "reading": reading, "t_reading": t_reading}
    rhs = f"return [-{k!r} * (u[0] - {ambient!r})]"
    if rng.random() < 0.5:
        level = float(rng.randint(int(ambient) + 3, int(reading) - 2))
        when = -math.log((level - ambient) / (start - ambient)) / k
        asked = f"How long after it was set down does it reach {num(level)} degrees Celsius, in minutes?"
        question = f"{setting} {asked}"
        needs: tuple[str, ...] = ("inferred_parameter", "event_time")
        return OdeProblem(
            "cooling_reading",
            "daily_life",
            question,
            rhs,
            (start,),
            3 * when,
            0,
            when,
            parameters,
            event=level,
            needs=needs,
        )
    hours = rng.random() < 0.5
    if hours:
        later = rng.choice((0.75, 1.0, 1.25, 1.5, 2.0))
        t, elapsed = 60 * later, f"{num(later)} hours"
        parameters["hours"] = later
    else:
        t = float(rng.randint(int(t_reading) + 5, 90))
        elapsed = f"{num(t)} minutes"
    question = f"{setting} What is its temperature {elapsed} after it was set down, in degrees Celsius?"
    needs = ("inferred_parameter", "unit_conversion") if hours else ("inferred_parameter",)
    exact = ambient + (start - ambient) * math.exp(-k * t)
    return OdeProblem(
        "cooling_reading", "daily_life", question, rhs, (start,), t, 0, exact, parameters, needs=needs
    )


def half_life(rng: random.Random) -> OdeProblem:
    """Decay with a rate given only as a half-life, asked after a time in another unit."""
    if rng.random() < 0.5:
        domain, life_unit, ask_unit, per = "natural_science", "years", "months", 12.0
        h, amount, later = _u(rng, 1.5, 30, 1), float(rng.randint(20, 500)), float(rng.randint(6, 120))
        setting = (
            f"A sealed source holds {num(amount)} micrograms of a radioactive isotope whose half-life is "
            f"{num(h)} years. How many micrograms remain after {num(later)} months, in micrograms?"
        )
    else:
        domain, life_unit, ask_unit, per = "natural_science", "hours", "minutes", 60.0
        h, amount, later = _u(rng, 1.5, 12, 1), float(rng.randint(100, 800)), float(rng.randint(45, 600))
        setting = (
            f"A patient is given {num(amount)} mg of a drug that the body clears at a rate proportional to "
            f"the amount present; its elimination half-life is {num(h)} hours. How many mg remain "
            f"{num(later)} minutes after the dose, in mg?"
        )
    t = later / per
    k = math.log(2) / h
    exact = amount * math.exp(-k * t)
    parameters = {"half_life": h, "half_life_unit": life_unit, "later": later, "ask_unit": ask_unit, "k": k}
    return OdeProblem(
        "half_life",
        domain,
        setting,
        f"return [-{k!r} * u[0]]",
        (amount,),
        t,
        0,
        exact,
        parameters,
        needs=("inferred_parameter", "unit_conversion"),
    )


def valve_mixing(rng: random.Random) -> OdeProblem:
    """A brine inflow that is switched to fresh water at a stated time, in mixed volume units."""
    cubic, flow = float(rng.randint(2, 12)), float(rng.randint(10, 80))
    grams, salt0 = float(rng.randint(20, 200)), float(rng.randint(0, 40))
    volume = 1000 * cubic
    closed, t = float(rng.randint(20, 120)), 0.0
    t = closed + float(rng.randint(10, 120))
    source = grams * flow / 1000  # kg per minute while the brine valve is open
    decay = flow / volume
    if t <= closed:
        raise Rejected("asked before the switch")
    at_close = source / decay + (salt0 - source / decay) * math.exp(-decay * closed)
    exact = at_close * math.exp(-decay * (t - closed))
    question = (
        f"A {num(cubic)} cubic metre holding tank in a food plant contains water with {num(salt0)} kg of "
        f"salt dissolved. Brine carrying {num(grams)} grams of salt per litre is pumped in at {num(flow)} "
        "litres per minute and the well-stirred mixture leaves at the same rate, so the volume stays "
        f"constant. After {num(closed)} minutes the brine valve is closed and clean water is pumped in "
        f"instead, at the same rate. How many kg of salt are in the tank {num(t)} minutes after pumping "
        "began, in kg?"
    )
    rhs = f"inflow = {source!r} if t < {closed!r} else 0.0\nreturn [inflow - {decay!r} * u[0]]"
    parameters = {
        "cubic_metres": cubic,
        "grams_per_litre": grams,
        "flows": [["outside", "tank", flow], ["tank", "outside", flow]],
        "constant_volume": ["tank"],
    }
    return OdeProblem(
        "valve_mixing",
        "manufacturing",
        question,
        rhs,
        (salt0,),
        t,
        0,
        exact,
        parameters,
        breakpoints=(closed,),
        needs=("piecewise_input", "unit_conversion"),
    )


def draining_event(rng: random.Random) -> OdeProblem:
    """Torricelli draining with the outflow constant fixed by an early reading; asks when a level is hit."""
    h0 = _u(rng, 1.0, 4.0, 1)
    t1 = float(rng.randint(2, 10))
    h1_cm = float(round(100 * h0 * rng.uniform(0.6, 0.92)))
    k = 2 * (math.sqrt(h0) - math.sqrt(h1_cm / 100)) / t1
    level_cm = float(rng.randint(10, int(h1_cm) - 10))
    when = 2 * (math.sqrt(h0) - math.sqrt(level_cm / 100)) / k
    empty = 2 * math.sqrt(h0) / k
    question = (
        f"A water tower's tank is filled to a depth of {num(h0)} m and then drains through a pipe at its "
        "base, the depth falling at a rate proportional to the square root of the current depth. "
        f"After {num(t1)} minutes the depth is {num(h1_cm)} cm. How many minutes after draining began "
        f"is the depth down to {num(level_cm)} cm, in minutes?"
    )
    parameters = {"k": k, "h1_cm": h1_cm, "t1": t1, "level_cm": level_cm}
    return OdeProblem(
        "draining_event",
        "daily_life",
        question,
        f"return [-{k!r} * math.sqrt(max(u[0], 0.0))]",
        (h0,),
        (when + empty) / 2,
        0,
        when,
        parameters,
        event=level_cm / 100,
        needs=("inferred_parameter", "unit_conversion", "event_time"),
    )


# ----------------------------------------------------------------------------- second order


def _linear_second_order(
    m: float,
    c: float,
    k: float,
    x0: float,
    v0: float,
    t: float,
    force: complex = 0j,
    omega: float = 0.0,
    constant: float = 0.0,
) -> float:
    """x(t) for m x'' + c x' + k x = Re(force e^{i omega t}) + constant, by characteristic roots."""
    disc = cmath.sqrt(c * c - 4 * m * k)
    r1, r2 = (-c + disc) / (2 * m), (-c - disc) / (2 * m)
    if abs(r1 - r2) < 1e-3:
        raise Rejected("near-repeated characteristic root")
    amplitude = force / (k - m * omega**2 + 1j * c * omega) if force else 0j
    particular_x0 = amplitude.real + constant / k
    particular_v0 = (1j * omega * amplitude).real
    b = ((v0 - particular_v0) - r1 * (x0 - particular_x0)) / (r2 - r1)
    a = (x0 - particular_x0) - b
    value = (
        a * cmath.exp(r1 * t) + b * cmath.exp(r2 * t) + amplitude * cmath.exp(1j * omega * t) + constant / k
    )
    return value.real


def damped_spring(rng: random.Random) -> OdeProblem:
    m, k, c = _u(rng, 0.5, 20, 1), float(rng.randint(10, 400)), _u(rng, 0.2, 30, 1)
    x0, v0, t = _u(rng, -0.5, 0.5, 2), _u(rng, -2, 2, 1), _u(rng, 0.5, 4, 1)
    if x0 == 0 and v0 == 0:
        raise Rejected("at rest")
    scenarios = [
        (
            "manufacturing",
            (
                "A {m} kg motor sits on an elastic mount with stiffness {k} N/m, and a damper "
                "on the mount exerts {c} N of force per m/s of velocity against the motion. "
                "At time zero the motor is displaced {x0} m from equilibrium (positive is "
                "upward) with a velocity of {v0} m/s. What is its displacement after {t} "
                "seconds, in metres?"
            ),
        ),
        (
            "daily_life",
            (
                "A {m} kg child's toy hangs from a spring of stiffness {k} N/m and moves "
                "through air and friction that resist it with {c} N per m/s of velocity. "
                "It starts {x0} m from its resting position (positive is downward) moving "
                "at {v0} m/s. Where is it relative to its resting position after {t} seconds, "
                "in metres?"
            ),
        ),
        (
            "natural_science",
            (
                "In a physics lab a {m} kg cart is attached to a spring with constant {k} "
                "N/m and a dashpot giving a resisting force of {c} N per m/s. The cart starts "
                "{x0} m from equilibrium with velocity {v0} m/s. What is its position relative "
                "to equilibrium after {t} seconds, in metres?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, m=m, k=k, c=c, x0=x0, v0=v0, t=t)
    exact = _linear_second_order(m, c, k, x0, v0, t)
    rhs = f"x, v = u\nreturn [v, -({c!r} * v + {k!r} * x) / {m!r}]"
    return OdeProblem("damped_spring", domain, question, rhs, (x0, v0), t, 0, exact, {"m": m, "c": c, "k": k})


def forced_spring(rng: random.Random) -> OdeProblem:
    m, k, c = _u(rng, 1, 50, 1), float(rng.randint(50, 2000)), _u(rng, 1, 60, 1)
    force, omega, t = float(rng.randint(5, 200)), _u(rng, 1, 20, 1), _u(rng, 0.5, 5, 1)
    x0, v0 = _u(rng, -0.05, 0.05, 3), 0.0
    scenarios = [
        (
            "manufacturing",
            (
                "A {m} kg washing-machine drum is held by springs with a combined stiffness "
                "of {k} N/m and dampers that resist motion with {c} N per m/s. An unbalanced "
                "load pushes it with a force of {F} times the cosine of ({w} times time in "
                "seconds) newtons. The drum starts at rest {x0} m from equilibrium. What "
                "is its displacement after {t} seconds, in metres?"
            ),
        ),
        (
            "natural_science",
            (
                "A {m} kg mass on a spring of stiffness {k} N/m with viscous damping of {c} "
                "N per m/s is driven by an external force of {F} cos({w} t) newtons, with "
                "t in seconds. It starts at rest at a displacement of {x0} m. What is its "
                "displacement after {t} seconds, in metres?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, m=m, k=k, c=c, F=force, w=omega, x0=x0, t=t)
    exact = _linear_second_order(m, c, k, x0, v0, t, force=complex(force), omega=omega)
    rhs = f"x, v = u\nreturn [v, ({force!r} * math.cos({omega!r} * t) - {c!r} * v - {k!r} * x) / {m!r}]"
    return OdeProblem("forced_spring", domain, question, rhs, (x0, v0), t, 0, exact, {"m": m, "c": c, "k": k})


def rlc(rng: random.Random) -> OdeProblem:
    inductance, resistance = _u(rng, 0.1, 2, 2), float(rng.randint(2, 60))
    capacitance, emf = _u(rng, 0.001, 0.05, 3), float(rng.choice([5, 9, 12, 24, 48]))
    t = _u(rng, 0.01, 0.5, 3)
    question = (
        f"A series circuit contains a {num(inductance)} henry inductor, a {num(resistance)} "
        f"ohm resistor and a {num(capacitance)} farad capacitor. At time zero a {num(emf)} "
        "volt battery is switched in; the capacitor is uncharged and no current flows. "
        f"What is the charge on the capacitor after {num(t)} seconds, in coulombs?"
    )
    exact = _linear_second_order(inductance, resistance, 1 / capacitance, 0.0, 0.0, t, constant=emf)
    rhs = f"q, i = u\nreturn [i, ({emf!r} - {resistance!r} * i - q / {capacitance!r}) / {inductance!r}]"
    return OdeProblem(
        "rlc",
        "natural_science",
        question,
        rhs,
        (0.0, 0.0),
        t,
        0,
        exact,
        {"L": inductance, "R": resistance, "C": capacitance},
    )


def drag_flight(rng: random.Random) -> OdeProblem:
    mass, drag, height, speed = (
        _u(rng, 0.05, 5, 2),
        _u(rng, 0.01, 0.5, 2),
        float(rng.randint(0, 50)),
        float(rng.randint(5, 40)),
    )
    kappa, g = drag / mass, 9.81
    t = _u(rng, 0.3, 3, 1)
    scenarios = [
        (
            "daily_life",
            (
                "A {m} kg ball is thrown straight up at {v} m/s from a balcony {h} m above "
                "the ground. Air resistance acts against its motion with a force of {b} N "
                "per m/s of speed, and gravity is 9.81 m/s^2. What is the ball's height above "
                "the ground after {t} seconds, in metres?"
            ),
        ),
        (
            "natural_science",
            (
                "A {m} kg weather probe is launched vertically at {v} m/s from a platform "
                "{h} m high. Air drag opposes the motion with {b} newtons per m/s of velocity; "
                "take g = 9.81 m/s^2. What is its height above the ground after {t} seconds, "
                "in metres?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, m=mass, v=speed, h=height, b=drag, t=t)
    terminal = g / kappa
    exact = height - terminal * t + (speed + terminal) * (1 - math.exp(-kappa * t)) / kappa
    if exact <= 1:
        raise Rejected("lands before t0")
    rhs = f"y, v = u\nreturn [v, -9.81 - {kappa!r} * v]"
    parameters = {"kappa": kappa, "m": mass, "b": drag}
    return OdeProblem("drag_flight", domain, question, rhs, (height, speed), t, 0, exact, parameters)


def pendulum(rng: random.Random) -> OdeProblem:
    length, damping = _u(rng, 0.3, 5, 2), _u(rng, 0.0, 0.5, 2)
    theta0, t = _u(rng, 0.2, 1.2, 2), _u(rng, 0.5, 6, 1)
    scenarios = [
        (
            "daily_life",
            (
                "A playground swing has chains {L} m long and is released from rest at an "
                "angle of {a} radians from the vertical. Friction slows its angular velocity "
                "at a rate of {c} per second times the angular velocity, and gravity is 9.81 "
                "m/s^2 (do not use the small-angle approximation). What is the swing's angle "
                "from the vertical after {t} seconds, in radians?"
            ),
        ),
        (
            "manufacturing",
            (
                "A crane hook hangs on a {L} m cable and is released from rest at {a} radians "
                "from the vertical. Its angular acceleration is minus (9.81 divided by the "
                "cable length) times the sine of the angle, minus {c} per second times the "
                "angular velocity. What is the angle from the vertical after {t} seconds, "
                "in radians?"
            ),
        ),
        (
            "natural_science",
            (
                "A pendulum of length {L} m in a lab is released from rest at {a} radians. "
                "Besides gravity (9.81 m/s^2, full nonlinear motion), air resistance reduces "
                "the angular acceleration by {c} per second times the angular velocity. What "
                "is its angle after {t} seconds, in radians?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, L=length, a=theta0, c=damping, t=t)
    rhs = f"theta, omega = u\nreturn [omega, -9.81 / {length!r} * math.sin(theta) - {damping!r} * omega]"
    return OdeProblem(
        "pendulum", domain, question, rhs, (theta0, 0.0), t, 0, None, {"L": length, "c": damping}
    )


def van_der_pol(rng: random.Random) -> OdeProblem:
    mu, x0, t = _u(rng, 0.5, 8, 1), _u(rng, 0.5, 2.5, 2), _u(rng, 1, 10, 1)
    scenarios = [
        (
            "natural_science",
            (
                "The voltage x (in volts) of a valve oscillator circuit obeys this law: the "
                "rate at which its rate of change itself changes equals {mu} times (1 minus "
                "x squared) times its rate of change, minus x. The voltage starts at {x0} "
                "volts and is momentarily not changing. What is the voltage after {t} seconds, in volts?"
            ),
        ),
        (
            "manufacturing",
            (
                "The deflection x (in mm) of a self-excited machine-tool chatter model obeys: "
                "acceleration equals {mu} times (1 minus x squared) times velocity, minus "
                "x, in consistent units. The deflection starts at {x0} mm at rest. What is "
                "the deflection after {t} time units, in mm?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, mu=mu, x0=x0, t=t)
    rhs = f"x, v = u\nreturn [v, {mu!r} * (1 - x * x) * v - x]"
    return OdeProblem("van_der_pol", domain, question, rhs, (x0, 0.0), t, 0, None, {"mu": mu})


# ----------------------------------------------------------------------------- second order, modelling


def spring_from_stretch(rng: random.Random) -> OdeProblem:
    """A spring constant from a static stretch and a mass from a weight, in feet and inches."""
    weight, stretch_in = float(rng.choice((2, 4, 6, 8, 12, 16, 24, 32, 48, 64))), _u(rng, 0.5, 9, 1)
    mass, stiffness = weight / 32, weight / (stretch_in / 12)
    damping = _u(rng, 0.0, 2 * math.sqrt(mass * stiffness) * 0.6, 2)
    pulled_in, speed, t = (
        float(rng.randint(1, 8)),
        float(rng.choice((0, 0, 1, 2, -1, -2))),
        _u(rng, 0.3, 3, 2),
    )
    rest_in = float(rng.randint(8, 30))
    if rest_in in (weight, stretch_in, pulled_in, abs(speed), t, damping):
        raise Rejected("the distractor coincides with a datum")
    question = (
        f"A spring {num(rest_in)} inches long hangs from a beam. "
        f"A weight of {num(weight)} pounds stretches the spring {num(stretch_in)} inches. The weight is "
        f"pulled {num(pulled_in)} inches below its equilibrium position and released with a velocity of "
        f"{num(speed)} ft/s (positive is downward). The surrounding medium resists the motion with a force "
        f"of {num(damping)} pounds per ft/s of velocity; take g = 32 ft/s^2. Where is the weight relative to "
        f"equilibrium after {num(t)} seconds (positive below), in inches?"
    )
    exact = 12 * _linear_second_order(mass, damping, stiffness, pulled_in / 12, speed, t)
    rhs = f"x, v = u\nreturn [v, -({damping!r} * v + {stiffness!r} * x) / {mass!r}]"
    parameters = {"weight": weight, "stretch_in": stretch_in, "pulled_in": pulled_in, "g": 32}
    return OdeProblem(
        "spring_from_stretch",
        "natural_science",
        question,
        rhs,
        (pulled_in / 12, speed),
        t,
        0,
        exact,
        parameters,
        scale=12.0,
        distractors=(rest_in,),
        needs=("inferred_parameter", "unit_conversion", "distractor"),
    )


def pushed_spring(rng: random.Random) -> OdeProblem:
    """A damped mount pushed by a constant force that is removed at a stated time; asked in cm."""
    mass, stretch_cm = _u(rng, 2, 40, 1), _u(rng, 0.5, 6, 1)
    stiffness = mass * 9.81 / (stretch_cm / 100)
    damping = _u(rng, 0.05, 0.8, 2) * 2 * math.sqrt(mass * stiffness)
    damping = round(damping, 1)
    force, off, t = float(rng.randint(5, 200)), _u(rng, 0.1, 1.5, 2), 0.0
    t = round(off + rng.uniform(0.1, 2.0), 2)
    question = (
        f"A {num(mass)} kg instrument hangs from a spring, which it stretches by {num(stretch_cm)} cm "
        f"(g = 9.81 m/s^2), and a damper resists its motion with {num(damping)} N per m/s. It hangs at rest "
        f"until a technician pushes it downward with a steady force of {num(force)} N, starting at time zero "
        f"and letting go after {num(off)} seconds. How far below its resting position is it {num(t)} seconds "
        "after the push began, in cm?"
    )
    rhs = (
        f"x, v = u\npush = {force!r} if t < {off!r} else 0.0\n"
        f"return [v, (push - {damping!r} * v - {stiffness!r} * x) / {mass!r}]"
    )
    parameters = {"m": mass, "stretch_cm": stretch_cm, "g": 9.81}
    return OdeProblem(
        "pushed_spring",
        "manufacturing",
        question,
        rhs,
        (0.0, 0.0),
        t,
        0,
        None,
        parameters,
        breakpoints=(off,),
        scale=100.0,
        needs=("inferred_parameter", "piecewise_input", "unit_conversion"),
    )


# ----------------------------------------------------------------------------- systems


def _linear_system(matrix: list[list[float]], initial: tuple[float, ...], t: float, component: int) -> float:
    """The exact solution of u' = A u, u(0) = u0: the matrix exponential applied to u0."""
    return float((expm(np.array(matrix) * t) @ np.array(initial))[component])


def absorption(rng: random.Random) -> OdeProblem:
    dose, ka, ke, t = (
        float(rng.randint(50, 1000)),
        _u(rng, 0.5, 3, 2),
        _u(rng, 0.05, 0.4, 2),
        _u(rng, 0.5, 12, 1),
    )
    scenarios = [
        (
            "natural_science",
            (
                "A patient swallows a {D} mg tablet. The drug moves from the stomach into "
                "the blood at a rate of {ka} per hour times the amount still in the stomach, "
                "and the blood clears it at a rate of {ke} per hour times the amount in the "
                "blood. Initially all {D} mg are in the stomach. How many mg are in the blood "
                "after {t} hours?"
            ),
        ),
        (
            "environment",
            (
                "A spill puts {D} kg of a chemical into the soil next to a stream. It washes "
                "from the soil into the stream at {ka} per day times the amount still in "
                "the soil, and the stream carries it away at {ke} per day times the amount "
                "in the stream. Initially the stream holds none. How many kg are in the stream "
                "after {t} days?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, D=dose, ka=ka, ke=ke, t=t)
    exact = _linear_system([[-ka, 0.0], [ka, -ke]], (dose, 0.0), t, 1)
    rhs = f"stomach, blood = u\nreturn [-{ka!r} * stomach, {ka!r} * stomach - {ke!r} * blood]"
    return OdeProblem("absorption", domain, question, rhs, (dose, 0.0), t, 1, exact, {"ka": ka, "ke": ke})


def connected_tanks(rng: random.Random) -> OdeProblem:
    """Two well-mixed tanks whose stated flows balance, so both volumes really stay constant."""
    v1, v2 = float(rng.randint(2, 20) * 50), float(rng.randint(2, 20) * 50)
    fresh, back = float(rng.randint(5, 40)), float(rng.randint(1, 6))
    forward = fresh + back
    s1, s2, t = float(rng.randint(20, 300)), float(rng.randint(0, 50)), float(rng.randint(5, 90))
    flows = [["outside", "tank 1", fresh], ["tank 1", "tank 2", forward], ["tank 2", "tank 1", back]]
    flows.append(["tank 2", "outside", fresh])
    matrix = [[-forward / v1, back / v2], [forward / v1, -(back + fresh) / v2]]
    scenarios = [
        (
            "manufacturing",
            (
                "Two stirred vats hold {v1} and {v2} litres of solution with {s1} and {s2} "
                "kg of dye dissolved. Clean water enters vat 1 at {f} litres per minute; "
                "solution is pumped from vat 1 to vat 2 at {g} litres per minute, from vat "
                "2 back to vat 1 at {b} litres per minute, and drained from vat 2 at {f} "
                "litres per minute, so both volumes stay constant. How many kg of dye are "
                "in vat 2 after {t} minutes?"
            ),
        ),
        (
            "environment",
            (
                "Two connected ponds hold {v1} and {v2} cubic metres of water containing "
                "{s1} and {s2} kg of a nutrient. Clean stream water enters pond 1 at {f} "
                "cubic metres per day; water flows from pond 1 to pond 2 at {g} cubic metres "
                "per day, a pump returns {b} cubic metres per day from pond 2 to pond 1, "
                "and {f} cubic metres per day leave pond 2 downstream; both ponds are well "
                "mixed and keep their volume. How many kg of nutrient are in pond 2 after "
                "{t} days?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, v1=v1, v2=v2, s1=s1, s2=s2, f=fresh, g=forward, b=back, t=t)
    exact = _linear_system(matrix, (s1, s2), t, 1)
    rhs = (
        f"first, second = u\nreturn [-{forward!r} * first / {v1!r} + {back!r} * second / {v2!r}, "
        f"{forward!r} * first / {v1!r} - {back + fresh!r} * second / {v2!r}]"
    )
    parameters = {"matrix": matrix, "flows": flows, "constant_volume": ["tank 1", "tank 2"]}
    return OdeProblem("connected_tanks", domain, question, rhs, (s1, s2), t, 1, exact, parameters)


def predator_prey(rng: random.Random) -> OdeProblem:
    a, b = _u(rng, 0.4, 1.2, 2), _u(rng, 0.005, 0.05, 3)
    c, d = _u(rng, 0.2, 0.9, 2), _u(rng, 0.001, 0.02, 3)
    prey, predators, t = float(rng.randint(20, 120)), float(rng.randint(5, 40)), _u(rng, 1, 10, 1)
    ask_prey = rng.random() < 0.5
    which = "hares" if ask_prey else "lynx"
    scenarios = [
        (
            "environment",
            (
                "In a valley, hares grow at {a} per year in the absence of lynx, and predation "
                "removes {b} hares per year for every hare-lynx pair. Lynx decline at {c} "
                "per year without hares and gain {d} per year for every hare-lynx pair. Starting "
                "from {x0} hares and {y0} lynx, how many "
            )
            + which
            + " are there after {t} years?",
        ),
        (
            "natural_science",
            (
                "In a lab microcosm, hares (a prey protist, counted in thousands) grow at "
                "{a} per day without predators, and {b} per day are eaten for every hare-lynx "
                "pair, lynx being the predator protist, also in thousands. Lynx die at {c} "
                "per day without food and multiply by {d} per day for every pair. Starting "
                "from {x0} thousand hares and {y0} thousand lynx, how many thousand "
            )
            + which
            + " are there after {t} days?",
        ),
    ]
    domain, question = _pick(rng, scenarios, a=a, b=b, c=c, d=d, x0=prey, y0=predators, t=t)
    rhs = (
        f"prey, predators = u\nreturn [{a!r} * prey - {b!r} * prey * predators, -{c!r} "
        f"* predators + {d!r} * prey * predators]"
    )
    return OdeProblem(
        "predator_prey",
        domain,
        question,
        rhs,
        (prey, predators),
        t,
        0 if ask_prey else 1,
        None,
        {"a": a, "b": b, "c": c, "d": d},
    )


def epidemic(rng: random.Random) -> OdeProblem:
    population = float(rng.randint(5, 100) * 100)
    infected = float(rng.randint(1, 20))
    beta, gamma, t = _u(rng, 0.2, 0.9, 2), _u(rng, 0.05, 0.3, 2), float(rng.randint(5, 40))
    ask = rng.randrange(2) + 1
    what = "infected" if ask == 1 else "recovered"
    scenarios = [
        (
            "daily_life",
            (
                "A flu strain enters a town of {N} people with {i0} infected and everyone "
                "else susceptible. New infections occur at a rate of {beta} times the number "
                "of susceptible people times the number infected divided by {N}, per day, "
                "and infected people recover at {gamma} per day. How many people are "
            )
            + what
            + " after {t} days?",
        ),
        (
            "natural_science",
            (
                "A virus spreads through a colony of {N} bats, {i0} of them infected at first "
                "and none immune. Susceptible bats become infected at a rate of {beta} per "
                "day times susceptibles times infected divided by the colony size, and infected "
                "bats recover, becoming immune, at {gamma} per day. How many bats are "
            )
            + what
            + " after {t} days?",
        ),
        (
            "business",
            (
                "A referral campaign starts with {i0} active promoters in a customer base "
                "of {N}. Customers who have not heard of it become promoters at a rate of "
                "{beta} per day times the number who have not heard times the number of promoters "
                "divided by {N}, and promoters lose interest (and stay uninterested) at {gamma} "
                "per day. How many customers are "
            )
            + ("active promoters" if ask == 1 else "lapsed promoters")
            + " after {t} days?",
        ),
    ]
    domain, question = _pick(rng, scenarios, N=population, i0=infected, beta=beta, gamma=gamma, t=t)
    rhs = (
        f"s, i, r = u\nnew = {beta!r} * s * i / {population!r}\n"
        f"return [-new, new - {gamma!r} * i, {gamma!r} * i]"
    )
    return OdeProblem(
        "epidemic",
        domain,
        question,
        rhs,
        (population - infected, infected, 0.0),
        t,
        ask,
        None,
        {"beta": beta, "gamma": gamma},
    )


def competition(rng: random.Random) -> OdeProblem:
    r1, r2 = _u(rng, 0.3, 1.0, 2), _u(rng, 0.3, 1.0, 2)
    k1, k2 = float(rng.randint(2, 10) * 100), float(rng.randint(2, 10) * 100)
    a12, a21 = _u(rng, 0.2, 1.2, 2), _u(rng, 0.2, 1.2, 2)
    x0, y0, t = float(rng.randint(10, 80)), float(rng.randint(10, 80)), float(rng.randint(2, 20))
    scenarios = [
        (
            "environment",
            (
                "Red and grey squirrels share a forest. Each species grows at its own rate "
                "times its numbers times (1 minus (its numbers plus a competition factor "
                "times the other's numbers) divided by its carrying capacity). Reds: rate "
                "{r1} per year, capacity {k1}, factor {a12}. Greys: rate {r2} per year, capacity "
                "{k2}, factor {a21}. With {x0} reds and {y0} greys now, how many reds are "
                "there after {t} years?"
            ),
        ),
        (
            "business",
            (
                "Two coffee chains compete in a city. Each chain's number of outlets grows "
                "at its own rate times its outlets times (1 minus (its outlets plus a competition "
                "factor times the rival's outlets) divided by its saturation level). Chain "
                "A: rate {r1} per year, saturation {k1}, factor {a12}. Chain B: rate {r2} "
                "per year, saturation {k2}, factor {a21}. Starting with {x0} and {y0} outlets, "
                "how many outlets does chain A have after {t} years (as a continuous quantity)?"
            ),
        ),
    ]
    domain, question = _pick(rng, scenarios, r1=r1, r2=r2, k1=k1, k2=k2, a12=a12, a21=a21, x0=x0, y0=y0, t=t)
    rhs = (
        f"x, y = u\nreturn [{r1!r} * x * (1 - (x + {a12!r} * y) / {k1!r}), "
        f"{r2!r} * y * (1 - (y + {a21!r} * x) / {k2!r})]"
    )
    return OdeProblem("competition", domain, question, rhs, (x0, y0), t, 0, None, {"r1": r1, "r2": r2})


# ----------------------------------------------------------------------------- systems, modelling


def three_tanks(rng: random.Random) -> OdeProblem:
    """Three well-mixed tanks in a loop whose flows balance; volumes in m^3, flows in litres."""
    cubic = [_u(rng, 0.5, 6, 1) for _ in range(3)]
    fresh, back = float(rng.randint(20, 200)), float(rng.randint(5, 60))
    loop = fresh + back
    salt = [float(rng.randint(0, 80)) for _ in range(3)]
    if sum(salt) == 0:
        raise Rejected("no salt")
    hours = _u(rng, 0.5, 8, 1)
    v = [1000 * c for c in cubic]
    flows = [
        ["outside", "tank 1", fresh],
        ["tank 1", "tank 2", loop],
        ["tank 2", "tank 3", loop],
        ["tank 3", "tank 1", back],
        ["tank 3", "outside", fresh],
    ]
    matrix = [
        [-loop / v[0], 0.0, back / v[2]],
        [loop / v[0], -loop / v[1], 0.0],
        [0.0, loop / v[1], -loop / v[2]],
    ]
    ask = rng.randrange(3)
    depth = _u(rng, 1.2, 2.5, 2)
    question = (
        f"Three rinse tanks in a plating shop hold {num(cubic[0])}, {num(cubic[1])} and {num(cubic[2])} "
        f"cubic metres of water with {num(salt[0])}, {num(salt[1])} and {num(salt[2])} kg of a metal salt "
        f"dissolved. Clean water enters tank 1 at {num(fresh)} litres per minute. Water is pumped from "
        f"tank 1 to tank 2 and from tank 2 to tank 3, each at {num(loop)} litres per minute; from tank 3, "
        f"{num(back)} litres per minute return to tank 1 and {num(fresh)} litres per minute go to the drain. "
        f"Every tank is {num(depth)} m deep, well stirred, and keeps its volume. How many kg of salt are "
        "in tank "
        f"{ask + 1} after {num(hours)} hours, in kg?"
    )
    t = 60 * hours
    exact = _linear_system(matrix, tuple(salt), t, ask)
    rhs = (
        "a, b, c = u\n"
        f"return [-{loop!r} * a / {v[0]!r} + {back!r} * c / {v[2]!r}, "
        f"{loop!r} * a / {v[0]!r} - {loop!r} * b / {v[1]!r}, "
        f"{loop!r} * b / {v[1]!r} - {loop!r} * c / {v[2]!r}]"
    )
    parameters = {"cubic_metres": cubic, "hours": hours, "flows": flows}
    parameters["constant_volume"] = ["tank 1", "tank 2", "tank 3"]
    return OdeProblem(
        "three_tanks",
        "manufacturing",
        question,
        rhs,
        tuple(salt),
        t,
        ask,
        exact,
        parameters,
        needs=("unit_conversion", "more_than_two_states", "distractor"),
        distractors=(depth,),
    )


def latent_epidemic(rng: random.Random) -> OdeProblem:
    """An outbreak with a latent stage, rates given as average durations, asked after some weeks."""
    population = float(rng.randint(20, 200) * 100)
    exposed, infected = float(rng.randint(0, 30)), float(rng.randint(1, 20))
    beta, latency, period = _u(rng, 0.3, 1.2, 2), _u(rng, 2, 7, 1), _u(rng, 3, 10, 1)
    weeks = float(rng.randint(2, 10))
    ask = rng.choice((1, 2, 3))
    what = {
        1: "are in the latent stage (infected but not yet infectious)",
        2: "are infectious",
        3: "have recovered",
    }[ask]
    question = (
        f"A measles-like virus reaches a town of {num(population)} people, in which {num(exposed)} people "
        f"have just been infected but are not yet infectious and {num(infected)} are infectious; everyone "
        f"else is susceptible. Susceptible people are infected at a rate of {num(beta)} per day times the "
        f"number of susceptible people times the number infectious divided by {num(population)}. An infected "
        f"person stays in the latent stage for {num(latency)} days on average and then is infectious for "
        f"{num(period)} days on average before recovering with immunity (both stages end at a constant "
        f"rate). How many people {what} after {num(weeks)} weeks?"
    )
    sigma, gamma = 1 / latency, 1 / period
    rhs = (
        f"s, e, i, r = u\nnew = {beta!r} * s * i / {population!r}\n"
        f"return [-new, new - {sigma!r} * e, {sigma!r} * e - {gamma!r} * i, {gamma!r} * i]"
    )
    parameters = {"latency": latency, "period": period, "weeks": weeks}
    return OdeProblem(
        "latent_epidemic",
        "daily_life",
        question,
        rhs,
        (population - exposed - infected, exposed, infected, 0.0),
        7 * weeks,
        ask,
        None,
        parameters,
        needs=("inferred_parameter", "unit_conversion", "more_than_two_states"),
    )


def infusion_compartments(rng: random.Random) -> OdeProblem:
    """An infusion switched off at a stated time, feeding blood and tissue and eliminated to urine."""
    rate, hours_on = float(rng.randint(20, 200)), _u(rng, 0.5, 4, 1)
    k12, k21, k10 = _u(rng, 0.2, 1.5, 2), _u(rng, 0.1, 1.0, 2), _u(rng, 0.1, 0.8, 2)
    t = round(hours_on + rng.uniform(0.5, 8), 1)
    ask = rng.choice((0, 1, 2))
    what = {0: "in the blood", 1: "in the tissue", 2: "excreted in total"}[ask]
    question = (
        f"A drug is infused into a patient's blood at {num(rate)} mg per hour, starting at time zero with "
        f"none in the body, and the drip is stopped after {num(hours_on)} hours. The drug moves from blood "
        f"to tissue at {num(k12)} per hour times the amount in the blood and back at {num(k21)} per hour "
        f"times the amount in the tissue, and the kidneys excrete it at {num(k10)} per hour times the amount "
        f"in the blood. How many mg of the drug are {what} {num(t)} hours after the drip started, in mg?"
    )
    rhs = (
        f"blood, tissue, excreted = u\ndrip = {rate!r} if t < {hours_on!r} else 0.0\n"
        f"return [drip - ({k12!r} + {k10!r}) * blood + {k21!r} * tissue, "
        f"{k12!r} * blood - {k21!r} * tissue, {k10!r} * blood]"
    )
    return OdeProblem(
        "infusion_compartments",
        "natural_science",
        question,
        rhs,
        (0.0, 0.0, 0.0),
        t,
        ask,
        None,
        {},
        breakpoints=(hours_on,),
        needs=("piecewise_input", "more_than_two_states"),
    )


CONSTRUCTS: dict[str, tuple[Callable[[random.Random], OdeProblem], ...]] = {
    "first_order_equation": (
        exponential,
        cooling,
        logistic,
        mixing,
        linear_source,
        draining,
        gompertz,
        harvested_logistic,
        daily_cycle,
        cooling_reading,
        half_life,
        valve_mixing,
        draining_event,
    ),
    "second_order_equation": (
        damped_spring,
        forced_spring,
        rlc,
        drag_flight,
        pendulum,
        van_der_pol,
        spring_from_stretch,
        pushed_spring,
    ),
    "system_equation": (
        absorption,
        connected_tanks,
        predator_prey,
        epidemic,
        competition,
        three_tanks,
        latent_epidemic,
        infusion_compartments,
    ),
}
