"""The NLData2Opt suite: optimization problems stated as a description plus data tables, answered with
an AMPL model and data file, scored by execution (EBC), entity F1 (EF1) and an optional judge (LLM-ES)."""
