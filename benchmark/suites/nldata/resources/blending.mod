set INGREDIENTS;
set PROPERTIES;
param cost{INGREDIENTS};
param content{INGREDIENTS, PROPERTIES};
param min_content{PROPERTIES};
param available{INGREDIENTS};
param batch;
var use{i in INGREDIENTS} >= 0;
minimize total_cost: sum{i in INGREDIENTS} cost[i] * use[i];
subject to batch_size: sum{i in INGREDIENTS} use[i] = batch;
subject to quality{k in PROPERTIES}:
    sum{i in INGREDIENTS} content[i, k] * use[i] >= min_content[k] * batch;
subject to supply{i in INGREDIENTS}: use[i] <= available[i];
