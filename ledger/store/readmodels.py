"""Read models: the score sheet's deal rows, match summaries and per-player totals.

All three are computed from a match's derived events (what the rules said)
by ``compute``; the importer, live recording and ``rebuild`` all go through
it, so a rebuild gives the same rows as the writes did. Player totals are
sums of each match's contribution: a write adds its match's contribution (or
the change of it), a rebuild sums them again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import delete, insert, or_, select, text, update
from sqlalchemy.engine import Connection

from ledger.corrections import UNDO, standing_rows
from ledger.events import DealScored, Event, FivesScored, MatchEnded
from ledger.rules import RulesError, make_rules
from ledger.rules.base import Rules
from ledger.store.hashing import canonical
from ledger.store.mapper import Header, event_of, text_safe
from ledger.store.models import DEAL_ROWS, EVENTS, MATCHES, READ_MODELS, SUMMARIES

TOTALS = ("matches", "complete", "wins", "deals", "deal_wins", "points", "faulty")


@lru_cache(maxsize=256)
def rules_for(preset: str, seats: int, options_json: str) -> Rules | None:
    """A stored table's rules (None: they cannot be set up), built once per table."""
    import orjson

    try:
        return make_rules(preset, seats, orjson.loads(options_json))
    except RulesError:
        return None


def rules_of(header: Header) -> Rules | None:
    return rules_for(header.preset, len(header.seats), canonical(header.options))


@dataclass
class ReadModel:
    match_id: int
    summary: dict[str, Any]
    deals: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, Counter[str]] = field(default_factory=dict)

    def for_match(self, match_id: int) -> ReadModel:
        """The same model for the id the database gave (computed before it had one)."""
        return ReadModel(match_id, {**self.summary, "match_id": match_id},
                         [{**d, "match_id": match_id} for d in self.deals], self.totals)


def compute(match_id: int, header: Header, ok: bool, events: int, last_seq: int,
            head_hash: bytes, derived: Iterable[tuple[int, Event]]) -> ReadModel:
    """The read model of one match from its derived events ``(seq, event)`` in order."""
    rules = rules_of(header)
    seats = len(header.seats)
    side_of = rules.side_of if rules is not None else (lambda s: s)
    scores: list[int] | None = [0] * rules.sides if rules is not None else None
    fives: dict[int, list[int]] = {}
    deals: list[dict[str, Any]] = []
    winner: int | None = None
    reason: str | None = None
    complete = False
    for seq, ev in derived:
        if isinstance(ev, FivesScored):
            fives.setdefault(ev.deal, [0] * seats)[ev.seat] += ev.points
            if scores is not None:
                scores[side_of(ev.seat)] += ev.points
        elif isinstance(ev, DealScored):
            scores = list(ev.scores)  # these already count the deal's fives
            deals.append({"match_id": match_id, "deal": ev.deal, "seq": seq,
                          "result": ev.result, "winner": ev.winner, "points": ev.points,
                          "scores": list(ev.scores), "fives": fives.get(ev.deal, [0] * seats),
                          "leader": ev.leader, "pips": list(ev.pips)})
        elif isinstance(ev, MatchEnded):
            scores = list(ev.scores)
            winner, reason, complete = ev.winner, ev.reason, True
    summary = {"match_id": match_id, "events": events, "last_seq": last_seq,
               "head_hash": head_hash, "deals": len(deals), "scores": scores,
               "winner": winner, "complete": complete, "end_reason": reason}
    model = ReadModel(match_id, summary, deals)
    model.totals = _contributions(header.seats, side_of, summary, deals, ok)
    return model


def _contributions(seats: Sequence[str], side_of: Any, summary: Mapping[str, Any],
                   deals: Sequence[Mapping[str, Any]], ok: bool) -> dict[str, Counter[str]]:
    sides: dict[str, set[int]] = {}
    for seat, name in enumerate(seats):
        sides.setdefault(text_safe(name), set()).add(side_of(seat))
    scores = summary["scores"] or []
    won = summary["winner"]
    out: dict[str, Counter[str]] = {}
    for name, mine in sides.items():
        c: Counter[str] = Counter(matches=1)
        c["complete"] = int(summary["complete"])
        c["wins"] = int(summary["complete"] and won is not None and side_of(won) in mine)
        c["deals"] = len(deals)
        c["deal_wins"] = sum(1 for d in deals
                             if d["winner"] is not None and side_of(d["winner"]) in mine)
        c["points"] = sum(scores[s] for s in mine if s < len(scores))
        c["faulty"] = int(not ok)
        out[name] = c
    return out


# --- writing -------------------------------------------------------------------------

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


def replace_model(conn: Connection, old: ReadModel | None, new: ReadModel) -> None:
    """Move a match's read model from ``old`` to ``new`` (live recording)."""
    if old is None:
        insert_model(conn, new)
        return
    conn.execute(update(SUMMARIES).where(SUMMARIES.c.match_id == new.match_id)
                 .values(**{k: v for k, v in new.summary.items() if k != "match_id"}))
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
        text("SELECT count(*) FROM events WHERE match_id = :m AND kind <> 'derived'"),
        {"m": m.id}).scalar_one()
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
    model.totals = _contributions(header.seats, side_of, summary, deals, ok)
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
