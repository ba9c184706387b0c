"""Analysis of the lab's runs: export from Prometheus, results.json, report, flame graphs,
comparison of runs and committing a run to its own git branch. See analysis/README.md."""
