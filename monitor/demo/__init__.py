"""`rankwatch demo`: the simulated job and its RAS endpoint, reached from the CLI only."""
