"""The handles on the ledger the app holds and passes back: an engine, a session, a
connection.

They are SQLAlchemy's types, named here so that ``web/`` can hold them without
importing SQLAlchemy: it gets them from ``ledger.store.db`` and hands them to the
store's read and write functions, and never uses them to write SQL of its own.
"""

from __future__ import annotations

from sqlalchemy import Engine as Engine
from sqlalchemy.engine import Connection as Connection
from sqlmodel import Session as Session

__all__ = ["Connection", "Engine", "Session"]
