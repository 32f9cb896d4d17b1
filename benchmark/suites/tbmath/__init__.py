"""TB-MathModel (002_…): agentic modeling tasks scored by a one-sided multi-reference panel."""
