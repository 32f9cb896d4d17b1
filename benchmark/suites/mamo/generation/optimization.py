"""LP/MILP constructs: easy (a few variables, high-school level) and complex (indexed families of
variables: transportation, assignment, planning, location, budgeting, flows, blending, staffing).

Each construct draws data, builds a :class:`LinearModel` from it and writes a question that gives
every number in words or a short table and asks for the optimal value, without naming the model
class (Property 4). Integer data and integer (or totally unimodular) models give whole-number
optima, which the question then asks for as a whole number.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from benchmark.resources import text_fragments
from benchmark.suites.mamo.generation import complex_lp
from benchmark.suites.mamo.generation.linear_model import LinearModel
from benchmark.suites.mamo.generation.lp_problem import OptProblem, capital, listing, table
from benchmark.suites.mamo.generation.text import num

_QUESTIONS = text_fragments(__name__, "optimization_questions.toml")

# ----------------------------------------------------------------------------- easy


def product_mix(rng: random.Random) -> OptProblem:
    domain, unit, items, resources = rng.choice(
        [
            (
                "manufacturing",
                "dollars",
                ("chairs", "tables"),
                ("hours of carpentry", "square metres of plywood", "hours of finishing"),
            ),
            (
                "business",
                "dollars",
                ("loaves of bread", "trays of pastries"),
                ("kg of flour", "hours of oven time", "kg of butter"),
            ),
            (
                "daily_life",
                "dollars",
                ("bracelets", "necklaces"),
                ("metres of cord", "hours of work", "packs of beads"),
            ),
            (
                "environment",
                "kg of carbon captured",
                ("oak saplings", "pine saplings"),
                ("square metres of nursery bed", "litres of water per day", "hours of planting"),
            ),
        ]
    )
    used = rng.randint(2, 3)
    a = [[rng.randint(1, 9) for _ in items] for _ in range(used)]
    capacity = [rng.randint(40, 300) for _ in range(used)]
    value = [rng.randint(3, 60) for _ in items]
    model = LinearModel("Maximize", {f"x{i + 1}": value[i] for i in range(2)})
    for i in range(2):
        model.add_variable(f"x{i + 1}", integer=True)
    for r in range(used):
        model.add_constraint(f"r{r + 1}", {f"x{i + 1}": a[r][i] for i in range(2)}, "<=", capacity[r])
    needs = listing([f"{a[r][0]} {resources[r]}" for r in range(used)])
    needs2 = listing([f"{a[r][1]} {resources[r]}" for r in range(used)])
    limits = listing([f"{capacity[r]} {resources[r]}" for r in range(used)])
    question = _QUESTIONS["product_mix"].format(
        item_a=items[0],
        item_b=items[1],
        needs_a=needs,
        needs_b=needs2,
        limits=limits,
        value_a=value[0],
        unit=unit,
        value_b=value[1],
    )
    return OptProblem("product_mix", domain, question, model, {"a": a, "capacity": capacity, "value": value})


def two_ingredient_blend(rng: random.Random) -> OptProblem:
    domain, what, goods, nutrients = rng.choice(
        [
            (
                "daily_life",
                "a daily meal for a dog",
                ("kibble", "canned food"),
                ("grams of protein", "grams of fat", "mg of calcium"),
            ),
            (
                "environment",
                "a fertilizer for a community garden bed",
                ("compost", "bone meal"),
                ("grams of nitrogen", "grams of phosphorus", "grams of potassium"),
            ),
            (
                "business",
                "a feed ration for a dairy cow",
                ("hay", "grain"),
                ("units of energy", "kg of protein", "grams of fibre"),
            ),
            (
                "natural_science",
                "a culture medium for a lab experiment",
                ("broth A", "broth B"),
                ("mg of glucose", "mg of nitrogen", "mg of phosphate"),
            ),
        ]
    )
    used = rng.randint(2, 3)
    content = [[rng.randint(1, 20) for _ in goods] for _ in range(used)]
    need = [rng.randint(30, 200) for _ in range(used)]
    cost = [round(rng.uniform(0.1, 3.0), 2) for _ in goods]
    model = LinearModel("Minimize", {"a": cost[0], "b": cost[1]})
    model.add_variable("a")
    model.add_variable("b")
    for r in range(used):
        model.add_constraint(f"n{r + 1}", {"a": content[r][0], "b": content[r][1]}, ">=", need[r])
    question = _QUESTIONS["two_ingredient_blend"].format(
        what=what,
        good_a=goods[0],
        good_b=goods[1],
        cost_a=num(cost[0]),
        content_a=listing([f"{content[r][0]} {nutrients[r]}" for r in range(used)]),
        cost_b=num(cost[1]),
        content_b=listing([f"{content[r][1]} {nutrients[r]}" for r in range(used)]),
        need=listing([f"{need[r]} {nutrients[r]}" for r in range(used)]),
    )
    return OptProblem(
        "two_ingredient_blend", domain, question, model, {"content": content, "need": need, "cost": cost}
    )


def covering(rng: random.Random) -> OptProblem:
    domain, template = rng.choice(
        [
            (
                "daily_life",
                (
                    "A school is hiring buses for a trip of {need} people. A large bus seats "
                    "{s1} and costs {c1} dollars; a minibus seats {s2} and costs {c2} dollars. "
                    "Only {d} drivers are available, one per vehicle. What is the lowest total "
                    "cost of vehicles that seat everyone, in dollars?"
                ),
            ),
            (
                "business",
                (
                    "A call centre must staff at least {need} calls per hour. A full-time agent "
                    "handles {s1} calls per hour and costs {c1} dollars per hour; a part-time "
                    "agent handles {s2} calls per hour and costs {c2} dollars per hour. At most "
                    "{d} desks are available, one agent per desk. What is the lowest hourly staffing "
                    "cost, in dollars?"
                ),
            ),
            (
                "manufacturing",
                (
                    "A plant must move at least {need} tonnes of gravel per shift. A large truck "
                    "carries {s1} tonnes per shift and costs {c1} dollars to run, a small truck "
                    "{s2} tonnes and {c2} dollars. The yard has parking for {d} trucks. What "
                    "is the lowest cost per shift, in dollars?"
                ),
            ),
        ]
    )
    s1, s2 = rng.randint(20, 60), rng.randint(5, 19)
    c1, c2 = rng.randint(3, 10) * s1 // 2, rng.randint(3, 10) * s2 // 2 + rng.randint(1, 20)
    need = rng.randint(100, 600)
    d = need // s1 + rng.randint(2, 8)
    model = LinearModel("Minimize", {"large": c1, "small": c2})
    model.add_variable("large", integer=True)
    model.add_variable("small", integer=True)
    model.add_constraint("capacity", {"large": s1, "small": s2}, ">=", need)
    model.add_constraint("slots", {"large": 1, "small": 1}, "<=", d)
    question = template.format(need=need, s1=s1, s2=s2, c1=c1, c2=c2, d=d)
    return OptProblem(
        "covering", domain, question, model, {"need": need, "sizes": [s1, s2], "costs": [c1, c2], "slots": d}
    )


def portfolio(rng: random.Random) -> OptProblem:
    budget = rng.randint(10, 200) * 1000
    safe_rate, risky_rate = round(rng.uniform(1.5, 4.5), 1), round(rng.uniform(5, 12), 1)
    minimum_safe = rng.randint(1, 4) * budget // 10
    ratio = rng.choice((1, 1.5, 2, 3))
    cap_risky = rng.randint(4, 8) * budget // 10
    model = LinearModel("Maximize", {"safe": safe_rate / 100, "risky": risky_rate / 100})
    model.add_variable("safe")
    model.add_variable("risky")
    model.add_constraint("budget", {"safe": 1, "risky": 1}, "<=", budget)
    model.add_constraint("minimum_safe", {"safe": 1}, ">=", minimum_safe)
    model.add_constraint("ratio", {"risky": 1, "safe": -ratio}, "<=", 0)
    model.add_constraint("cap", {"risky": 1}, "<=", cap_risky)
    question = _QUESTIONS["portfolio"].format(
        budget=budget,
        safe_rate=num(safe_rate),
        risky_rate=num(risky_rate),
        minimum_safe=minimum_safe,
        ratio=num(ratio),
        cap_risky=cap_risky,
    )
    return OptProblem("portfolio", "business", question, model, {"budget": budget, "ratio": ratio})


def power_dispatch(rng: random.Random) -> OptProblem:
    demand = rng.randint(200, 900)
    cost = [rng.randint(20, 60), rng.randint(40, 110)]
    emission = [round(rng.uniform(0.6, 1.1), 2), round(rng.uniform(0.05, 0.4), 2)]
    cap = [rng.randint(demand // 3, demand), rng.randint(demand // 3, demand)]
    if cap[0] + cap[1] < demand:
        cap[1] = demand - cap[0] + rng.randint(10, 100)
    limit = round(rng.uniform(emission[1], emission[0]) * demand)
    model = LinearModel("Minimize", {"coal": cost[0], "gas": cost[1]})
    model.add_variable("coal", upper=cap[0])
    model.add_variable("gas", upper=cap[1])
    model.add_constraint("demand", {"coal": 1, "gas": 1}, ">=", demand)
    model.add_constraint("emissions", {"coal": emission[0], "gas": emission[1]}, "<=", limit)
    question = _QUESTIONS["power_dispatch"].format(
        demand=demand,
        coal_cost=cost[0],
        coal_emission=num(emission[0]),
        coal_cap=cap[0],
        gas_cost=cost[1],
        gas_emission=num(emission[1]),
        gas_cap=cap[1],
        limit=limit,
    )
    return OptProblem("power_dispatch", "environment", question, model, {"demand": demand})


# ----------------------------------------------------------------------------- complex


def _greedy_shipping(supply: list[int], demand: list[int], cost: list[list[int | None]]) -> float:
    """The cheapest-route-first heuristic a hurried planner would use (not optimal in general)."""
    left, need, total = list(supply), list(demand), 0.0
    cells = sorted((c, i, j) for i, row in enumerate(cost) for j, c in enumerate(row) if c is not None)
    for c, i, j in cells:
        amount = min(left[i], need[j])
        left[i] -= amount
        need[j] -= amount
        total += amount * c
    return total if not any(need) else math.inf


def transportation(rng: random.Random) -> OptProblem:
    """Sources to sinks over the routes that exist; the cheapest-route-first plan must not be optimal."""
    domain, source, sink, good = rng.choice(
        [
            ("business", "warehouse", "store", "crates"),
            ("environment", "reservoir", "town", "megalitres of water"),
            ("manufacturing", "factory", "distribution centre", "pallets"),
        ]
    )
    m, n = rng.randint(3, 5), rng.randint(4, 7)
    demand = [rng.randint(20, 120) for _ in range(n)]
    supply = [rng.randint(30, 150) for _ in range(m)]
    while sum(supply) < sum(demand) + 20:
        supply[rng.randrange(m)] += 20
    cost: list[list[int | None]] = [
        [rng.randint(2, 30) if rng.random() > 0.15 else None for _ in range(n)] for _ in range(m)
    ]
    sources = [f"{capital(source)} {chr(65 + i)}" for i in range(m)]
    sinks = [f"{sink} {j + 1}" for j in range(n)]
    route_cost = {(i, j): c for i, row in enumerate(cost) for j, c in enumerate(row) if c is not None}
    routes = list(route_cost)
    model = LinearModel("Minimize", {f"x_{i}_{j}": c for (i, j), c in route_cost.items()})
    for i, j in routes:
        model.add_variable(f"x_{i}_{j}")
    for i in range(m):
        model.add_constraint(
            f"supply_{i}", {f"x_{i}_{j}": 1 for j in range(n) if (i, j) in routes}, "<=", supply[i]
        )
    for j in range(n):
        model.add_constraint(
            f"demand_{j}", {f"x_{i}_{j}": 1 for i in range(m) if (i, j) in routes}, ">=", demand[j]
        )
    rows = "\n".join(
        f"- {sources[i]}: "
        + ", ".join(f"{sinks[j]} = {'no route' if cost[i][j] is None else cost[i][j]}" for j in range(n))
        for i in range(m)
    )
    question = _QUESTIONS["transportation"].format(
        good=good,
        m=m,
        source=source,
        n=n,
        sink=sink,
        sources=listing(sources),
        supply=listing([str(v) for v in supply]),
        sinks=listing([capital(v) for v in sinks]),
        demand=listing([str(d) for d in demand]),
        rows=rows,
    )
    return OptProblem(
        "transportation",
        domain,
        question,
        model,
        {"m": m, "n": n, "supply": supply, "demand": demand, "cost": cost},
        naive={"cheapest_route_first": _greedy_shipping(supply, demand, cost)},
        needs=("route_restrictions",),
    )


def assignment(rng: random.Random) -> OptProblem:
    """Tasks to agents with limited hours each: not a square assignment, so integrality matters."""
    domain, agents, tasks, measure = rng.choice(
        [
            ("business", "consultant", "client project", "hours"),
            ("manufacturing", "machine", "job", "minutes"),
            ("daily_life", "flatmate", "weekly chore", "minutes"),
        ]
    )
    m, n = rng.randint(3, 4), rng.randint(6, 9)
    time = [[rng.randint(5, 60) for _ in range(n)] for _ in range(m)]
    cost = [[rng.randint(10, 90) for _ in range(n)] for _ in range(m)]
    limit = [round(sum(time[i]) / m * rng.uniform(0.9, 1.4)) for i in range(m)]
    rows = [f"{agents} {i + 1}" for i in range(m)]
    columns = [f"{tasks} {chr(65 + j)}" for j in range(n)]
    model = LinearModel("Minimize", {f"a_{i}_{j}": cost[i][j] for i in range(m) for j in range(n)})
    for i in range(m):
        for j in range(n):
            model.add_variable(f"a_{i}_{j}", upper=1, integer=True)
    for i in range(m):
        model.add_constraint(f"agent_{i}", {f"a_{i}_{j}": time[i][j] for j in range(n)}, "<=", limit[i])
    for j in range(n):
        model.add_constraint(f"task_{j}", {f"a_{i}_{j}": 1 for i in range(m)}, "=", 1)
    unit = "dollars"
    question = _QUESTIONS["assignment"].format(
        n=n,
        tasks=tasks,
        m=m,
        agents=agents,
        measure=measure,
        limits=listing([f"{limit[i]} for {rows[i]}" for i in range(m)]),
        time_table=table([capital(r) for r in rows], columns, time),
        unit=unit,
        cost_table=table([capital(r) for r in rows], columns, cost),
    )
    parameters = {"m": m, "n": n, "time": time, "cost": cost, "limit": limit}
    return OptProblem(
        "assignment", domain, question, model, parameters, needs=("capacity_per_agent", "binary_decisions")
    )


def production_planning(rng: random.Random) -> OptProblem:
    periods = rng.randint(5, 9)
    demand = [rng.randint(50, 300) for _ in range(periods)]
    capacity = [rng.randint(100, 300) for _ in range(periods)]
    while sum(capacity) < sum(demand) + 20:
        capacity[rng.randrange(periods)] += 40
    cost = [round(rng.uniform(5, 20), 2) for _ in range(periods)]
    holding = round(rng.uniform(0.5, 3), 2)
    model = LinearModel("Minimize", {})
    for t in range(periods):
        model.add_variable(f"make_{t}", upper=capacity[t])
        model.add_variable(f"stock_{t}")
        model.objective[f"make_{t}"] = cost[t]
        model.objective[f"stock_{t}"] = holding
    for t in range(periods):
        terms = {f"make_{t}": 1.0, f"stock_{t}": -1.0}
        if t > 0:
            terms[f"stock_{t - 1}"] = 1.0
        model.add_constraint(f"balance_{t}", terms, "=", demand[t])
    domain, item, period = rng.choice(
        [
            ("manufacturing", "bicycles", "month"),
            ("business", "gift boxes", "week"),
            ("environment", "tonnes of recycled pellets", "quarter"),
        ]
    )
    rows = "\n".join(
        f"- {period} {t + 1}: demand {demand[t]}, capacity {capacity[t]}, cost {num(cost[t])} "
        "dollars per unit"
        for t in range(periods)
    )
    fits = all(d <= c for d, c in zip(demand, capacity, strict=True))
    lot_for_lot = sum(d * c for d, c in zip(demand, cost, strict=True)) if fits else math.inf
    question = _QUESTIONS["production_planning"].format(
        item=item, periods=periods, period=period, holding=num(holding), rows=rows
    )
    return OptProblem(
        "production_planning",
        domain,
        question,
        model,
        {"periods": periods, "demand": demand, "capacity": capacity, "cost": cost, "holding": holding},
        naive={"make_to_order": lot_for_lot},
        needs=("multi_period",),
    )


def facility_location(rng: random.Random) -> OptProblem:
    sites, customers = rng.randint(4, 5), rng.randint(6, 8)
    fixed = [rng.randint(5, 30) * 100 for _ in range(sites)]
    capacity = [rng.randint(80, 200) for _ in range(sites)]
    demand = [rng.randint(20, 70) for _ in range(customers)]
    while sum(capacity) < sum(demand) + 30:
        capacity[rng.randrange(sites)] += 40
    cost = [[rng.randint(1, 15) for _ in range(customers)] for _ in range(sites)]
    model = LinearModel("Minimize", {})
    for i in range(sites):
        model.add_variable(f"open_{i}", upper=1, integer=True)
        model.objective[f"open_{i}"] = fixed[i]
        for j in range(customers):
            model.add_variable(f"ship_{i}_{j}")
            model.objective[f"ship_{i}_{j}"] = cost[i][j]
    for j in range(customers):
        model.add_constraint(f"demand_{j}", {f"ship_{i}_{j}": 1 for i in range(sites)}, ">=", demand[j])
    for i in range(sites):
        terms = {f"ship_{i}_{j}": 1.0 for j in range(customers)}
        terms[f"open_{i}"] = -capacity[i]
        model.add_constraint(f"capacity_{i}", terms, "<=", 0)
    domain, site, customer = rng.choice(
        [
            ("business", "depot", "supermarket"),
            ("environment", "recycling hub", "district"),
            ("manufacturing", "assembly plant", "dealer"),
        ]
    )
    names = [f"{site} {chr(65 + i)}" for i in range(sites)]
    clients = [f"{customer} {j + 1}" for j in range(customers)]
    question = _QUESTIONS["facility_location"].format(
        sites=sites,
        site=site,
        opening_costs=listing([f"{fixed[i]} dollars for {names[i]}" for i in range(sites)]),
        capacities=listing([str(c) for c in capacity]),
        capital_listing=capital(listing([f"{clients[j]} needs {demand[j]} units" for j in range(customers)])),
        cost_table=table([capital(n) for n in names], clients, cost),
    )
    parameters = {"sites": sites, "fixed": fixed, "capacity": capacity, "demand": demand, "cost": cost}
    return OptProblem(
        "facility_location", domain, question, model, parameters, needs=("fixed_charge", "big_m")
    )


def capital_budgeting(rng: random.Random) -> OptProblem:
    n = rng.randint(8, 12)
    value = [rng.randint(10, 90) for _ in range(n)]
    money = [rng.randint(5, 40) for _ in range(n)]
    staff = [rng.randint(1, 8) for _ in range(n)]
    budget, people = sum(money) * rng.randint(35, 60) // 100, sum(staff) * rng.randint(35, 60) // 100
    model = LinearModel("Maximize", {f"p{i + 1}": value[i] for i in range(n)})
    for i in range(n):
        model.add_variable(f"p{i + 1}", upper=1, integer=True)
    model.add_constraint("budget", {f"p{i + 1}": money[i] for i in range(n)}, "<=", budget)
    model.add_constraint("staff", {f"p{i + 1}": staff[i] for i in range(n)}, "<=", people)
    a, b = rng.sample(range(n), 2)
    model.add_constraint("exclusive", {f"p{a + 1}": 1, f"p{b + 1}": 1}, "<=", 1)
    c, d = rng.sample([i for i in range(n) if i not in (a, b)], 2)
    model.add_constraint("depends", {f"p{c + 1}": 1, f"p{d + 1}": -1}, "<=", 0)
    domain, who, unit = rng.choice(
        [
            ("business", "company", "thousand dollars of net present value"),
            ("environment", "conservation trust", "hectares of habitat protected"),
            ("natural_science", "research institute", "points of expected scientific impact"),
        ]
    )
    rows = "\n".join(
        f"- project {i + 1}: value {value[i]}, cost {money[i]} thousand dollars, {staff[i]} staff"
        for i in range(n)
    )
    question = _QUESTIONS["capital_budgeting"].format(
        who=who,
        n=n,
        unit=unit,
        rows=rows,
        budget=budget,
        people=people,
        clash_a=a + 1,
        clash_b=b + 1,
        follower=c + 1,
        prerequisite=d + 1,
    )
    parameters = {
        "n": n,
        "value": value,
        "budget": budget,
        "people": people,
        "exclusive": [a + 1, b + 1],
        "depends": [c + 1, d + 1],
    }
    return OptProblem(
        "capital_budgeting", domain, question, model, parameters, needs=("logical_links", "binary_decisions")
    )


def max_flow(rng: random.Random) -> OptProblem:
    """A dense network (8-9 points, many links) whose bottleneck is inside, not at the source or sink."""
    inner = rng.randint(6, 7)
    nodes = ["S", *[chr(65 + i) for i in range(inner)], "T"]
    arcs: dict[tuple[str, str], int] = {}
    for node in nodes[1:-1]:
        arcs[("S", node)] = rng.randint(15, 60) if rng.random() < 0.6 else 0
        arcs[(node, "T")] = rng.randint(15, 60) if rng.random() < 0.6 else 0
    for x in nodes[1:-1]:
        for y in nodes[1:-1]:
            if x < y and rng.random() < 0.7:
                arcs[(x, y) if rng.random() < 0.5 else (y, x)] = rng.randint(3, 25)
    arcs = {k: v for k, v in arcs.items() if v > 0}
    model = LinearModel("Maximize", {f"f_{a}_{b}": 1 for (a, b) in arcs if a == "S"})
    for (a, b), cap in arcs.items():
        model.add_variable(f"f_{a}_{b}", upper=cap)
    for node in nodes[1:-1]:
        terms: dict[str, float] = {}
        for a, b in arcs:
            if b == node:
                terms[f"f_{a}_{b}"] = 1.0
            if a == node:
                terms[f"f_{a}_{b}"] = -1.0
        if terms:
            model.add_constraint(f"balance_{node}", terms, "=", 0)
    domain, what, unit, source, sink = rng.choice(
        [
            (
                "environment",
                "a stormwater network",
                "cubic metres per minute",
                "the upstream basin S",
                "the treatment plant T",
            ),
            (
                "daily_life",
                "a city's road network during a festival",
                "cars per minute",
                "the stadium car park S",
                "the motorway T",
            ),
            (
                "manufacturing",
                "a plant's conveyor system",
                "boxes per hour",
                "the packing line S",
                "the loading dock T",
            ),
        ]
    )
    links = "\n".join(f"- from {a} to {b}: at most {cap}" for (a, b), cap in arcs.items())
    question = _QUESTIONS["max_flow"].format(
        what=what, source=source, junctions=listing(nodes[1:-1]), sink=sink, unit=unit, links=links
    )
    out_of_source = sum(c for (a, _), c in arcs.items() if a == "S")
    into_sink = sum(c for (_, b), c in arcs.items() if b == "T")
    return OptProblem(
        "max_flow",
        domain,
        question,
        model,
        {"arcs": [[a, b, c] for (a, b), c in arcs.items()]},
        naive={"source_capacity": out_of_source, "sink_capacity": into_sink},
        needs=("flow_balance",),
    )


def blending(rng: random.Random) -> OptProblem:
    k = rng.randint(4, 7)
    domain, product, inputs, properties = rng.choice(
        [
            ("manufacturing", "a bronze alloy", "scrap lots", ("tin content (%)", "lead content (%)")),
            ("natural_science", "a buffer solution", "stock solutions", ("salt concentration (g/L)", "pH")),
            ("business", "a coffee blend", "bean lots", ("acidity score", "bitterness score")),
        ]
    )
    quality = [[round(rng.uniform(1, 20), 1) for _ in range(k)] for _ in properties]
    cost = [round(rng.uniform(1, 15), 2) for _ in range(k)]
    total = rng.randint(50, 500)
    bounds = []
    for p in range(len(properties)):
        low, high = min(quality[p]), max(quality[p])
        lo = round(rng.uniform(low, (low + high) / 2), 1)
        bounds.append((lo, round(rng.uniform(lo + 0.5, high), 1)))
    model = LinearModel("Minimize", {f"w{i + 1}": cost[i] for i in range(k)})
    for i in range(k):
        model.add_variable(f"w{i + 1}")
    model.add_constraint("total", {f"w{i + 1}": 1 for i in range(k)}, "=", total)
    share = rng.choice((35, 40, 50, 60))
    stock = [rng.randint(total // 5, total) for _ in range(k)]
    for i in range(k):
        model.add_constraint(f"stock_{i}", {f"w{i + 1}": 1}, "<=", stock[i])
        model.add_constraint(f"share_{i}", {f"w{i + 1}": 1}, "<=", share * total / 100)
    unchecked = LinearModel("Minimize", dict(model.objective), list(model.variables), list(model.constraints))
    for p, (lo, hi) in enumerate(bounds):
        model.add_constraint(f"min_{p}", {f"w{i + 1}": quality[p][i] - lo for i in range(k)}, ">=", 0)
        model.add_constraint(f"max_{p}", {f"w{i + 1}": quality[p][i] - hi for i in range(k)}, "<=", 0)
    rows = "\n".join(
        f"- lot {i + 1}: {stock[i]} kg in stock, {num(cost[i])} dollars per kg, "
        + ", ".join(f"{properties[p]} {num(quality[p][i])}" for p in range(len(properties)))
        for i in range(k)
    )
    limits = listing(
        [f"{properties[p]} between {num(lo)} and {num(hi)}" for p, (lo, hi) in enumerate(bounds)]
    )
    question = _QUESTIONS["blending"].format(
        total=total, product=product, k=k, inputs=inputs, rows=rows, limits=limits, share=share
    )
    parameters = {
        "k": k,
        "total": total,
        "cost": cost,
        "quality": quality,
        "bounds": bounds,
        "share": share,
        "stock": stock,
    }
    return OptProblem(
        "blending",
        domain,
        question,
        model,
        parameters,
        naive={"quality_ignored": unchecked},
        needs=("ratio_constraints",),
    )


def shift_scheduling(rng: random.Random) -> OptProblem:
    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    need = [rng.randint(3, 25) for _ in days]
    length = rng.choice((4, 5))
    model = LinearModel("Minimize", {f"start_{d}": 1 for d in range(7)})
    for d in range(7):
        model.add_variable(f"start_{d}", integer=True)
    for d in range(7):
        model.add_constraint(f"cover_{d}", {f"start_{(d - s) % 7}": 1 for s in range(length)}, ">=", need[d])
    domain, staff = rng.choice(
        [
            ("business", "cashiers"),
            ("natural_science", "lab technicians"),
            ("daily_life", "volunteers at a food bank"),
            ("environment", "park rangers"),
        ]
    )
    question = _QUESTIONS["shift_scheduling"].format(
        staff=staff, length=length, needs=listing([f"{need[d]} on {days[d]}" for d in range(7)])
    )
    return OptProblem(
        "shift_scheduling",
        domain,
        question,
        model,
        {"need": need, "length": length},
        needs=("cyclic_cover", "integer_decisions"),
    )


CONSTRUCTS: dict[str, tuple[Callable[[random.Random], OptProblem], ...]] = {
    "easy_lp": (product_mix, two_ingredient_blend, covering, portfolio, power_dispatch),
    "complex_lp": (
        transportation,
        assignment,
        production_planning,
        facility_location,
        capital_budgeting,
        max_flow,
        blending,
        shift_scheduling,
        complex_lp.delivery_tour,
        complex_lp.shared_network,
        complex_lp.truck_rebalancing,
        complex_lp.setup_production,
        complex_lp.job_sequencing,
        complex_lp.quantity_discount,
        complex_lp.backlog_planning,
        complex_lp.station_cover,
    ),
}
