"""MM-OptBench: multimodal optimization modeling (text + rendered visuals → model + solver code)."""
