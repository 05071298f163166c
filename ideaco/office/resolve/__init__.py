"""The one writer: a result's steps land on the office in order (`apply`), whom a post reaches and
when one looks next (`waking`, the wake policy; `policies`, by name), the thought's record with
what it applied (`records`), what changes between thoughts (`change_log`, changes.jsonl), where
records go (`journal`) and summary.json (`summary`). Imports `perceive`, `rules` and `core`; never
`decide` or `engine`.
"""
