"""Where the ledger lives: the database URL, the engine, migrations and sessions.

The URL comes from ``--db``, else ``DOMINO_LEDGER_DB``, else a SQLite file in
the user's data directory. SQLite runs in WAL mode with foreign keys on, and
write transactions start with ``BEGIN IMMEDIATE`` so that two writers queue
for the lock instead of failing when one upgrades a read. An embedded SQLite
database is brought up to date on open; a server database is migrated only by
``domino-ledger db upgrade`` (several apps may share it).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import platformdirs
from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.engine import URL, Connection, make_url
from sqlmodel import Session

from ledger.store.errors import (
    CONNECTION_LOST,
    SchemaOutOfDate,
    StoreError,
    is_connection_lost,
)
from ledger.store.log.mapper import json_text

if TYPE_CHECKING:
    from alembic.config import Config

ENV_VAR = "DOMINO_LEDGER_DB"
APP_NAME = "domino-ledger"
# The migrations live at the top of the checkout, next to alembic.ini.
ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "alembic"


def default_url() -> str:
    folder = Path(platformdirs.user_data_dir(APP_NAME))
    return f"sqlite:///{folder / 'ledger.db'}"


def resolve_url(url: str | None = None) -> str:
    return url or os.environ.get(ENV_VAR) or default_url()


def is_sqlite(bind: Engine | Connection) -> bool:
    return bind.dialect.name == "sqlite"


def make_engine(url: str | None = None) -> Engine:
    """An engine for the URL (the parent folder of a SQLite file is created)."""
    url = resolve_url(url)
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            folder = Path(database).expanduser().parent
            if url == default_url():
                folder.mkdir(parents=True, exist_ok=True)
            elif not folder.is_dir():
                raise StoreError(f"cannot open the ledger {database}: the folder {folder} "
                                 "does not exist")
        engine = create_engine(url, json_serializer=json_text, json_deserializer=orjson.loads,
                               connect_args={"timeout": 60})
        _sqlite_setup(engine, in_memory=not database or database == ":memory:")
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() != "psycopg":
        raise StoreError(f"PostgreSQL is reached through psycopg 3: write the URL as "
                         f"postgresql+psycopg://..., not {parsed.drivername}://...")
    return create_engine(url, json_serializer=json_text, json_deserializer=orjson.loads,
                         pool_pre_ping=True)


URL_FORMS = "sqlite:///PATH or postgresql+psycopg://USER@HOST/DATABASE"
_DRIVERS = {"sqlite": ("pysqlite",), "postgresql": ("psycopg", "psycopg2")}


def parse_url(url: str) -> URL:
    """The URL of a ledger SQLite or PostgreSQL can hold; StoreError naming it otherwise.

    Said here in one line: SQLAlchemy would go on to import a driver for any scheme and
    fail with a traceback about a missing module.
    """
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"{_shown(url)} is not a database URL: write {URL_FORMS}") from None
    backend = parsed.get_backend_name()
    if backend not in _DRIVERS or parsed.get_driver_name() not in _DRIVERS[backend]:
        raise StoreError(f"the database URL {parsed.render_as_string(hide_password=True)} "
                         f"names {parsed.drivername}, which the ledger does not run on: "
                         f"write {URL_FORMS}")
    return parsed


def _shown(url: str) -> str:
    """A URL as it may be printed: a password (``user:secret@``) hidden."""
    import re

    return repr(re.sub(r":[^/:@]*@", ":***@", url))


def _sqlite_setup(engine: Engine, in_memory: bool) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide where transactions begin.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        if not in_memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=60000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        mode = "IMMEDIATE" if conn.get_execution_options().get("ledger_write") else "DEFERRED"
        conn.exec_driver_sql(f"BEGIN {mode}")


def explain(exc: BaseException) -> str:
    """A database error as one plain sentence (no SQLAlchemy boilerplate)."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(exc, StoreError):
        return exc.message
    if is_connection_lost(exc):  # never SQLAlchemy's "Can't reconnect until invalid..."
        return CONNECTION_LOST
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        text = " ".join(str(exc.orig).split())
        return f"the database refused: {text}"
    return " ".join(str(exc).split())


# --- sessions --------------------------------------------------------------------


def read_session(engine: Engine) -> Session:
    return Session(engine, expire_on_commit=False)


def write_session(engine: Engine) -> Session:
    """A session whose transactions take the write lock first (SQLite's BEGIN IMMEDIATE)."""
    return Session(engine.execution_options(ledger_write=True), expire_on_commit=False)


def write_connection(session: Session) -> Connection:
    """The session's connection for a write transaction.

    A transaction started here takes SQLite's write lock at BEGIN, whatever
    session the caller made; one already open is used as it is.
    """
    if session.in_transaction():
        return session.connection()
    return session.connection(execution_options={"ledger_write": True})


# Pages the write-ahead log of a bulk write may grow to before it is copied into the
# file (SQLite's default: 1,000). Each copy (checkpoint) waits for the disk twice; an
# import of 50 MB paid that a dozen times. Stored matches are as safe either way: a
# committed transaction is in the log, and a crash leaves the log to the next opener.
BULK_CHECKPOINT = 16_384


def bulk_writes(session: Session) -> None:
    """Set up the session's connection for a long run of write transactions (an import)."""
    conn = write_connection(session)
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"PRAGMA wal_autocheckpoint={BULK_CHECKPOINT}")


@contextmanager
def writing(engine: Engine) -> Iterator[Session]:
    with write_session(engine) as session:
        yield session


# --- migrations ------------------------------------------------------------------


# Alembic loads only to change a schema (a third of a command's start-up): whether a
# ledger is up to date is read without it.


def alembic_config(engine: Engine | None = None) -> Config:
    from alembic.config import Config

    if not (MIGRATIONS / "env.py").is_file():
        raise StoreError(f"the migrations are not where the ledger expects them ({MIGRATIONS}); "
                         "run domino-ledger from a checkout installed with pip install -e")
    cfg = Config(str(ROOT / "alembic.ini") if (ROOT / "alembic.ini").is_file() else None)
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if engine is not None:
        cfg.attributes["engine"] = engine
    return cfg


_REVISION = re.compile(r"""^revision = ["'](\w+)["']""", re.M)
_DOWN = re.compile(r"""^down_revision = (?:["'](\w+)["']|None)""", re.M)


def head_revision() -> str | None:
    """The newest migration: the one no other follows (as Alembic's script directory
    says, which is asked if the files do not name exactly one such)."""
    revisions: set[str] = set()
    follow: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        rev, down = _REVISION.search(text), _DOWN.search(text)
        if rev is None or down is None:
            return _alembic_head()
        revisions.add(rev.group(1))
        if down.group(1):
            follow.add(down.group(1))
    heads = revisions - follow
    return heads.pop() if len(heads) == 1 else _alembic_head()


def _alembic_head() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The ledger's schema revision (None: no schema yet), as Alembic keeps it."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        found = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all()
        if len(found) <= 1:
            return str(found[0]) if found else None
        from alembic.runtime.migration import MigrationContext

        return MigrationContext.configure(conn).get_current_revision()  # says what is wrong


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    command.downgrade(alembic_config(engine), revision)


def open_db(url: str | None = None, migrate: bool | None = None) -> Engine:
    """The engine of a ledger that is up to date.

    ``migrate=None`` upgrades an embedded SQLite database and only checks a
    server database (its schema is changed by ``domino-ledger db upgrade``).
    """
    engine = make_engine(url)
    if migrate is None:
        migrate = is_sqlite(engine)
    current = current_revision(engine)
    head = head_revision()
    if current != head:
        if not migrate:
            engine.dispose()
            where = engine.url.render_as_string(hide_password=True)
            raise SchemaOutOfDate(f"the ledger at {where} is at schema revision "
                                  f"{current or 'none'}, not {head}: run `domino-ledger db "
                                  f"upgrade --db {shlex.quote(where)}`")
        upgrade(engine)
    return engine
