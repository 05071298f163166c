"""The office, in stages: a thought goes one way, and each stage hands the next a value.

    engine/    the clock, calls in flight, random streams, early calls, persistence, `Office`
       |  a wake -> a look (a value)
    perceive/  what a wake finds and a think reads: looks, the prompt view, which tools apply
       |  a ThinkContext at the begin, an OfficeRead at the finish (values)
    decide/    a think -> a ThinkResult, on a scratch copy; tools/ each return what they owe
       |  a ThinkResult (a value: its steps in order)
    resolve/   the one writer of what a think did: each step lands, the thought's record, changes between thoughts
    rules/     pure functions with `now` passed in, and the numbers they take (`rules/config.py`)
    core/      plain data shared by every stage: state, conversations, the company, steps, a think

Imports point down this list only: engine may import any stage; decide and resolve import
perceive, rules and core (never each other, never engine); perceive imports rules and core;
rules imports core; core imports no other stage (tests/test_architecture.py enforces it).
"""
