"""The end of a deal and of a match: who won, what they score, who leads next."""

from __future__ import annotations

from ledger.engine.state import DealResult, State
from ledger.events import DealEndClaimed, Event, MatchEnded, new_deal_scored
from ledger.findings import Finding, finding
from ledger.rules.base import BlockView, DealRecap, Rules
from ledger.tiles import pips_of, tiles_of


def round_to_five(points: int) -> int:
    """Fives: a remainder of 1 or 2 rounds down, 3 or 4 up (7 -> 5, 8 -> 10)."""
    rest = points % 5
    return points - rest if rest <= 2 else points + 5 - rest


def hands_known(st: State, seats: tuple[int, ...] | range) -> bool:
    return all(st.hidden[s] == 0 for s in seats)


# ``Rules.losers_of`` answers from the seat count, the teams and ``count_partner`` alone
# (and a Rules is frozen): its answers are kept by those, for every table that plays
# (2 to 4 seats), not worked out again at every deal.
_LOSERS: dict[tuple[int, bool, bool, int], tuple[int, ...]] = {}


def _losers(rules: Rules, winner: int) -> tuple[int, ...]:
    """``rules.losers_of(winner)``, looked up."""
    key = (rules.seats, rules.teams, rules.count_partner, winner)
    losers = _LOSERS.get(key)
    if losers is None or type(rules) is not Rules:
        losers = rules.losers_of(winner)
        if type(rules) is Rules and len(_LOSERS) < 256:
            _LOSERS[key] = losers
    return losers


def score_deal(st: State, index: int | None, claim: DealEndClaimed | None,
               out: list[Event], findings: list[Finding]) -> None:
    """Score the deal that just ended, if the hands it needs are known (else use the claim)."""
    rules = st.rules
    # Every seat's pips, counted once when every hand is known (the usual record).
    pips = None if any(st.hidden) else tuple(map(pips_of, st.hands))
    result: DealResult | None = None
    if st.over == "out":
        winner = st.last_player
        assert winner is not None
        losers = _losers(rules, winner)
        if pips is not None or hands_known(st, losers):
            result = _result("out", winner, losers, st, pips)
    elif pips is not None or hands_known(st, range(rules.seats)):
        view = BlockView(tuple(tuple(tiles_of(h)) for h in st.hands), st.leader or 0, rules)
        winner = rules.block_winner(view)
        if winner is None:
            result = DealResult("tie", None, 0)
        else:
            result = _result("block", winner, _losers(rules, winner), st, pips)
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
    _record(st, result, out, pips)


def _result(kind: str, winner: int, losers: tuple[int, ...], st: State,
            pips: tuple[int, ...] | None = None) -> DealResult:
    if pips is not None:
        points = sum(map(pips.__getitem__, losers))
    else:
        points = sum(pips_of(st.hands[s]) for s in losers)
    if st.rules.fives:
        points = round_to_five(points)
    return DealResult(kind, winner, points)


def _record(st: State, result: DealResult, out: list[Event],
            known: tuple[int, ...] | None = None) -> None:
    """``known``: every seat's pips, when every hand is known (score_deal counts them)."""
    rules = st.rules
    st.pending = False
    st.last_result = result
    if result.winner is not None:
        st.scores[rules.side_of(result.winner)] += result.points
    hidden = st.hidden
    pips: tuple[int | None, ...] = known if known is not None else tuple(
        None if hidden[s] else pips_of(st.hands[s]) for s in range(rules.seats))
    out.append(new_deal_scored(st.deal, result.result,  # type: ignore[arg-type]
                               result.winner, result.points, tuple(st.scores), st.leader, pips))
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
