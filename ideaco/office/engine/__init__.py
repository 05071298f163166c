"""What runs the office: the clock, the model calls in flight, the random streams, early calls
(`early`, predicted by `upcoming`), agent commands, persistence, start and resume (`starting`,
`build`) and `Office`, the only place that schedules. May import every other stage.
"""
