"""The one writer: a result's steps land on the office in order (`apply`), the thought's record
with what it applied (`records`), what changes between thoughts (`between`, changes.jsonl),
where records go (`journal`) and summary.json (`summary`). Imports `perceive`, `rules` and `core`;
never `decide` or `engine`.
"""
