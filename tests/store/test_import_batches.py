"""Import batches: several matches per transaction, a savepoint per match, reports only
once their batch is committed (ledger.store.imports.importer.store_all)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine, event, select
from sqlalchemy.exc import DBAPIError

from ledger.formats.reader import ReadError
from ledger.store import db
from ledger.store.imports import importer
from ledger.store.imports.importer import Imported, store_all
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS, MATCHES
from tests.store.helpers import prepared


def _stored_hashes(engine: Engine) -> set[bytes]:
    with engine.connect() as c:
        return {bytes(h) for h in c.execute(select(MATCHES.c.content_hash)).scalars()}


def test_a_match_that_fails_rolls_back_alone_and_the_ones_before_it_are_kept(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    good = prepared(corpus, 5)
    # Its last row left out: the head then names an event that is not there, which the
    # database refuses (match_heads trigger) after the match's row and rows went in.
    rows = orjson.loads(good[3].rows_json)
    broken = replace(good[3], rows_json=orjson.dumps(rows[:-1]).decode())
    reported: list[Imported] = []
    with db.writing(engine) as session:
        with pytest.raises(DBAPIError, match="head"):
            for got in store_all(session, [*good[:3], broken, good[4]]):
                reported.append(got)
        assert [g.new for g in reported] == [True] * 3
        assert _stored_hashes(engine) == {p.content_hash for p in good[:3]}
        # The same session goes on: the failed match left nothing in its way.
        again = list(store_all(session, good))
    assert [g.new for g in again] == [False] * 3 + [True] * 2
    assert [g.id for g in again[:3]] == [g.id for g in reported]
    assert _stored_hashes(engine) == {p.content_hash for p in good}
    with engine.connect() as c:
        ids = [g.id for g in again]
        assert sorted(set(c.execute(select(EVENTS.c.match_id)).scalars())) == sorted(ids)
        assert all(v.ok for v in verify(c))


def test_a_match_is_reported_only_once_it_is_committed(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    good = prepared(corpus, 6)
    twice = [*good[:3], good[0], *good[3:]]  # a repeat within one batch is found stored
    seen: list[Imported] = []
    with db.writing(engine) as session:
        for got in store_all(session, twice):
            seen.append(got)
            # Another connection sees every match reported so far: they are committed.
            assert _stored_hashes(engine) >= {p.content_hash for p in twice[:len(seen)]}
    assert [g.new for g in seen] == [True] * 3 + [False] + [True] * 3
    assert seen[3].id == seen[0].id


def test_a_batch_goes_on_across_files_and_each_file_is_reported_in_its_place(
        engine: Engine, corpus: list[dict[str, Any]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "BATCH_SECONDS", 3600.0)  # batches by count only
    monkeypatch.setattr(importer, "BATCH_MATCHES", 4)
    paths = []
    for n, match in enumerate(corpus[:6]):
        paths.append(tmp_path / f"{n}.json")
        paths[-1].write_bytes(orjson.dumps(match))
    paths.insert(3, tmp_path / "missing.json")
    commits: list[object] = []
    event.listen(engine, "commit", commits.append)
    got: list[tuple[str, object]] = []
    with db.writing(engine) as session:
        for path, items in importer.import_files(session, [str(p) for p in paths], 0):
            try:
                for item in items:
                    got.append((Path(path).name, item.new))
                    # Reported once committed, though its file ended before the batch did.
                    assert len(_stored_hashes(engine)) >= sum(g[1] is True for g in got)
            except ReadError as exc:
                got.append((Path(path).name, exc.template))
    assert got == [("0.json", True), ("1.json", True), ("2.json", True),
                   ("missing.json", "{path}: cannot open: {error}"), ("3.json", True),
                   ("4.json", True), ("5.json", True)]
    # Four matches a batch, whatever the files: two commits for six one-match files.
    assert len(commits) == 2 and len(_stored_hashes(engine)) == 6
