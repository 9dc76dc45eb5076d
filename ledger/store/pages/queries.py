"""Reading the ledger for people and pages: plain JSON-ready dicts, paged lists.

Hashes are shown as hex and times as ISO 8601 UTC (``...Z``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Text, bindparam, cast, func, select
from sqlalchemy.engine import Connection

from ledger.corrections import standing_rows
from ledger.formats.reader import MatchRecord, parse_match
from ledger.formats.values import searchable
from ledger.store.errors import MatchNotFound
from ledger.store.log.mapper import Header, match_object, reported
from ledger.store.models import DEAL_ROWS, EVENTS, MATCHES, PLAYER_TOTALS, SUMMARIES
from ledger.store.pages.matchlist import Filters, conditions

MAX_PAGE = 500


@dataclass(frozen=True, slots=True)
class Page:
    items: list[dict[str, Any]]
    total: int
    limit: int
    offset: int

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items, "total": self.total, "limit": self.limit,
                "offset": self.offset}


def iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat(timespec="microseconds") + "Z"


def _hex(value: bytes | None) -> str | None:
    return None if value is None else bytes(value).hex()


def _match_item(r: Any, fragments: bool = False) -> dict[str, Any]:
    """A match of a list as the API gives it; its JSON columns come as stored text, kept
    as is (``fragments``: orjson writes the text itself, for an answer written as JSON at
    once) or read."""
    seats = orjson.loads(r.seats)
    json = orjson.Fragment if fragments else orjson.loads
    winner = r.winner
    last_seq = r.last_seq
    return {
        "id": r.id, "origin": r.origin, "preset": r.preset, "seats": seats,
        "options": json(r.options), "source": None if r.source is None else json(r.source),
        "started_at": r.started_at, "status": r.status, "ok": r.ok, "errors": r.errors,
        "warnings": r.warnings, "imported_from": r.imported_from,
        "created_at": iso(r.created_at), "events": r.events or 0, "deals": r.deals or 0,
        "scores": None if r.scores is None else json(r.scores),
        "winner": winner, "winner_name": seats[winner] if winner is not None
        and 0 <= winner < len(seats) else None,
        "complete": bool(r.complete), "end_reason": r.end_reason,
        "next_seq": 0 if last_seq is None else last_seq + 1,
        "head_hash": _hex(r.head_hash),
    }


def _text(column: Any) -> Any:
    """A JSON column as its stored text (PostgreSQL's driver would read json into objects)."""
    return cast(column, Text).label(column.name)


# Built once: SQLAlchemy builds and keys a statement per call otherwise (a third of a
# 50-match page's time in the store), and the unfiltered list is the one most asked for.
_MATCH_SELECT = (
    select(MATCHES.c.id, MATCHES.c.origin, MATCHES.c.preset, _text(MATCHES.c.seats),
           _text(MATCHES.c.options), _text(MATCHES.c.source), MATCHES.c.started_at,
           MATCHES.c.status, MATCHES.c.ok, MATCHES.c.errors, MATCHES.c.warnings,
           MATCHES.c.imported_from, MATCHES.c.created_at, SUMMARIES.c.events,
           SUMMARIES.c.deals, _text(SUMMARIES.c.scores), SUMMARIES.c.winner,
           SUMMARIES.c.complete, SUMMARIES.c.end_reason, SUMMARIES.c.last_seq,
           SUMMARIES.c.head_hash)
    .select_from(MATCHES.outerjoin(SUMMARIES, SUMMARIES.c.match_id == MATCHES.c.id)))
_ALL_PAGE = (_MATCH_SELECT.order_by(MATCHES.c.id.desc())
             .limit(bindparam("limit")).offset(bindparam("offset")))
_ALL_COUNT = select(func.count()).select_from(MATCHES)


def list_matches(conn: Connection, *, preset: str | None = None, player: str | None = None,
                 status: str | None = None, ok: bool | None = None, origin: str | None = None,
                 limit: int = 50, offset: int = 0) -> Page:
    """Matches newest first, filtered (``player``: the exact name), one page of them
    with the total count (the matches page's conditions: ``ledger.store.pages.matchlist``)."""
    return _list(conn, Filters(table=preset, audit=_audit(ok), status=status, origin=origin),
                 player, limit, offset, fragments=False)


def list_matches_json(conn: Connection, *, preset: str | None = None,
                      player: str | None = None, status: str | None = None,
                      ok: bool | None = None, origin: str | None = None, limit: int = 50,
                      offset: int = 0) -> bytes:
    """``list_matches``'s page written as JSON, its JSON columns copied as stored."""
    page = _list(conn, Filters(table=preset, audit=_audit(ok), status=status, origin=origin),
                 player, limit, offset, fragments=True)
    return orjson.dumps(page.to_dict())


def _audit(ok: bool | None) -> str | None:
    return None if ok is None else "ok" if ok else "faulty"


def _list(conn: Connection, filters: Filters, player: str | None, limit: int, offset: int,
          fragments: bool) -> Page:
    limit = max(1, min(limit, MAX_PAGE))
    offset = max(0, offset)
    conds = conditions(conn, filters, None if player is None else [searchable(player)])
    if conds:
        total = conn.execute(select(func.count()).select_from(MATCHES).where(*conds)
                             ).scalar_one()
        rows = conn.execute(_MATCH_SELECT.where(*conds).order_by(MATCHES.c.id.desc())
                            .limit(limit).offset(offset))
    else:
        total = conn.execute(_ALL_COUNT).scalar_one()
        rows = conn.execute(_ALL_PAGE, {"limit": limit, "offset": offset})
    return Page([_match_item(r, fragments) for r in rows], int(total), limit, offset)


def get_match(conn: Connection, match_id: int) -> dict[str, Any]:
    """One match: header, status, audit findings, summary and score sheet."""
    r = conn.execute(_MATCH_SELECT.where(MATCHES.c.id == match_id)).one_or_none()
    if r is None:
        raise MatchNotFound(match_id)
    out = _match_item(r)
    # As the audit's report gives them: the phrase stored beside each is for wording.
    out["findings"] = [reported(f) for f in conn.execute(
        select(MATCHES.c.findings).where(MATCHES.c.id == match_id)).scalar_one()]
    out["score_sheet"] = score_sheet(conn, match_id)
    return out


def score_sheet(conn: Connection, match_id: int) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "match_id"} for r in conn.execute(
        select(DEAL_ROWS).where(DEAL_ROWS.c.match_id == match_id)
        .order_by(DEAL_ROWS.c.deal)).mappings()]


def events_of(conn: Connection, match_id: int, after: int = -1,
              limit: int | None = None) -> list[dict[str, Any]]:
    """A match's event rows in order (recorded, derived and unread alike)."""
    if conn.execute(select(MATCHES.c.id).where(MATCHES.c.id == match_id)).first() is None:
        raise MatchNotFound(match_id)
    q = (select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
                EVENTS.c.payload, EVENTS.c.recorded_at, EVENTS.c.prev_hash, EVENTS.c.hash,
                EVENTS.c.salt)
         .where(EVENTS.c.match_id == match_id, EVENTS.c.seq > after).order_by(EVENTS.c.seq))
    if limit is not None:
        q = q.limit(limit)
    return [{"seq": r.seq, "event": r.recorded_index, "kind": r.kind, "type": r.type,
             "payload": orjson.loads(r.payload), "recorded_at": iso(r.recorded_at),
             "prev_hash": _hex(r.prev_hash), "hash": _hex(r.hash),
             # What the hash needs besides the row (hashing.event_hash): redacted with
             # the payload (web/redact.py), or a hidden tile could be tried against it.
             "salt": None if r.salt is None else _hex(r.salt)} for r in conn.execute(q)]


def player_totals(conn: Connection, limit: int = 100, offset: int = 0) -> Page:
    limit = max(1, min(limit, MAX_PAGE))
    total = conn.execute(select(func.count()).select_from(PLAYER_TOTALS)).scalar_one()
    rows = conn.execute(select(PLAYER_TOTALS).order_by(PLAYER_TOTALS.c.wins.desc(),
                                                       PLAYER_TOTALS.c.name)
                        .limit(limit).offset(max(0, offset))).mappings()
    return Page([dict(r) for r in rows], int(total), limit, offset)


def counts(conn: Connection) -> Mapping[str, int]:
    """How much the ledger holds (for status lines and the home page)."""
    matches = conn.execute(select(func.count()).select_from(MATCHES)).scalar_one()
    events = conn.execute(select(func.count()).select_from(EVENTS)).scalar_one()
    faulty = conn.execute(select(func.count()).select_from(MATCHES)
                          .where(MATCHES.c.ok.is_(False))).scalar_one()
    return {"matches": int(matches), "events": int(events), "faulty": int(faulty)}


def stored_object(conn: Connection, match_id: int) -> dict[str, Any]:
    """Stored match ``match_id`` as the domino-match/1 object its recorded rows say
    (``mapper.match_object``): the corrected line (undos applied, corrections.py) and
    unread rows verbatim; ``MatchNotFound`` if there is none."""
    m = conn.execute(select(MATCHES).where(MATCHES.c.id == match_id)).one_or_none()
    if m is None:
        raise MatchNotFound(match_id)
    rows = standing_rows(list(conn.execute(
        select(EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type, EVENTS.c.payload)
        .where(EVENTS.c.match_id == match_id).order_by(EVENTS.c.seq))))
    return match_object(Header.of_row(m), [(r.kind, r.payload) for r in rows])


def record_of(conn: Connection, match_id: int) -> MatchRecord:
    """Stored match ``match_id`` read as its file would be (``stored_object``), so a stored
    match and its file audit, export and analyse alike; ``MatchNotFound`` if there is none."""
    return parse_match(stored_object(conn, match_id), path=f"match {match_id}")
