"""Layer 4: one bench read by people: report.md and its plots, the summary line, the check table,
the soak check, flame graphs. Imports the layers below."""
