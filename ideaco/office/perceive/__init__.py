"""What a wake finds and what a think reads, without changing anything.

`looks` plans a look (which conversation, under which trigger, after which pause), `waking` is the
wake policy (whom a post reaches, what a look finds, the next look), `reading` turns one
conversation into the prompt view, schema and request, `document_tools` says which document tools
can apply, `taskboard` which offered work one sees, `view` is the office as these parts see it.
Imports `rules` and `core` only.
"""
