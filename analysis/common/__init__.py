"""Layer 0: what every part of analysis uses (errors, atomic files, the files' schemas, the databases'
manifests and hooks, names and number formats). Imports nothing else of analysis/."""
