"""The seat tests share the recording tests' browser pages (one context per device) and
the store suite's ledgers (``engine``: a fresh ledger on SQLite and on PostgreSQL)."""

from tests.record.conftest import pages  # noqa: F401
from tests.store.conftest import backend, engine, schemas, url  # noqa: F401
