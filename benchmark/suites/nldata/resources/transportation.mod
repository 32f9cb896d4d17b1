set PLANTS;
set MARKETS;
param supply{PLANTS};
param demand{MARKETS};
param cost{PLANTS, MARKETS};
var ship{s in PLANTS, m in MARKETS} >= 0;
minimize total_cost: sum{s in PLANTS, m in MARKETS} cost[s, m] * ship[s, m];
subject to supply_limit{s in PLANTS}: sum{m in MARKETS} ship[s, m] <= supply[s];
subject to meet_demand{m in MARKETS}: sum{s in PLANTS} ship[s, m] >= demand[m];
