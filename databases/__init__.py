"""The databases the lab can run, one folder each (docs/layout.md); manifests.py reads them."""
