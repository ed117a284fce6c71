"""Zloutch: the dice game 10,000 and its family, exactly."""

__version__ = "0.1.0"
