"""Suites: each benchmark (MM-OptBench, Mamo, …) is a plug-in of :class:`benchmark.suites.base.Suite`."""
