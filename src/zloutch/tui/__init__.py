"""The full-screen game (``zloutch play``, ``zloutch table``), built with Textual."""

from zloutch.tui.app import DEFAULT_PACE, AppConfig, ZloutchApp

__all__ = ["DEFAULT_PACE", "AppConfig", "ZloutchApp"]
