"""The full-screen game (``zloutch play``, ``zloutch table``), built with Textual."""

from zloutch.adapters.tui.app import AppConfig, ZloutchApp

__all__ = ["AppConfig", "ZloutchApp"]
