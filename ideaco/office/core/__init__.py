"""Plain data every stage shares: the state (employees, desks, conversations), the company,
messages, the steps of a result and their logged form, a think's context and result, the run's
counts. Owns no behaviour beyond building and reading these values; imports no other stage.
"""
