pytest_plugins = ["benchmark.plugin"]
