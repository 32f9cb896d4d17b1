"""The Mamo suite (Huang et al., "Mamo: a Mathematical Modeling Benchmark with Solvers").

A word problem (an ODE whose answer is y(t0), or an LP/MILP whose answer is the optimal value) goes
to the model, which answers with Python that prints the number or with a CPLEX-format ``.lp`` file;
the harness runs the artifact in the sandbox and compares the number with the answer by the
paper's rule (App. E), optionally after a code-modifier pass (Sec. 4.3, App. D).
"""
