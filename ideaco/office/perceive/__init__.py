"""What a wake finds and what a think reads: the office is read here, never written (a look's plan
is taken onto the desk by the desk itself, `Desk.take_look` in core, which the engine calls).

`looks` is what a look finds (the look policy: owed thinks, mentions, the most unread, a task alert,
an idle room) and its plan (under which trigger, after which pause), `reading` turns one
conversation into the prompt view, schema and request and builds the `ThinkContext` a think
carries (`Beginning.context`), `document_tools` says which document tools
can apply, `taskboard` which offered work one sees, `view` is the office as these parts see it.
Imports `rules` and `core` only.
"""
