"""The one writer: a think's result lands on the office and comes back as `Effects` (`apply.resolve`:
its steps in order, its next look, its record; `landing`: what a resolve is handed and returns),
whom a post reaches and when one looks next (`waking`, the wake policy; `policies`, by name), the
thought's record with what it applied (`records`), what changes between thoughts (`change_log`,
changes.jsonl), where records go (`journal`) and summary.json (`summary`). Imports `perceive`,
`rules` and `core`; never `decide` or `engine`.
"""
