set SITES;
set CUSTOMERS;
param fixed_cost{SITES};
param capacity{SITES};
param demand{CUSTOMERS};
param unit_cost{SITES, CUSTOMERS};
var open{s in SITES} binary;
var serve{s in SITES, c in CUSTOMERS} >= 0;
minimize total_cost:
    sum{s in SITES} fixed_cost[s] * open[s] + sum{s in SITES, c in CUSTOMERS} unit_cost[s, c] * serve[s, c];
subject to meet_demand{c in CUSTOMERS}: sum{s in SITES} serve[s, c] = demand[c];
subject to site_capacity{s in SITES}: sum{c in CUSTOMERS} serve[s, c] <= capacity[s] * open[s];
