"""The adapters: each translates between a medium and the application layer.

`cli` (the zloutch command, which starts the others), `tui` (the full-screen game), `plain`
(the line mode) and `plots` (pictures). No adapter imports another, except the command line,
which is the entry point that launches them.
"""
