"""The FastAPI app: the ledger's engine, the error handlers and the routers.

Kept small on purpose: each area adds its router with one include line.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from ledger.jobs.backends import open_jobs
from ledger.jobs.service import Settings
from ledger.store.handles import open_db
from ledger.store.read import QuickVersions
from ledger.store.write import Writer
from web import errors
from web.access import Access
from web.access import install as install_access
from web.db_faults import RetryReads
from web.deps import page_threads
from web.doors import Doors
from web.lang import LanguageCookie
from web.page_cache import PageCache
from web.routes import analysis, api, follow, pages, players, record, replay_frames, whatif


def create_app(db_url: str | None = None, analysis_settings: Settings | None = None,
               access: Access | None = None) -> FastAPI:
    """The app over the ledger at ``db_url`` (else $DOMINO_LEDGER_DB, else the default file).

    ``analysis_settings``: how deals are analysed (time limit, workers); else from the environment.
    ``access``: who may read and write (web.access); else open, as on a loopback address.
    """
    engine = open_db(db_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.page_threads = page_threads()  # made on the loop the app serves from
        app.state.analysis_jobs = open_jobs(engine, analysis_settings or Settings.from_env())
        try:
            yield
        finally:
            if app.state.quick_versions is not None:
                app.state.quick_versions.close()
            app.state.analysis_jobs.close()
            app.state.writer.close()
            engine.dispose()

    # /docs is served from local files by the pages, never from a CDN.
    app = FastAPI(title="domino-ledger", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.engine = engine
    app.state.quick_versions = QuickVersions.of(engine)  # what a kept page is keyed by
    app.state.writer = Writer(engine)  # the live API's appends, in turn (its thread: lazily)
    errors.install(app)
    # Pages and JSON go out gzipped (web.assets sends its own files precompressed, at 9).
    # Level 1, as nginx's default: on a replay page half the CPU of level 6 (0.19 against
    # 0.38 ms, a twelfth of the page's time) for 17 % more bytes (6.2 against 5.3 KB).
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=1)
    app.add_middleware(RetryReads)  # a read whose database connection was lost: once more
    app.add_middleware(PageCache)  # lists and match pages kept (compressed) while unchanged
    app.add_middleware(LanguageCookie)  # ?lang= is remembered; pages vary by language
    install_access(app, access or Access(), engine)  # keys, same-origin posts, trusted hosts
    app.add_middleware(Doors)  # first of all: text no route can take is refused at the door
    app.include_router(api.router)
    app.include_router(record.router)  # recording live at the table
    app.include_router(record.api)
    app.include_router(analysis.router)  # a deal's analysis for the replay's panel
    app.include_router(whatif.router)  # a match under another table's rules
    app.include_router(players.router)  # player statistics across the ledger
    app.include_router(replay_frames.router)  # a deal's replay steps, held by the browser
    app.include_router(follow.router)  # a live match followed as it is recorded (SSE)
    pages.install(app)  # the pages, the replay, the static files and /docs
    return app
