"""Read models: the score sheet's deal rows, match summaries and per-player totals.

All three are computed from a match's derived events (what the rules said)
by ``compute`` (``ledger.store.pages.computed``: no database); the importer, live
recording and ``rebuild`` all go through it, so a rebuild gives the same rows
as the writes did. Player totals are sums of each match's contribution: a write
adds its match's contribution (or the change of it), a rebuild sums them again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, or_, select, text, update
from sqlalchemy.engine import Connection

from ledger.corrections import UNDO, standing_rows
from ledger.events import Event
from ledger.store.log.mapper import Header, event_of
from ledger.store.models import DEAL_ROWS, EVENTS, MATCHES, READ_MODELS, SUMMARIES
from ledger.store.pages.computed import (
    TOTALS,
    ReadModel,
    compute,
    contributions,
    rules_for,
    rules_of,
)

__all__ = ["TOTALS", "ReadModel", "add_totals", "compute", "dump", "insert_model", "load",
           "rebuild", "replace_model", "rules_for", "rules_of", "stored"]

# --- writing -------------------------------------------------------------------------

# Raw SQL on purpose: one upsert text both SQLite and PostgreSQL run as it is (Core's
# on_conflict_do_update is per dialect), the same text the importer sends through the driver.
_UPSERT = text(
    "INSERT INTO player_totals (name, " + ", ".join(TOTALS) + ") VALUES (:name, "
    + ", ".join(f":{t}" for t in TOTALS) + ") ON CONFLICT (name) DO UPDATE SET "
    + ", ".join(f"{t} = player_totals.{t} + excluded.{t}" for t in TOTALS))


def add_totals(conn: Connection, totals: Mapping[str, Counter[str]]) -> None:
    """Add contributions (names in order, so concurrent writers lock rows alike)."""
    rows = [{"name": name, **{t: c[t] for t in TOTALS}} for name, c in sorted(totals.items())
            if any(c[t] for t in TOTALS)]
    if rows:
        conn.execute(_UPSERT, rows)


def insert_model(conn: Connection, model: ReadModel) -> None:
    """A new match's read model."""
    conn.execute(insert(SUMMARIES), [model.summary])
    if model.deals:
        conn.execute(insert(DEAL_ROWS), model.deals)
    add_totals(conn, model.totals)


# Built once: a live append moves its match's summary every time (SQLAlchemy builds and
# keys a statement per call otherwise, a good part of an append in the writer's thread).
_UPDATE_SUMMARY = (update(SUMMARIES).where(SUMMARIES.c.match_id == bindparam("new_match_id"))
                   .values({c.name: bindparam(f"new_{c.name}") for c in SUMMARIES.c
                            if c.name != "match_id"}))


def replace_model(conn: Connection, old: ReadModel | None, new: ReadModel) -> None:
    """Move a match's read model from ``old`` to ``new`` (live recording)."""
    if old is None:
        insert_model(conn, new)
        return
    conn.execute(_UPDATE_SUMMARY, {f"new_{k}": v for k, v in new.summary.items()})
    # A deal row whose scoring was taken back (an undo) goes; its deal may be scored anew.
    seqs = {d["deal"]: d["seq"] for d in new.deals}
    gone = [d["deal"] for d in old.deals if seqs.get(d["deal"]) != d["seq"]]
    if gone:
        conn.execute(delete(DEAL_ROWS).where(DEAL_ROWS.c.match_id == new.match_id,
                                             DEAL_ROWS.c.deal.in_(gone)))
    known = {d["deal"] for d in old.deals} - set(gone)
    fresh = [d for d in new.deals if d["deal"] not in known]
    if fresh:
        conn.execute(insert(DEAL_ROWS), fresh)
    delta: dict[str, Counter[str]] = {}
    for name in set(old.totals) | set(new.totals):
        c: Counter[str] = Counter()
        for t in TOTALS:
            c[t] = new.totals.get(name, Counter())[t] - old.totals.get(name, Counter())[t]
        delta[name] = c
    add_totals(conn, delta)


# --- reading back from the events ----------------------------------------------------


def load(conn: Connection, match_id: int) -> ReadModel | None:
    """A match's read model computed from its events as stored now (None: no events)."""
    m = conn.execute(select(MATCHES).where(MATCHES.c.id == match_id)).one_or_none()
    if m is None:
        return None
    return _from_events(conn, m)


def _from_events(conn: Connection, m: Any) -> ReadModel | None:
    header = Header.of_row(m)
    stats = conn.execute(
        select(EVENTS.c.seq, EVENTS.c.hash).where(EVENTS.c.match_id == m.id)
        .order_by(EVENTS.c.seq.desc()).limit(1)).one_or_none()
    if stats is None:
        return None
    count = conn.execute(
        select(func.count()).select_from(EVENTS)
        .where(EVENTS.c.match_id == m.id, EVENTS.c.kind != "derived")).scalar_one()
    derived = standing_derived(conn, m.id, len(header.seats))
    return compute(m.id, header, m.ok, count, stats.seq, stats.hash, derived)


def standing_derived(conn: Connection, match_id: int, seats: int) -> list[tuple[int, Event]]:
    """The match's derived events ``(seq, event)`` that stand (what the read model sums)."""
    # The undos too: what the rules derived from an event taken back does not count.
    return [(r.seq, ev) for r in standing_rows(list(conn.execute(
        select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
               EVENTS.c.payload)
        .where(EVENTS.c.match_id == match_id,
               or_(EVENTS.c.kind == "derived", EVENTS.c.type == UNDO))
        .order_by(EVENTS.c.seq))))
        if r.kind == "derived" and (ev := event_of(r.kind, r.payload, seats)) is not None]


def stored(conn: Connection, match_id: int, header: Header, ok: bool) -> ReadModel | None:
    """The read model rows as they are in the tables (to compute a change against)."""
    s = conn.execute(select(SUMMARIES).where(SUMMARIES.c.match_id == match_id)).one_or_none()
    if s is None:
        return None
    summary = dict(s._mapping)
    deals = [dict(r._mapping) for r in conn.execute(
        select(DEAL_ROWS).where(DEAL_ROWS.c.match_id == match_id).order_by(DEAL_ROWS.c.deal))]
    rules = rules_of(header)
    side_of = rules.side_of if rules is not None else (lambda s: s)
    model = ReadModel(match_id, summary, deals)
    model.totals = contributions(header.seats, side_of, summary, deals, ok)
    return model


def rebuild(conn: Connection, progress: Any = None) -> int:
    """Drop every read model and compute it again from the events; the number of matches."""
    for tbl in reversed(READ_MODELS):
        conn.execute(delete(tbl))
    totals: dict[str, Counter[str]] = {}
    count = 0
    ids = [r.id for r in conn.execute(select(MATCHES.c.id).order_by(MATCHES.c.id))]
    for match_id in ids:
        m = conn.execute(select(MATCHES).where(MATCHES.c.id == match_id)).one()
        model = _from_events(conn, m)
        if model is not None:
            conn.execute(insert(SUMMARIES), [model.summary])
            if model.deals:
                conn.execute(insert(DEAL_ROWS), model.deals)
            for name, c in model.totals.items():
                totals.setdefault(name, Counter()).update(c)
        count += 1
        if progress is not None:
            progress(1)
    add_totals(conn, {n: c for n, c in totals.items()})
    return count


def dump(conn: Connection) -> dict[str, list[tuple[Any, ...]]]:
    """Every read-model row in a stable order (to compare two states of the ledger)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for tbl in READ_MODELS:
        keys = list(tbl.primary_key.columns)
        out[tbl.name] = [tuple(r) for r in conn.execute(select(tbl).order_by(*keys))]
    return out
