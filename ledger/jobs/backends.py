"""Which analyses backend an app gets: the PostgreSQL job queue when its ledger holds
one (ledger.jobs.queue), else the app's own worker processes (ledger.jobs.service).

Kept apart from both so that neither imports the other's module back.
"""

from __future__ import annotations

from ledger.jobs.service import ENV_BACKEND, AnalysisBackend, AnalysisJobs, Settings
from ledger.store.handles import Engine


def open_jobs(engine: Engine, settings: Settings | None = None) -> AnalysisBackend:
    """The job queue's backend on a PostgreSQL ledger that holds it (unless the settings
    say ``local``), else the app's own worker processes."""
    settings = settings or Settings.from_env()
    if settings.backend != "local" and engine.dialect.name == "postgresql":
        from ledger.jobs.queue import QueueJobs, has_queue  # pgqueuer: PostgreSQL only

        if has_queue(engine):
            return QueueJobs(engine, settings)
        if settings.backend == "queue":  # said at the server's start, in its log
            raise RuntimeError(f"{ENV_BACKEND}=queue: this ledger has no job queue (a "
                               "PostgreSQL ledger at schema 0008: domino-ledger db upgrade)")
    return AnalysisJobs(engine, settings)
