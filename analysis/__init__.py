"""Analysis of the lab's runs: export from Prometheus, results.json, report, flame graphs,
comparison of runs and committing a run to its own git branch. Six subpackages in layers, each
importing only its own and the earlier ones: common, bench, collect, figures, render, experiments
(analysis/README.md "Layout")."""
