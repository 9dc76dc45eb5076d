"""The handles on the ledger the app holds and passes back (an engine, a session, a
connection) and how it opens them.

They are SQLAlchemy's types, named here so that ``web/`` can hold them without
importing SQLAlchemy: it opens the ledger here (``open_db``, the sessions of
``ledger.store.db``) and hands them to the store's read and write functions, and never
uses them to write SQL of its own.
"""

from __future__ import annotations

from sqlalchemy import Engine as Engine
from sqlalchemy.engine import Connection as Connection
from sqlmodel import Session as Session

from ledger.store.db import APP_NAME, ENV_VAR, explain, open_db, read_session, write_session

__all__ = ["APP_NAME", "ENV_VAR", "Connection", "Engine", "Session", "explain", "open_db",
           "read_session", "write_session"]
