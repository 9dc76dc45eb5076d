"""The end of a deal and of a match: who won, what they score, who leads next."""

from __future__ import annotations

from ledger.engine.state import DealResult, State
from ledger.events import DealEndClaimed, DealScored, Event, MatchEnded
from ledger.findings import Finding, finding
from ledger.rules.base import BlockView, DealRecap, Rules
from ledger.tiles import pips_of, tiles_of


def round_to_five(points: int) -> int:
    """Fives: a remainder of 1 or 2 rounds down, 3 or 4 up (7 -> 5, 8 -> 10)."""
    rest = points % 5
    return points - rest if rest <= 2 else points + 5 - rest


def hands_known(st: State, seats: tuple[int, ...] | range) -> bool:
    return all(st.hidden[s] == 0 for s in seats)


def score_deal(st: State, index: int | None, claim: DealEndClaimed | None,
               out: list[Event], findings: list[Finding]) -> None:
    """Score the deal that just ended, if the hands it needs are known (else use the claim)."""
    rules = st.rules
    result: DealResult | None = None
    if st.over == "out":
        winner = st.last_player
        assert winner is not None
        losers = rules.losers_of(winner)
        if hands_known(st, losers):
            result = _result("out", winner, losers, st)
    elif hands_known(st, range(rules.seats)):
        view = BlockView(tuple(tuple(tiles_of(h)) for h in st.hands), st.leader or 0, rules)
        winner = rules.block_winner(view)
        if winner is None:
            result = DealResult("tie", None, 0)
        else:
            result = _result("block", winner, rules.losers_of(winner), st)
    if result is None:
        if claim is None:
            if index is None:
                return  # wait: a reveal or a claim may still come
            findings.append(finding(index, "warning", "deal-unscored",
                                    "deal {deal} cannot be scored: hands stay hidden and the "
                                    "record claims no result", deal=st.deal + 1))
            result = DealResult(st.over or "block", st.last_player if st.over == "out" else None, 0)
        else:
            findings.append(finding(index, "warning", "points-from-record",
                                    "deal {deal}: hands stay hidden, so its result is taken "
                                    "from the record", deal=st.deal + 1))
            result = DealResult(claim.result, claim.winner, claim.points or 0)
    _record(st, result, out)


def _result(kind: str, winner: int, losers: tuple[int, ...], st: State) -> DealResult:
    points = sum(pips_of(st.hands[s]) for s in losers)
    if st.rules.fives:
        points = round_to_five(points)
    return DealResult(kind, winner, points)


def _record(st: State, result: DealResult, out: list[Event]) -> None:
    rules = st.rules
    st.pending = False
    st.last_result = result
    if result.winner is not None:
        st.scores[rules.side_of(result.winner)] += result.points
    pips = tuple(None if st.hidden[s] else pips_of(st.hands[s]) for s in range(rules.seats))
    out.append(DealScored(deal=st.deal, result=result.result,  # type: ignore[arg-type]
                          winner=result.winner, points=result.points,
                          scores=tuple(st.scores), leader=st.leader, pips=pips))
    st.recap = DealRecap(st.leader if st.leader is not None else 0, st.last_player,
                         result.result, result.winner)
    _check_target(st, result, out)


def _check_target(st: State, result: DealResult, out: list[Event]) -> None:
    rules = st.rules
    if rules.target == 0:
        if result.winner is not None:
            end_match(st, rules.side_of(result.winner), "one-round", out)
        return
    top = max(st.scores)
    if top >= rules.target and st.scores.count(top) == 1:
        end_match(st, st.scores.index(top), "target", out)


def end_match(st: State, side: int | None, reason: str, out: list[Event]) -> None:
    st.phase = "ended"
    st.winner = None if side is None else st.rules.side_seat(side)
    st.end_reason = reason
    out.append(MatchEnded(winner=st.winner, scores=tuple(st.scores), reason=reason))


def resign_winner(rules: Rules, scores: list[int], seat: int) -> int | None:
    """A resigning side loses: with two sides the other wins; with more, the richest other."""
    loser = rules.side_of(seat)
    others = [s for s in range(rules.sides) if s != loser]
    if len(others) == 1:
        return others[0]
    top = max(scores[s] for s in others)
    best = [s for s in others if scores[s] == top]
    return best[0] if len(best) == 1 else None
