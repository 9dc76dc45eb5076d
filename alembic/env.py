"""Alembic environment of the ledger.

``domino-ledger db upgrade`` hands over its engine in ``config.attributes``;
the plain ``alembic`` command builds one from sqlalchemy.url, DOMINO_LEDGER_DB
or the default SQLite file, the same way the application does.
"""

from __future__ import annotations

from alembic import context

from ledger.store import models
from ledger.store.db import make_engine

config = context.config
target_metadata = models.SQLModel.metadata


def run() -> None:
    engine = config.attributes.get("engine")
    owned = engine is None
    if engine is None:
        engine = make_engine(config.get_main_option("sqlalchemy.url") or None)
    try:
        with engine.begin() as conn:
            context.configure(connection=conn, target_metadata=target_metadata,
                              render_as_batch=conn.dialect.name == "sqlite",
                              compare_type=True)
            context.run_migrations()
    finally:
        if owned:
            engine.dispose()


if context.is_offline_mode():
    raise SystemExit("the ledger's migrations run online only: give a database URL")
run()
