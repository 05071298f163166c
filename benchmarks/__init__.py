"""Benchmarks of ideaco: engine cost, cost of life, prompt bound, persistence, embedded model, profile.

Run them all with `python -m benchmarks` (or `--quick`, `--only NAME`); see benchmarks/README.md.
Nothing here is imported by ideaco or by the test suite's timing: these measure, they never assert.
"""
