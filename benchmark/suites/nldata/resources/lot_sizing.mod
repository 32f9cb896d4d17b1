set PERIODS;
param demand{PERIODS};
param setup_cost;
param holding_cost;
param capacity;
param initial_stock;
var produce{t in PERIODS} >= 0;
var stock{t in PERIODS} >= 0;
var setup{t in PERIODS} binary;
minimize total_cost: sum{t in PERIODS} (setup_cost * setup[t] + holding_cost * stock[t]);
subject to balance{t in PERIODS}:
    (if t = 1 then initial_stock else stock[t - 1]) + produce[t] - demand[t] = stock[t];
subject to setup_needed{t in PERIODS}: produce[t] <= capacity * setup[t];
