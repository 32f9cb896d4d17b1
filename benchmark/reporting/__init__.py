"""Reports built from a run's result records: summary data, Markdown, terminal tables, manifest."""
