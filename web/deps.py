"""What routes get from the app: the ledger's engine and database sessions (in one place).

Reads use ``get_session``; routes that write use ``get_write_session``, whose
transactions take SQLite's write lock at BEGIN (the store's write functions
ask for that by themselves too, so either works for them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import Engine
from sqlmodel import Session

from ledger.store.db import read_session, write_session


def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def get_session(engine: Annotated[Engine, Depends(get_engine)]) -> Iterator[Session]:
    with read_session(engine) as session:
        yield session


def get_write_session(engine: Annotated[Engine, Depends(get_engine)]) -> Iterator[Session]:
    with write_session(engine) as session:
        yield session


ReadSession = Annotated[Session, Depends(get_session)]
WriteSession = Annotated[Session, Depends(get_write_session)]
