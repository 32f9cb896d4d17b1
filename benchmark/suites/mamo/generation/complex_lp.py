"""Complex LP/MILP constructs at the public Complex_LP level: structures a naive model gets wrong.

Each construct states a situation the way the public set does (a paragraph of context, the data in a
list or table, the question last) and builds a model whose key structure is not spelled out: a tour
needs subtour elimination, a fixed charge or an either-or choice needs a big-M link, a quantity
discount needs tiers filled in order, shared link capacities couple commodities, a backlog carries
unmet demand forward, whole truckloads make a rebalancing integral, a coverage radius turns a time
table into a covering matrix. ``naive`` names the model a careless reading would write; the builder
keeps only draws where that model (and, with integers, the LP relaxation) answers differently.
"""

from __future__ import annotations

import itertools
import math
import random

from benchmark.resources import text_fragments
from benchmark.suites.mamo.generation.linear_model import LinearModel
from benchmark.suites.mamo.generation.lp_problem import OptProblem, capital, listing
from benchmark.suites.mamo.generation.text import num

_QUESTIONS = text_fragments(__name__, "complex_lp_questions.toml")

_PLACES = (
    "Ashford",
    "Brookfield",
    "Carlow",
    "Dunmore",
    "Elmstead",
    "Fairholt",
    "Glenbury",
    "Harlow",
    "Ivybridge",
    "Kelso",
)


def _letters(count: int) -> list[str]:
    return [chr(65 + i) for i in range(count)]


# ----------------------------------------------------------------------------- tours


def delivery_tour(rng: random.Random) -> OptProblem:
    """A closed tour through every stop: the assignment model alone returns disjoint subtours."""
    n = rng.randint(6, 8)
    names = rng.sample(_PLACES, n)
    points = [(rng.uniform(0, 60), rng.uniform(0, 60)) for _ in range(n)]
    distance = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            d = max(2, round(math.dist(points[i], points[j]) * rng.uniform(1.05, 1.3)))
            distance[i][j] = distance[j][i] = d
    arcs = [(i, j) for i in range(n) for j in range(n) if i != j]
    model = LinearModel("Minimize", {f"x_{i}_{j}": distance[i][j] for i, j in arcs})
    for i, j in arcs:
        model.add_variable(f"x_{i}_{j}", upper=1, integer=True)
    for i in range(n):
        model.add_constraint(f"leave_{i}", {f"x_{i}_{j}": 1 for j in range(n) if j != i}, "=", 1)
        model.add_constraint(f"enter_{i}", {f"x_{j}_{i}": 1 for j in range(n) if j != i}, "=", 1)
    naive = LinearModel("Minimize", dict(model.objective), list(model.variables), list(model.constraints))
    for i in range(1, n):
        model.add_variable(f"u_{i}", lower=1, upper=n - 1)
    for i, j in arcs:
        if i and j:
            model.add_constraint(f"order_{i}_{j}", {f"u_{i}": 1, f"u_{j}": -1, f"x_{i}_{j}": n}, "<=", n - 1)
    domain, who, what = rng.choice(
        [
            ("business", "A courier firm's van", "parcels"),
            ("environment", "A recycling lorry", "collection points' bins"),
            ("daily_life", "A mobile library bus", "book returns"),
        ]
    )
    rows = "\n".join(
        f"- {names[i]}: " + ", ".join(f"{names[j]} {distance[i][j]}" for j in range(i + 1, n))
        for i in range(n - 1)
    )
    question = _QUESTIONS["delivery_tour"].format(
        who=who, home=names[0], n_others=n - 1, others=listing(names[1:]), what=what, rows=rows
    )
    return OptProblem(
        "delivery_tour",
        domain,
        question,
        model,
        {"n": n, "distance": distance},
        naive={"no_subtour_elimination": naive},
        needs=("subtour_elimination", "binary_decisions"),
    )


# ----------------------------------------------------------------------------- flows


def shared_network(rng: random.Random) -> OptProblem:
    """Several commodities on one network whose link capacities they share."""
    nodes = _letters(rng.randint(7, 8))
    arcs: dict[tuple[str, str], tuple[int, int]] = {}
    for a in nodes:
        for b in nodes:
            if a != b and rng.random() < 0.32:
                arcs[(a, b)] = (rng.randint(15, 60), rng.randint(1, 9))
    commodities = []
    for k in range(rng.randint(2, 3)):
        source, sink = rng.sample(nodes, 2)
        path = [source, *rng.sample([v for v in nodes if v not in (source, sink)], 2), sink]
        for a, b in itertools.pairwise(path):
            arcs.setdefault((a, b), (rng.randint(15, 60), rng.randint(1, 9)))
        commodities.append((f"product {k + 1}", source, sink, rng.randint(10, 45)))
    arc_list = sorted(arcs)
    model = LinearModel("Minimize", {})
    loose = LinearModel("Minimize", {})
    for k, (_, source, sink, amount) in enumerate(commodities):
        for a, b in arc_list:
            name = f"f{k}_{a}_{b}"
            model.add_variable(name)
            loose.add_variable(name, upper=arcs[(a, b)][0])  # each product alone within the capacity
            model.objective[name] = loose.objective[name] = arcs[(a, b)][1]
        for v in nodes:
            terms = {
                f"f{k}_{a}_{b}": (1.0 if a == v else 0.0) - (1.0 if b == v else 0.0) for a, b in arc_list
            }
            rhs = amount if v == source else -amount if v == sink else 0
            model.add_constraint(f"balance{k}_{v}", terms, "=", rhs)
            loose.add_constraint(f"balance{k}_{v}", terms, "=", rhs)
    for a, b in arc_list:
        terms = {f"f{k}_{a}_{b}": 1.0 for k in range(len(commodities))}
        model.add_constraint(f"cap_{a}_{b}", terms, "<=", arcs[(a, b)][0])
    domain, network, unit = rng.choice(
        [
            ("manufacturing", "a chemical plant's pipe network between tanks", "tonnes per day"),
            ("business", "a wholesaler's road network between depots", "pallets per day"),
            ("environment", "a regional water-transfer canal system between basins", "megalitres per day"),
        ]
    )
    links = "\n".join(
        f"- {a} to {b}: at most {arcs[(a, b)][0]} in total, {arcs[(a, b)][1]} dollars per unit"
        for a, b in arc_list
    )
    demands = listing([f"{amount} of {name} from {s} to {t}" for name, s, t, amount in commodities])
    question = _QUESTIONS["shared_network"].format(
        network=network, points=listing(nodes), demands=demands, unit=unit, links=links
    )
    return OptProblem(
        "shared_network",
        domain,
        question,
        model,
        {"arcs": [[a, b, *arcs[(a, b)]] for a, b in arc_list], "demands": [c[3] for c in commodities]},
        naive={"capacity_per_product": loose},
        needs=("multi_commodity", "shared_capacity"),
    )


def truck_rebalancing(rng: random.Random) -> OptProblem:
    """Moving stock between warehouses in whole truckloads along permitted routes."""
    count = rng.randint(6, 8)
    names = rng.sample(_PLACES, count)
    change = [rng.randint(-60, 60) for _ in range(count)]
    change[-1] -= sum(change)
    routes: dict[tuple[int, int], int] = {}
    for i in range(count):
        for j in range(count):
            if i != j and rng.random() < 0.35:
                routes[(i, j)] = rng.randint(40, 400)
    for i in range(count):  # a ring keeps every warehouse reachable
        routes.setdefault((i, (i + 1) % count), rng.randint(40, 400))
    load, handling = rng.choice((12, 15, 20, 24)), round(rng.uniform(0.5, 3), 2)
    model = LinearModel("Minimize", {})
    for i, j in sorted(routes):
        model.add_variable(f"move_{i}_{j}")
        model.add_variable(f"trucks_{i}_{j}", integer=True)
        model.objective[f"move_{i}_{j}"] = handling
        model.objective[f"trucks_{i}_{j}"] = routes[(i, j)]
        model.add_constraint(f"load_{i}_{j}", {f"move_{i}_{j}": 1, f"trucks_{i}_{j}": -load}, "<=", 0)
    for v in range(count):
        terms = {
            f"move_{i}_{j}": (1.0 if i == v else 0.0) - (1.0 if j == v else 0.0) for i, j in sorted(routes)
        }
        model.add_constraint(f"balance_{v}", terms, "=", change[v])  # a surplus leaves, a shortfall arrives
    stock = "\n".join(
        f"- {names[v]}: "
        + (
            f"{change[v]} pallets too many"
            if change[v] > 0
            else f"{-change[v]} pallets too few"
            if change[v] < 0
            else "already balanced"
        )
        for v in range(count)
    )
    trips = "\n".join(
        f"- {names[i]} to {names[j]}: {cost} dollars per truck" for (i, j), cost in sorted(routes.items())
    )
    question = _QUESTIONS["truck_rebalancing"].format(
        count=count, stock=stock, load=load, handling=num(handling), trips=trips
    )
    return OptProblem(
        "truck_rebalancing",
        rng.choice(("business", "manufacturing")),
        question,
        model,
        {
            "count": count,
            "change": change,
            "load": load,
            "routes": [[i, j, c] for (i, j), c in sorted(routes.items())],
        },
        needs=("integer_loads", "flow_balance"),
    )


# ----------------------------------------------------------------------------- big-M structures


def setup_production(rng: random.Random) -> OptProblem:
    """Products with a set-up cost and a minimum batch if made at all: a fixed charge and an either-or."""
    count = rng.randint(4, 6)
    products = rng.sample(["valves", "pumps", "filters", "gauges", "fittings", "brackets", "hoses"], count)
    resources = [("machine hours", rng.randint(300, 900)), ("labour hours", rng.randint(400, 1200))]
    resources.append(("kg of steel", rng.randint(800, 3000)))
    use = [[rng.randint(1, 9) for _ in products] for _ in resources]
    profit = [rng.randint(20, 90) for _ in products]
    setup = [rng.randint(8, 40) * 100 for _ in products]
    batch = [rng.randint(20, 60) for _ in products]
    model = LinearModel("Maximize", {})
    for p in range(count):
        most = min(cap // use[r][p] for r, (_, cap) in enumerate(resources))
        model.add_variable(f"make_{p}")
        model.add_variable(f"run_{p}", upper=1, integer=True)
        model.objective[f"make_{p}"] = profit[p]
        model.objective[f"run_{p}"] = -setup[p]
        model.add_constraint(f"upper_{p}", {f"make_{p}": 1, f"run_{p}": -most}, "<=", 0)
        model.add_constraint(f"batch_{p}", {f"make_{p}": 1, f"run_{p}": -batch[p]}, ">=", 0)
    for r, (_, cap) in enumerate(resources):
        model.add_constraint(f"resource_{r}", {f"make_{p}": use[r][p] for p in range(count)}, "<=", cap)
    rows = "\n".join(
        f"- {products[p]}: profit {profit[p]} dollars per unit, set-up {setup[p]} dollars, minimum run "
        f"{batch[p]} units, needs "
        + ", ".join(f"{use[r][p]} {name}" for r, (name, _) in enumerate(resources))
        + " per unit"
        for p in range(count)
    )
    question = _QUESTIONS["setup_production"].format(
        count=count, available=listing([f"{cap} {name}" for name, cap in resources]), rows=rows
    )
    return OptProblem(
        "setup_production",
        "manufacturing",
        question,
        model,
        {
            "count": count,
            "use": use,
            "profit": profit,
            "setup": setup,
            "batch": batch,
            "resources": resources,
        },
        needs=("fixed_charge", "either_or", "big_m"),
    )


def job_sequencing(rng: random.Random) -> OptProblem:
    """One machine, jobs that cannot overlap: either i before j or j before i, each pair a big-M choice."""
    count = rng.randint(4, 6)
    jobs = _letters(count)
    duration = [rng.randint(2, 9) for _ in jobs]
    release = [rng.choice((0, 0, rng.randint(1, 8))) for _ in jobs]
    due = [release[j] + duration[j] + rng.randint(0, 12) for j in range(count)]
    weight = [rng.randint(10, 80) for _ in jobs]
    big = sum(duration) + max(release)
    model = LinearModel("Minimize", {f"late_{j}": weight[j] for j in range(count)})
    for j in range(count):
        model.add_variable(f"start_{j}", lower=release[j])
        model.add_variable(f"late_{j}")
        model.add_constraint(f"tardy_{j}", {f"late_{j}": 1, f"start_{j}": -1}, ">=", duration[j] - due[j])
    for i in range(count):
        for j in range(i + 1, count):
            model.add_variable(f"before_{i}_{j}", upper=1, integer=True)
            model.add_constraint(
                f"first_{i}_{j}",
                {f"start_{i}": 1, f"start_{j}": -1, f"before_{i}_{j}": big},
                "<=",
                big - duration[i],
            )
            model.add_constraint(
                f"second_{i}_{j}",
                {f"start_{j}": 1, f"start_{i}": -1, f"before_{i}_{j}": -big},
                "<=",
                -duration[j],
            )
    domain, place, job_word = rng.choice(
        [
            ("manufacturing", "a print shop's single large-format printer", "order"),
            ("natural_science", "a laboratory's only electron microscope", "sample"),
            ("business", "a repair garage's one paint booth", "car"),
        ]
    )
    rows = "\n".join(
        f"- {job_word} {jobs[j]}: takes {duration[j]} hours, available from hour {release[j]}, due at hour "
        f"{due[j]}, penalty {weight[j]} dollars per hour late"
        for j in range(count)
    )
    question = _QUESTIONS["job_sequencing"].format(place=place, count=count, job_word=job_word, rows=rows)
    return OptProblem(
        "job_sequencing",
        domain,
        question,
        model,
        {
            "count": count,
            "duration": duration,
            "release": release,
            "due": due,
            "weight": weight,
            "big_m": big,
        },
        needs=("either_or", "big_m", "binary_decisions"),
    )


def quantity_discount(rng: random.Random) -> OptProblem:
    """Incremental price tiers that only open once the cheaper-to-fill earlier tier is full."""
    count = rng.randint(2, 3)
    suppliers = [f"supplier {c}" for c in _letters(count)]
    need = rng.randint(300, 900)
    tiers, prices, caps = [], [], []
    for _ in suppliers:
        widths = [rng.randint(60, 200), rng.randint(60, 200)]
        first = round(rng.uniform(8, 14), 2)
        second = round(first - rng.uniform(0.5, 3), 2)
        third = round(second - rng.uniform(0.5, 3), 2)
        cap = sum(widths) + rng.randint(50, 300)
        tiers.append(widths)
        prices.append([first, second, third])
        caps.append(cap)
    if sum(caps) < need:
        caps[-1] += need - sum(caps) + 50
    model = LinearModel("Minimize", {})
    demand_terms = {}
    for s in range(count):
        widths, price = tiers[s], prices[s]
        third_width = caps[s] - sum(widths)
        for k, width in enumerate([*widths, third_width]):
            model.add_variable(f"buy_{s}_{k}", upper=width)
            model.objective[f"buy_{s}_{k}"] = price[k]
            demand_terms[f"buy_{s}_{k}"] = 1.0
        for k in (1, 2):
            model.add_variable(f"tier_{s}_{k}", upper=1, integer=True)
            model.add_constraint(
                f"fill_{s}_{k}", {f"buy_{s}_{k - 1}": 1, f"tier_{s}_{k}": -tiers[s][k - 1]}, ">=", 0
            )
            width = tiers[s][k] if k == 1 else third_width
            model.add_constraint(f"open_{s}_{k}", {f"buy_{s}_{k}": 1, f"tier_{s}_{k}": -width}, "<=", 0)
    model.add_constraint("need", demand_terms, ">=", need)
    rows = "\n".join(
        f"- {capital(suppliers[s])}: the first {tiers[s][0]} tonnes cost {num(prices[s][0])} dollars "
        "per tonne, "
        f"the next {tiers[s][1]} tonnes {num(prices[s][1])} dollars per tonne, and every further tonne "
        f"{num(prices[s][2])} dollars, up to {caps[s]} tonnes in total"
        for s in range(count)
    )
    question = _QUESTIONS["quantity_discount"].format(need=need, count=count, rows=rows)
    return OptProblem(
        "quantity_discount",
        "manufacturing",
        question,
        model,
        {"count": count, "tiers": tiers, "prices": prices, "caps": caps, "need": need},
        needs=("piecewise_cost", "big_m"),
    )


# ----------------------------------------------------------------------------- multi-period


def backlog_planning(rng: random.Random) -> OptProblem:
    """Regular and overtime production, stock and backorders over several periods."""
    periods = rng.randint(6, 8)
    demand = [rng.randint(80, 260) for _ in range(periods)]
    regular = [rng.randint(90, 200) for _ in range(periods)]
    overtime = rng.randint(20, 60)
    while sum(regular) + periods * overtime < sum(demand) + 30:
        regular[rng.randrange(periods)] += 30
    cost = round(rng.uniform(20, 40), 2)
    extra = round(cost * rng.uniform(1.2, 1.6), 2)
    hold, late = round(rng.uniform(1, 5), 2), round(rng.uniform(4, 15), 2)
    start = rng.randint(0, 60)

    def build(allow_backlog: bool) -> LinearModel:
        model = LinearModel("Minimize", {})
        for t in range(periods):
            model.add_variable(f"reg_{t}", upper=regular[t])
            model.add_variable(f"over_{t}", upper=overtime)
            model.add_variable(f"stock_{t}")
            model.add_variable(f"back_{t}", upper=math.inf if allow_backlog and t < periods - 1 else 0)
            model.objective.update(
                {f"reg_{t}": cost, f"over_{t}": extra, f"stock_{t}": hold, f"back_{t}": late}
            )
            terms = {f"reg_{t}": 1.0, f"over_{t}": 1.0, f"stock_{t}": -1.0, f"back_{t}": 1.0}
            if t:
                terms.update({f"stock_{t - 1}": 1.0, f"back_{t - 1}": -1.0})
            model.add_constraint(f"balance_{t}", terms, "=", demand[t] - (start if t == 0 else 0))
        return model

    domain, item, period = rng.choice(
        [
            ("manufacturing", "electric scooters", "week"),
            ("business", "office chairs", "month"),
            ("environment", "solar water heaters", "month"),
        ]
    )
    rows = "\n".join(
        f"- {period} {t + 1}: demand {demand[t]}, regular capacity {regular[t]}" for t in range(periods)
    )
    question = _QUESTIONS["backlog_planning"].format(
        item=item,
        periods=periods,
        period=period,
        start=start,
        cost=num(cost),
        overtime=overtime,
        extra=num(extra),
        hold=num(hold),
        late=num(late),
        rows=rows,
    )
    return OptProblem(
        "backlog_planning",
        domain,
        question,
        build(True),
        {"periods": periods, "demand": demand, "regular": regular, "start": start},
        naive={"no_backorders": build(False)},
        needs=("multi_period", "backlog"),
    )


# ----------------------------------------------------------------------------- covering


def station_cover(rng: random.Random) -> OptProblem:
    """Choose stations so every district is reached in time; busy districts need two."""
    sites, districts = rng.randint(6, 8), rng.randint(9, 12)
    limit = rng.choice((8, 10, 12, 15))
    travel = [[rng.randint(3, 25) for _ in range(districts)] for _ in range(sites)]
    for d in range(districts):  # every district reachable by at least two sites
        for s in rng.sample(range(sites), 2):
            travel[s][d] = min(travel[s][d], rng.randint(2, limit))
    cost = [rng.randint(10, 60) * 10 for _ in range(sites)]
    busy = sorted(rng.sample(range(districts), rng.randint(1, 3)))
    model = LinearModel("Minimize", {f"open_{s}": cost[s] for s in range(sites)})
    for s in range(sites):
        model.add_variable(f"open_{s}", upper=1, integer=True)
    for d in range(districts):
        reach = {f"open_{s}": 1 for s in range(sites) if travel[s][d] <= limit}
        model.add_constraint(f"cover_{d}", reach, ">=", 2 if d in busy else 1)
    site_names = [f"site {c}" for c in _letters(sites)]
    rows = "\n".join(
        f"- {capital(site_names[s])} (cost {cost[s]} thousand dollars): "
        + ", ".join(f"D{d + 1} {travel[s][d]}" for d in range(districts))
        for s in range(sites)
    )
    question = _QUESTIONS["station_cover"].format(
        sites=sites, districts=districts, limit=limit, busiest=listing([f"D{d + 1}" for d in busy]), rows=rows
    )
    return OptProblem(
        "station_cover",
        "daily_life",
        question,
        model,
        {"travel": travel, "cost": cost, "limit": limit, "busy": [d + 1 for d in busy], "n": districts},
        needs=("derived_coverage", "binary_decisions"),
    )
