"""Alembic migrations of the server's database (run by ``zloutch.server.gamedb.migrate``)."""
