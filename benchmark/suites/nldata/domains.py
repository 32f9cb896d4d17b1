"""The problem domains base records are drawn from: each a function (rng, size) → BaseRecord.

A domain fixes the story (no numbers in it: the description the model sees in every setting but
``nl``), the gold AMPL model (a file, ``resources/<domain>.mod``), a sampler for feasible data, one
derivation (the data a parameter is computed from, generated first so the target is exact), the
parameters that may be predicted
(integer-valued, one-dimensional or scalar) and near-synonym distractor columns (§5.2: semantically
close attributes, such as a second capacity for another season, are what mislead models).
The distractors a domain writes are its own near-synonyms; ``settings.distractor_pool`` adds more
from the parameters, and each instance shows four of them, chosen by its seed. None says that it
does not apply: the story does. Solving and verification happen in ``generation.py``; a domain
only has to produce plausible,
usually feasible data, and the generator rejects and redraws the rest.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmark.resources import resource_text
from benchmark.suites.nldata.records import BaseRecord, Derivation, Param, SetSpec


@dataclass(frozen=True)
class Domain:
    name: str
    problem_type: str  # "LP" or "MILP"
    build: Callable[[random.Random, int], BaseRecord]


def _members(prefix: str, n: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, n + 1))


def _p1(name: str, spec: SetSpec, values: Sequence[float], text: str) -> Param:
    return Param(name, (spec.name,), {(m,): v for m, v in zip(spec.members, values, strict=True)}, text)


def _p2(name: str, rows: SetSpec, cols: SetSpec, value: Callable[[str, str], float], text: str) -> Param:
    return Param(
        name, (rows.name, cols.name), {(r, c): value(r, c) for r in rows.members for c in cols.members}, text
    )


def _scalar(name: str, value: float, text: str) -> Param:
    return Param(name, (), {(): value}, text)


def _record(
    domain: str,
    problem_type: str,
    story: str,
    sets: tuple[SetSpec, ...],
    params: tuple[Param, ...],
    model: str,
    derivation: Derivation,
    predictable: tuple[str, ...],
    distractors: tuple[Param, ...],
) -> BaseRecord:
    return BaseRecord(
        instance_id="",
        domain=domain,
        problem_type=problem_type,
        difficulty="",
        seed=0,
        story=story,
        sets=sets,
        params=params,
        model=model,
        derivation=derivation,
        predictable=predictable,
        distractors=distractors,
    )


def production_mix(rng: random.Random, size: int) -> BaseRecord:
    products = SetSpec("PRODUCTS", _members("P", 2 + size), "product", "products")
    resources = SetSpec("RESOURCES", _members("R", 2 + size // 2), "resource", "resources")
    cost = [rng.randint(2, 20) for _ in products.members]
    price = [c + rng.randint(3, 25) for c in cost]
    profit = [p - c for p, c in zip(price, cost, strict=True)]
    usage = _p2(
        "usage", resources, products, lambda r, p: rng.randint(1, 6), "resource use per unit of product"
    )
    capacity = [rng.randint(40, 120) for _ in resources.members]
    demand = [rng.randint(10, 40) for _ in products.members]
    model = resource_text(__name__, "production_mix.mod")
    return _record(
        "production_mix",
        "LP",
        "A workshop makes several products from several shared resources. Every unit of a product earns "
        "a profit and uses a known amount of each resource; each resource has a limited capacity and "
        "each product has a maximum demand that production may not exceed. Fractional quantities are "
        "allowed. Decide how much of each product to make so that total profit is as large as possible.",
        (products, resources),
        (
            _p1("profit", products, profit, "profit per unit of the product"),
            usage,
            _p1("capacity", resources, capacity, "available capacity of the resource"),
            _p1("max_demand", products, demand, "maximum demand for the product"),
        ),
        model,
        Derivation(
            "profit",
            ("p",),
            "price[p] - cost[p]",
            (
                _p1("price", products, price, "selling price per unit of the product"),
                _p1("cost", products, cost, "production cost per unit of the product"),
            ),
            "The profit per unit of a product is not given: it equals the product's selling price minus "
            "its production cost per unit.",
        ),
        ("max_demand", "capacity"),
        (
            _p1(
                "unit_storage_cost",
                products,
                [rng.randint(1, 9) for _ in cost],
                "storage cost per unit of the product",
            ),
            _p1(
                "capacity_next_season",
                resources,
                [c + rng.randint(5, 30) for c in capacity],
                "capacity of the resource in the next season",
            ),
        ),
    )


def blending(rng: random.Random, size: int) -> BaseRecord:
    ingredients = SetSpec("INGREDIENTS", _members("I", 3 + size), "ingredient", "ingredients")
    properties = SetSpec("PROPERTIES", _members("K", 2 + size // 2), "property", "properties")
    freight = [rng.randint(1, 6) for _ in ingredients.members]
    base = [rng.randint(4, 30) for _ in ingredients.members]
    cost = [a + b for a, b in zip(base, freight, strict=True)]
    content = _p2(
        "content",
        ingredients,
        properties,
        lambda i, k: rng.randint(5, 60),
        "content of the property in the ingredient, in percent",
    )
    batch = rng.randint(5, 20) * 10
    share = {i: rng.random() + 0.2 for i in ingredients.members}
    total = sum(share.values())
    mix = {i: batch * s / total for i, s in share.items()}
    minimum = [
        int(0.85 * sum(content.values[(i, k)] * mix[i] for i in ingredients.members) / batch)
        for k in properties.members
    ]
    available = [int(mix[i] * rng.uniform(1.3, 2.5)) + 1 for i in ingredients.members]
    model = resource_text(__name__, "blending.mod")
    return _record(
        "blending",
        "LP",
        "A plant blends one batch of a product from several ingredients. Each ingredient has a cost per "
        "kilogram, a limited available amount in kilograms, and a content of each quality property in "
        "percent. The batch must weigh exactly the batch size, and for every property the blend's "
        "average content (in percent) must reach the property's minimum. Choose the kilograms of each "
        "ingredient that minimize the total cost.",
        (ingredients, properties),
        (
            _p1("cost", ingredients, cost, "cost per kilogram of the ingredient"),
            content,
            _p1(
                "min_content",
                properties,
                minimum,
                "minimum average content of the property in the blend, in percent",
            ),
            _p1("available", ingredients, available, "kilograms of the ingredient available"),
            _scalar("batch", batch, "batch size in kilograms"),
        ),
        model,
        Derivation(
            "cost",
            ("i",),
            "purchase_price[i] + freight[i]",
            (
                _p1("purchase_price", ingredients, base, "purchase price per kilogram of the ingredient"),
                _p1("freight", ingredients, freight, "freight cost per kilogram of the ingredient"),
            ),
            "The cost per kilogram of an ingredient is not given: it is the purchase price per kilogram plus "
            "the freight cost per kilogram.",
        ),
        ("available", "min_content"),
        (
            _p1(
                "available_last_year",
                ingredients,
                [a + rng.randint(-1, 20) for a in available],
                "kilograms of the ingredient that were available last year",
            ),
            _p1(
                "max_content",
                properties,
                [m + rng.randint(10, 30) for m in minimum],
                "upper content of the property recommended by a trade guide, in percent",
            ),
        ),
    )


def transportation(rng: random.Random, size: int) -> BaseRecord:
    plants = SetSpec("PLANTS", _members("S", 2 + size // 2), "plant", "plants")
    markets = SetSpec("MARKETS", _members("M", 3 + size), "market", "markets")
    rate = rng.randint(2, 5)
    distance = _p2(
        "distance",
        plants,
        markets,
        lambda s, m: rng.randint(3, 40),
        "distance from plant to market in kilometres",
    )
    demand = [rng.randint(20, 80) for _ in markets.members]
    total = sum(demand)
    weights = [rng.random() + 0.5 for _ in plants.members]
    supply = [int(total * 1.3 * w / sum(weights)) + 5 for w in weights]
    cost = Param(
        "cost",
        distance.index,
        {k: v * rate for k, v in distance.values.items()},
        "shipping cost per unit from plant to market",
    )
    model = resource_text(__name__, "transportation.mod")
    return _record(
        "transportation",
        "LP",
        "A company ships a product from its plants to its markets. Each plant can supply at most its "
        "supply, each market must receive at least its demand, and every unit shipped on a route costs "
        "the route's shipping cost; shipments may be fractional. Find the shipments that meet all demand "
        "at the lowest total cost.",
        (plants, markets),
        (
            _p1("supply", plants, supply, "units the plant can supply"),
            _p1("demand", markets, demand, "units the market demands"),
            cost,
        ),
        model,
        Derivation(
            "cost",
            ("s", "m"),
            "distance[s, m] * rate",
            (distance, _scalar("rate", rate, "shipping cost per unit and kilometre")),
            "The shipping cost per unit on a route is not given: it is the route's distance in kilometres "
            "times the shipping rate per unit and kilometre.",
        ),
        ("demand", "supply"),
        (
            _p1(
                "demand_last_year",
                markets,
                [d + rng.randint(-10, 10) for d in demand],
                "units the market demanded last year",
            ),
            _p1(
                "storage",
                plants,
                [rng.randint(50, 200) for _ in supply],
                "storage space at the plant in units",
            ),
        ),
    )


def diet(rng: random.Random, size: int) -> BaseRecord:
    foods = SetSpec("FOODS", _members("F", 3 + size), "food", "foods")
    nutrients = SetSpec("NUTRIENTS", _members("N", 2 + size // 2), "nutrient", "nutrients")
    cost = [rng.randint(1, 12) for _ in foods.members]
    servings = [rng.randint(2, 8) for _ in foods.members]
    amount = _p2(
        "amount",
        foods,
        nutrients,
        lambda f, n: rng.randint(0, 30),
        "amount of the nutrient in one serving of the food",
    )
    max_servings = [rng.randint(3, 10) for _ in foods.members]
    need = [
        max(
            1,
            int(
                0.5 * sum(amount.values[(f, n)] * s for f, s in zip(foods.members, max_servings, strict=True))
            ),
        )
        for n in nutrients.members
    ]
    model = resource_text(__name__, "diet.mod")
    return _record(
        "diet",
        "LP",
        "A dietitian plans a daily menu from several foods. Each serving of a food costs its cost and "
        "provides an amount of each nutrient; every nutrient has a minimum daily intake and each food may "
        "be served at most its maximum number of servings (fractional servings are fine). Find the "
        "cheapest menu that meets every minimum intake.",
        (foods, nutrients),
        (
            _p1("cost", foods, cost, "cost of one serving of the food"),
            amount,
            _p1("min_intake", nutrients, need, "minimum daily intake of the nutrient"),
            _p1("max_servings", foods, max_servings, "maximum servings of the food per day"),
        ),
        model,
        Derivation(
            "cost",
            ("f",),
            "pack_price[f] / servings_per_pack[f]",
            (
                _p1(
                    "pack_price",
                    foods,
                    [c * s for c, s in zip(cost, servings, strict=True)],
                    "price of one pack of the food",
                ),
                _p1("servings_per_pack", foods, servings, "servings in one pack of the food"),
            ),
            "The cost of one serving of a food is not given: it is the price of a pack divided by the "
            "number of servings in a pack.",
        ),
        ("min_intake", "max_servings"),
        (
            _p1(
                "max_intake",
                nutrients,
                [n * 3 + rng.randint(1, 20) for n in need],
                "safe upper daily intake of the nutrient",
            ),
            _p1(
                "calories", foods, [rng.randint(50, 400) for _ in cost], "calories in one serving of the food"
            ),
        ),
    )


def assignment(rng: random.Random, size: int) -> BaseRecord:
    workers = SetSpec("WORKERS", _members("W", 3 + size // 2), "worker", "workers")
    tasks = SetSpec("TASKS", _members("T", 4 + size), "task", "tasks")
    wage = {w: rng.randint(10, 30) for w in workers.members}
    hours = _p2(
        "hours", workers, tasks, lambda w, t: rng.randint(1, 8), "hours the worker needs for the task"
    )
    plan = {t: rng.choice(workers.members) for t in tasks.members}
    load = {w: sum(hours.values[(w, t)] for t in tasks.members if plan[t] == w) for w in workers.members}
    count = {w: sum(1 for t in tasks.members if plan[t] == w) for w in workers.members}
    max_tasks = max(count.values()) + rng.randint(0, 1)
    cap = [load[w] + rng.randint(2, 8) for w in workers.members]
    cost = Param(
        "cost",
        hours.index,
        {k: v * wage[k[0]] for k, v in hours.values.items()},
        "cost of the worker doing the task",
    )
    model = resource_text(__name__, "assignment.mod")
    return _record(
        "assignment",
        "MILP",
        "A manager assigns every task to exactly one worker. A worker needs a known number of hours for "
        "each task and assigning it costs a known amount; a worker's assigned tasks may not take more "
        "than the worker's maximum hours, and no worker may take more than the maximum number of tasks. "
        "Find the assignment with the lowest total cost.",
        (workers, tasks),
        (
            hours,
            cost,
            _p1("max_hours", workers, cap, "maximum working hours of the worker"),
            _scalar("max_tasks", max_tasks, "maximum number of tasks per worker"),
        ),
        model,
        Derivation(
            "cost",
            ("w", "t"),
            "hours[w, t] * wage[w]",
            (hours, _p1("wage", workers, [wage[w] for w in workers.members], "hourly wage of the worker")),
            "The cost of a worker doing a task is not given: it is the hours the worker needs for the task "
            "times the worker's hourly wage.",
        ),
        ("max_hours", "max_tasks"),
        (
            _p1(
                "overtime_hours",
                workers,
                [rng.randint(2, 10) for _ in cap],
                "overtime hours the worker would accept",
            ),
            _p1("seniority", workers, [rng.randint(1, 25) for _ in cap], "years of seniority of the worker"),
        ),
    )


def facility_location(rng: random.Random, size: int) -> BaseRecord:
    sites = SetSpec("SITES", _members("L", 3 + size // 2), "site", "sites")
    customers = SetSpec("CUSTOMERS", _members("C", 4 + size), "customer", "customers")
    rent = [rng.randint(50, 200) for _ in sites.members]
    upkeep = [rng.randint(10, 80) for _ in sites.members]
    demand = [rng.randint(5, 30) for _ in customers.members]
    total = sum(demand)
    capacity = [int(total * rng.uniform(0.4, 0.8)) + 5 for _ in sites.members]
    unit = _p2(
        "unit_cost",
        sites,
        customers,
        lambda s, c: rng.randint(1, 12),
        "cost per unit served from the site to the customer",
    )
    model = resource_text(__name__, "facility_location.mod")
    return _record(
        "facility_location",
        "MILP",
        "A distributor chooses which candidate warehouse sites to open (each site is either opened or "
        "not). Opening a site costs its fixed "
        "cost; an open site can serve customers up to its capacity, a closed one serves nobody. Every "
        "customer's demand must be served exactly, possibly split over several sites, and each unit "
        "served from a site to a customer costs the unit cost of that pair. "
        "Minimize fixed plus serving cost.",
        (sites, customers),
        (
            _p1(
                "fixed_cost",
                sites,
                [a + b for a, b in zip(rent, upkeep, strict=True)],
                "fixed cost of opening the site",
            ),
            _p1("capacity", sites, capacity, "capacity of the site in units"),
            _p1("demand", customers, demand, "demand of the customer in units"),
            unit,
        ),
        model,
        Derivation(
            "fixed_cost",
            ("s",),
            "rent[s] + maintenance[s]",
            (
                _p1("rent", sites, rent, "rent of the site for the whole plan (one payment)"),
                _p1("maintenance", sites, upkeep, "maintenance of the site for the whole plan (one payment)"),
            ),
            "The fixed cost of opening a site is not given: it is the site's rent plus its maintenance cost.",
        ),
        ("demand", "capacity"),
        (
            _p1(
                "expansion_capacity",
                sites,
                [c + rng.randint(10, 40) for c in capacity],
                "capacity of the site after a possible future expansion",
            ),
            _p1(
                "demand_peak",
                customers,
                [d + rng.randint(3, 15) for d in demand],
                "peak-season demand of the customer",
            ),
        ),
    )


def lot_sizing(rng: random.Random, size: int) -> BaseRecord:
    periods = SetSpec("PERIODS", tuple(str(t) for t in range(1, 4 + size + 1)), "period", "periods")
    demand = [rng.randint(10, 60) for _ in periods.members]
    machines, hours = rng.randint(2, 4), rng.randint(6, 12)
    rate = -(-max(demand) // (machines * hours)) + rng.randint(0, 2)
    model = resource_text(__name__, "lot_sizing.mod")
    return _record(
        "lot_sizing",
        "MILP",
        "A factory plans production over consecutive periods, numbered from one. In each period it may "
        "set up its line, paying the setup cost, and then produce at most the line's capacity (there is no "
        "overtime and no backlog); without a "
        "setup it produces nothing. Demand of each period must be met from stock and production, stock "
        "carried at the end of a period costs the holding cost per unit, and the factory starts with the "
        "initial stock. Minimize total setup and holding cost.",
        (periods,),
        (
            _p1("demand", periods, demand, "demand in the period"),
            _scalar("setup_cost", rng.randint(50, 300), "cost of one setup"),
            _scalar("holding_cost", rng.randint(1, 6), "cost of holding one unit in stock for one period"),
            _scalar("capacity", machines * hours * rate, "production capacity per period in units"),
            _scalar("initial_stock", rng.randint(0, 10), "stock at the start of the first period"),
        ),
        model,
        Derivation(
            "capacity",
            (),
            "machines * hours_per_machine * units_per_hour",
            (
                _scalar("machines", machines, "number of machines on the line"),
                _scalar("hours_per_machine", hours, "working hours of one machine per period"),
                _scalar("units_per_hour", rate, "units one machine produces per working hour"),
            ),
            "The production capacity per period is not given: it is the number of machines times the "
            "working hours of one machine per period times the units a machine produces per hour.",
        ),
        ("setup_cost", "holding_cost"),
        (
            _scalar(
                "backlog_cost",
                rng.randint(5, 20),
                "cost per unit of backlogged demand",
            ),
            _scalar(
                "overtime_capacity",
                rng.randint(5, 30),
                "extra units per period with overtime",
            ),
        ),
    )


def staffing(rng: random.Random, size: int) -> BaseRecord:
    days = SetSpec("DAYS", tuple(str(d) for d in range(1, 8)), "day", "days")
    share = [6] * len(days.members)
    for _ in range(100 - sum(share)):
        share[rng.randrange(len(share))] += 1
    total_duty = 100 * (1 + size // 2)
    need = [total_duty * s // 100 for s in share]
    work_days = rng.choice((4, 5))
    daily_rate = rng.randint(80, 160)
    model = resource_text(__name__, "staffing.mod")
    return _record(
        "staffing",
        "MILP",
        "A service centre staffs the seven days of an ordinary repeating week, numbered from one. Every "
        "employee is full-time and works the given number of consecutive days (wrapping from the last day"
        " of the week to the first) and then rests; each employee hired costs the weekly wage. Each day "
        "needs at least its required number of employees on duty. Decide how many employees start on each"
        " day, a whole number of employees each (nobody is split), so that the total weekly wage bill is "
        "as small as possible.",
        (days,),
        (
            _p1("required", days, need, "employees required on duty on the day"),
            _scalar("work_days", work_days, "consecutive working days of every employee"),
            _scalar("wage", work_days * daily_rate, "weekly wage of one employee"),
        ),
        model,
        Derivation(
            "required",
            ("d",),
            "total_duty * share[d] / 100",
            (
                _scalar("total_duty", total_duty, "employee-days on duty the week needs in total"),
                _p1(
                    "share",
                    days,
                    share,
                    "share of the week's employee-days that falls on the day, in percent",
                ),
            ),
            "The number of employees required on duty on each day is not given: the week needs a total "
            "number of employee-days on duty, spread over the days by each day's share in percent.",
        ),
        ("required", "wage"),
        (
            _p1(
                "required_holiday",
                days,
                [n + rng.randint(1, 5) for n in need],
                "employees required on the day in holiday weeks",
            ),
            _scalar(
                "part_time_wage",
                rng.randint(150, 400),
                "weekly wage of a part-time employee",
            ),
        ),
    )


def portfolio(rng: random.Random, size: int) -> BaseRecord:
    assets = SetSpec("ASSETS", _members("A", 3 + size), "asset", "assets")
    dividend = [rng.randint(1, 5) for _ in assets.members]
    growth = [rng.randint(1, 9) for _ in assets.members]
    risk = [rng.randint(1, 10) for _ in assets.members]
    budget = rng.randint(5, 20) * 1000
    model = resource_text(__name__, "portfolio.mod")
    return _record(
        "portfolio",
        "LP",
        "An investor splits a budget over several assets. Each asset has an expected yearly return in "
        "percent and a risk score; at most the budget may be invested, at most the given amount in any "
        "one asset, and the invested amounts weighted by risk score may not exceed the maximum average "
        "risk times the budget. Maximize the expected yearly return in money.",
        (assets,),
        (
            _p1(
                "expected_return",
                assets,
                [a + b for a, b in zip(dividend, growth, strict=True)],
                "expected yearly return of the asset in percent",
            ),
            _p1("risk", assets, risk, "risk score of the asset"),
            _scalar("budget", budget, "budget available"),
            _scalar(
                "max_per_asset", budget * rng.choice((3, 4, 5)) // 10, "largest amount allowed in one asset"
            ),
            _scalar("max_avg_risk", rng.randint(3, 6), "maximum average risk score of the invested money"),
        ),
        model,
        Derivation(
            "expected_return",
            ("a",),
            "dividend_yield[a] + growth_rate[a]",
            (
                _p1("dividend_yield", assets, dividend, "expected dividend yield of the asset in percent"),
                _p1("growth_rate", assets, growth, "expected price growth of the asset in percent"),
            ),
            "The expected yearly return of an asset is not given: it is its dividend yield plus its expected "
            "price growth, both in percent.",
        ),
        ("risk", "max_avg_risk"),
        (
            _p1(
                "return_last_year",
                assets,
                [rng.randint(-5, 15) for _ in risk],
                "return of the asset last year in percent",
            ),
            _p1(
                "volatility",
                assets,
                [rng.randint(5, 40) for _ in risk],
                "historical volatility of the asset in percent",
            ),
        ),
    )


DOMAINS: tuple[Domain, ...] = (
    Domain("production_mix", "LP", production_mix),
    Domain("blending", "LP", blending),
    Domain("transportation", "LP", transportation),
    Domain("diet", "LP", diet),
    Domain("portfolio", "LP", portfolio),
    Domain("assignment", "MILP", assignment),
    Domain("facility_location", "MILP", facility_location),
    Domain("lot_sizing", "MILP", lot_sizing),
    Domain("staffing", "MILP", staffing),
)
