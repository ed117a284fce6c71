"""Alembic migrations of the server's database (run by ``zloutch.app.gamedb.migrate``)."""
