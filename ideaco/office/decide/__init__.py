"""A think -> a `ThinkResult`, on a scratch copy of the office: nothing is applied here.

`decision` turns the model's answer (or its failure) into the result, `acts` what the thought says
and does, `speech` a draft's verdict (the speech gates, then the loop breakers), `scratch` the
copy-on-write state a think decides against, `tools/` the tools a thought calls, each returning
its message and what it owes. Imports `perceive`, `rules` and `core`; never `resolve` or `engine`.
"""
