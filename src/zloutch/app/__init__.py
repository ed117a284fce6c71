"""The application layer: what every front end shares and no rule needs.

A game being played (session), its dice sources, the store of solved tables and the work
behind `zloutch solve`, the review of a saved game, and the Rich renderings of the rules,
the sheet and a review that the front ends share. It sits above `sim` and below the adapters.
"""
