set PRODUCTS;
set RESOURCES;
param profit{PRODUCTS};
param usage{RESOURCES, PRODUCTS};
param capacity{RESOURCES};
param max_demand{PRODUCTS};
var make{p in PRODUCTS} >= 0;
maximize total_profit: sum{p in PRODUCTS} profit[p] * make[p];
subject to resource_limit{r in RESOURCES}:
    sum{p in PRODUCTS} usage[r, p] * make[p] <= capacity[r];
subject to demand_limit{p in PRODUCTS}: make[p] <= max_demand[p];
