set DAYS;
param required{DAYS};
param work_days;
param wage;
var start{d in DAYS} >= 0 integer;
minimize total_wages: wage * sum{d in DAYS} start[d];
subject to cover{d in DAYS}:
    sum{s in DAYS: (d - s + 7) mod 7 < work_days} start[s] >= required[d];
