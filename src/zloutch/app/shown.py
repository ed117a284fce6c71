"""How the front ends show numbers people read as chances: no import beyond the standard
library, so that ``zloutch score --advise`` stays light (``tests/adapters/cli/test_startup.py``)."""

from __future__ import annotations


def percent(share: float, digits: int) -> str:
    """A chance as a percentage with ``digits`` decimals, never rounded to a certainty it is
    not: ``>99.9%`` where a chance below 1 would show ``100.0%``, ``<0.1%`` where one above
    0 would show ``0.0%`` (a keep that loses the turn at 9700 is not a sure win). The web
    page's ``percent`` (``static/js/i18n.js``) shows them alike."""
    step = 10.0**-digits
    shown = 100 * share
    if share < 1 and shown >= 100 - step / 2:
        return f">{100 - step:.{digits}f}%"
    if share > 0 and shown < step / 2:
        return f"<{step:.{digits}f}%"
    return f"{shown:.{digits}f}%"
