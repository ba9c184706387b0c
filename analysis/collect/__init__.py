"""Layer 2: what the lab calls while a run is on: the Prometheus export of a phase window and the
readings beside it (monitoring CPU, CPU net of idle), the host's facts (host-info). Imports common/, bench/."""
