"""Layer 1: reading one bench folder: its files (benchfiles), its plan, its phases, a phase's status,
perf stat output. Imports common/ only."""
