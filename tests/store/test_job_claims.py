"""Job claims (ledger.store.jobs.job_claims, migration 0009): a job a server process works out
itself, claimed in the ledger so that every process answers the same state and progress,
a second ask joins the job, and a claim whose owner died does not hold for ever."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine, update

from ledger.store import db
from ledger.store.jobs import job_claims
from ledger.store.jobs.analyses import Head
from ledger.store.jobs.jobqueue import JobKey
from ledger.store.models import JOB_CLAIMS


def _key(match_id: int, at: Head, samples: int = 200) -> JobKey:
    return JobKey("knowledge", match_id, samples, at.last_seq, at.hash, "v1")


def _claim(engine: Engine, key: JobKey, owner: str) -> job_claims.Claim | None:
    with db.writing(engine) as s:
        got = job_claims.claim(db.write_connection(s), key, owner)
        s.commit()
    return got


def _write(engine: Engine, call: object, *args: object) -> None:
    with db.writing(engine) as s:
        call(db.write_connection(s), *args)  # type: ignore[operator]
        s.commit()


def _age(engine: Engine, key: JobKey, seconds: float) -> None:
    """The claim's last heartbeat ``seconds`` ago (its owner stopped beating then)."""
    with db.writing(engine) as s:
        db.write_connection(s).execute(update(JOB_CLAIMS).where(JOB_CLAIMS.c.key == key.name)
                                       .values(beat=job_claims.now()
                                               - timedelta(seconds=seconds)))
        s.commit()


def _standing(engine: Engine, key: JobKey) -> job_claims.Claim | None:
    with engine.connect() as c:
        return job_claims.standing(c, key)


def test_a_second_claim_joins_the_first_and_reads_its_progress(
        stored: tuple[Engine, int, Head]) -> None:
    engine, mid, at = stored
    key = _key(mid, at)
    assert _claim(engine, key, "a") is None
    theirs = _claim(engine, key, "b")
    assert theirs is not None and theirs.owner == "a" and theirs.state == "queued"
    _write(engine, job_claims.beat, "a", {key.name: ("running", 3, 7)})
    _write(engine, job_claims.beat, "b", {key.name: ("running", 6, 7)})  # not b's: ignored
    got = _standing(engine, key)
    assert got is not None and (got.owner, got.state, got.done, got.total) == \
        ("a", "running", 3, 7)
    with engine.connect() as c:
        assert list(job_claims.of_match(c, "knowledge", mid)) == [key]
        assert job_claims.of_match(c, "deal", mid) == {}


def test_a_claim_whose_owner_stopped_beating_is_taken_over(
        stored: tuple[Engine, int, Head]) -> None:
    engine, mid, at = stored
    key = _key(mid, at)
    assert _claim(engine, key, "dead") is None
    _age(engine, key, job_claims.LEASE - 5)
    assert _standing(engine, key) is not None  # inside the lease: still holds
    _age(engine, key, job_claims.LEASE + 1)
    assert _standing(engine, key) is None      # read as none: nobody waits for it
    assert _claim(engine, key, "alive") is None
    got = _standing(engine, key)
    assert got is not None and got.owner == "alive" and (got.done, got.total) == (0, 0)
    _write(engine, job_claims.beat, "dead", {key.name: ("running", 9, 9)})  # back: too late
    got = _standing(engine, key)
    assert got is not None and got.owner == "alive" and got.done == 0


def test_a_failure_stands_then_a_new_ask_tries_again(stored: tuple[Engine, int, Head]) -> None:
    engine, mid, at = stored
    key = _key(mid, at)
    assert _claim(engine, key, "a") is None
    _write(engine, job_claims.failed, key, "a", "no room")
    _age(engine, key, job_claims.LEASE + 1)  # a failure is not a dead owner
    theirs = _claim(engine, key, "b")
    assert theirs is not None and (theirs.state, theirs.error) == ("failed", "no room")
    _age(engine, key, job_claims.RETRY_AFTER + 1)
    assert _standing(engine, key) is None
    assert _claim(engine, key, "b") is None


def test_a_finished_or_released_claim_goes(stored: tuple[Engine, int, Head]) -> None:
    engine, mid, at = stored
    done, dropped, other = _key(mid, at), _key(mid, at, 50), _key(mid, at, 60)
    for key in (done, dropped, other):
        assert _claim(engine, key, "a") is None
    _write(engine, job_claims.finished, done)
    _write(engine, job_claims.release, "a", [dropped.name])
    assert _standing(engine, done) is None and _standing(engine, dropped) is None
    assert _standing(engine, other) is not None
    with db.writing(engine) as s:
        assert job_claims.release(db.write_connection(s), "a") == 1
        s.commit()
    assert _standing(engine, other) is None
