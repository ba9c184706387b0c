"""Layer 5: several benches together: REPEAT repetitions, sweeps, compare, a run branch, and their
reports. Imports every layer below."""
