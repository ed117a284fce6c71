"""The web adapter: ``zloutch serve``, an ASGI server over the game service (``zloutch.server``).

``app.create_app`` builds the FastAPI application, ``hub`` keeps the sockets, the bots' timers
and the absent players, ``protocol`` writes the JSON messages (docs/server.md). FastAPI,
SQLAlchemy and uvicorn are imported only here, and only when the server starts.
"""
