"""Few-shot examples for the Mamo prompts, written for this project (not taken from the paper).

Each example is a question in the style of the benchmark and the answer the contract asks for:
a Python program that prints only y(t0), or a CPLEX-format ``.lp`` file. They are kept apart from
the generated cases (different scenarios and numbers) so that no example gives away a test answer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    question: str
    answer: str


ODE_EXAMPLES: tuple[Example, ...] = (
    Example(
        "A cup of tea at 92 degrees Celsius is left on a table in a room kept at 21 degrees Celsius. "
        "The tea loses heat at a rate proportional to the difference between its temperature and the "
        "room's, and after 4 minutes it has cooled to 80 degrees Celsius. What is the temperature of "
        "the tea after 15 minutes, in degrees Celsius? Give the answer to two decimal places.",
        """import math
from scipy.integrate import solve_ivp

k = -math.log((80 - 21) / (92 - 21)) / 4


def rhs(t, y):
    return [-k * (y[0] - 21)]


solution = solve_ivp(rhs, (0, 15), [92], method="Radau", rtol=1e-10, atol=1e-12)
print(solution.y[0, -1])""",
    ),
    Example(
        "A 2 kg block hangs from a spring with stiffness 50 N/m and moves through oil that resists "
        "its motion with a force of 4 N per m/s of velocity. It is pulled 0.3 m below its rest "
        "position and released from rest. How far below the rest position is the block after 1.5 "
        "seconds, in metres? A negative value means above it. Round to four decimal places.",
        """from scipy.integrate import solve_ivp

m, c, k = 2.0, 4.0, 50.0


def rhs(t, u):
    x, v = u
    return [v, -(c * v + k * x) / m]


solution = solve_ivp(rhs, (0, 1.5), [0.3, 0.0], method="Radau", rtol=1e-10, atol=1e-12)
print(solution.y[0, -1])""",
    ),
    Example(
        "Rabbits and foxes share an island. Without foxes the rabbits would grow at 0.8 per year, and "
        "predation removes 0.04 rabbits per year for every rabbit-fox pair. Foxes die out at 0.5 per "
        "year without food and gain 0.01 per year for every rabbit-fox pair. Starting with 60 rabbits and 15 "
        "foxes, how many foxes are there after 3 years? Round to two decimal places.",
        """from scipy.integrate import solve_ivp


def rhs(t, u):
    rabbits, foxes = u
    return [0.8 * rabbits - 0.04 * rabbits * foxes, -0.5 * foxes + 0.01 * rabbits * foxes]


solution = solve_ivp(rhs, (0, 3), [60, 15], method="Radau", rtol=1e-10, atol=1e-12)
print(solution.y[1, -1])""",
    ),
    Example(
        "A savings account holds 5000 dollars and earns interest compounded continuously at 3% per "
        "year, while the owner withdraws money continuously at 200 dollars per year. How much is in "
        "the account after 10 years, in dollars? Round to the nearest cent.",
        """from scipy.integrate import solve_ivp


def rhs(t, y):
    return [0.03 * y[0] - 200]


solution = solve_ivp(rhs, (0, 10), [5000], method="Radau", rtol=1e-10, atol=1e-12)
print(solution.y[0, -1])""",
    ),
    Example(
        "A 500 litre aquarium contains 20 grams of dissolved salt. Water holding 0.1 grams of salt per "
        "litre flows in at 5 litres per minute and the well-mixed water drains at the same rate. How "
        "many grams of salt are in the aquarium after 30 minutes? Give three decimal places.",
        """from scipy.integrate import solve_ivp


def rhs(t, q):
    return [5 * 0.1 - 5 * q[0] / 500]


solution = solve_ivp(rhs, (0, 30), [20], method="Radau", rtol=1e-10, atol=1e-12)
print(solution.y[0, -1])""",
    ),
)

LP_EXAMPLES: tuple[Example, ...] = (
    Example(
        "A carpenter builds stools and benches. A stool takes 2 hours of work and 3 board-metres of "
        "wood, a bench 3 hours and 5 board-metres. This week there are 60 hours and 90 board-metres. "
        "A stool earns 25 dollars, a bench 40. Only whole pieces can be sold. What is the largest "
        "total profit, in dollars?",
        """Maximize
 profit: 25 stools + 40 benches
Subject To
 labour: 2 stools + 3 benches <= 60
 wood: 3 stools + 5 benches <= 90
Bounds
 stools >= 0
 benches >= 0
Generals
 stools
 benches
End""",
    ),
    Example(
        "A farmer mixes two feeds for her goats. Feed A costs 0.30 dollars per kg and has 10 g of "
        "protein and 4 g of fibre per kg; feed B costs 0.45 dollars per kg with 18 g of protein and "
        "2 g of fibre per kg. The daily mix needs at least 90 g of protein and 20 g of fibre. What is "
        "the lowest daily cost, in dollars? Round to two decimal places.",
        """Minimize
 cost: 0.30 a + 0.45 b
Subject To
 protein: 10 a + 18 b >= 90
 fibre: 4 a + 2 b >= 20
End""",
    ),
    Example(
        "Three depots supply two shops. Depots 1, 2 and 3 hold 40, 35 and 25 crates; shop 1 needs 50 "
        "crates and shop 2 needs 45. Shipping one crate costs 4, 6 and 5 dollars from depots 1, 2, 3 "
        "to shop 1 and 7, 3 and 4 dollars to shop 2. What is the cheapest way to meet both shops' "
        "needs? Give the total shipping cost in dollars.",
        """Minimize
 cost: 4 x11 + 7 x12 + 6 x21 + 3 x22 + 5 x31 + 4 x32
Subject To
 supply1: x11 + x12 <= 40
 supply2: x21 + x22 <= 35
 supply3: x31 + x32 <= 25
 demand1: x11 + x21 + x31 >= 50
 demand2: x12 + x22 + x32 >= 45
End""",
    ),
    Example(
        "A club may fund any of four projects with a budget of 100 thousand dollars. The projects cost "
        "40, 30, 50 and 20 thousand and bring benefit scores of 60, 45, 70 and 25. Project 3 may only be "
        "funded if project 1 is. What is the largest total benefit score?",
        """Maximize
 benefit: 60 p1 + 45 p2 + 70 p3 + 25 p4
Subject To
 budget: 40 p1 + 30 p2 + 50 p3 + 20 p4 <= 100
 needs_p1: p3 - p1 <= 0
Binaries
 p1
 p2
 p3
 p4
End""",
    ),
    Example(
        "An investor splits 10000 dollars between bonds paying 4% and stocks expected to return 9%. "
        "At least 3000 dollars must go to bonds and no more than twice the bond amount to stocks. What "
        "is the largest expected yearly return, in dollars? Round to two decimal places.",
        """Maximize
 annual_return: 0.04 bonds + 0.09 stocks
Subject To
 budget: bonds + stocks <= 10000
 minimum_bonds: bonds >= 3000
 stock_cap: stocks - 2 bonds <= 0
End""",
    ),
)
