"""Layer 3: the figures of one bench, results.json (results.build and the module of each figure).
Imports common/, bench/, collect/."""
