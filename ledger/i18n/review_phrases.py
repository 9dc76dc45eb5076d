"""The review's sentences, built once for the CLI report, the match page and the PDF
(issue 34): what a mistake cost, the counts of a player's line, luck and its legend.

Pure (phrases only): moves come in already worded (``review.move_phrase``), numbers as
numbers; each reader words the phrase in its language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ledger.i18n.phrases import N_, Counted, Phrase


def points(x: float | None) -> str:
    """A number of points as the review prints it: one decimal ("?" when unknown)."""
    return "?" if x is None else f"{x:.1f}"


def cost_phrase(played: object, best: Sequence[object], knowledge: float | None,
                hindsight: float | None, basis: Phrase | None = None) -> Phrase:
    """ "played 5-4, best 6-4, cost 2.7 points (knowledge) / 3.0 (hindsight)": the move,
    the best bet by what the player knew (every move tied for it, "or" between them), and
    what the move cost by both measures; with ``basis`` (``measured``), how the knowledge
    cost was measured: "(knowledge, ± 0.4 over 40 sampled deals)"."""
    best_said = _either(best) if best else "?"
    if basis is not None:
        return Phrase("played {played}, best {best}, cost {knowledge} points (knowledge, "
                      "{basis}) / {hindsight} (hindsight)", played=played, best=best_said,
                      knowledge=points(knowledge), basis=basis, hindsight=points(hindsight))
    return Phrase("played {played}, best {best}, cost {knowledge} points (knowledge) / "
                  "{hindsight} (hindsight)", played=played, best=best_said,
                  knowledge=points(knowledge), hindsight=points(hindsight))


def measured(m: Mapping[str, Any]) -> Phrase | None:
    """How a decision's knowledge cost was measured (issues 30 and 35), from its entry in
    a report: "exact over 12 deals" when every consistent deal was solved, else "± 0.4
    over 40 sampled deals" (one standard error; K used); None for an entry that does not
    say (a report kept before they did)."""
    count = m.get("count")
    if m.get("exact") and isinstance(count, int) and count > 0:
        return Counted("exact over {count} deal", "exact over {count} deals", count)
    samples, stderr = m.get("samples"), m.get("knowledge_lost_stderr")
    if not isinstance(samples, int) or samples <= 0 or stderr is None:
        return None
    return Counted("± {stderr} over {count} sampled deal",
                   "± {stderr} over {count} sampled deals", samples, stderr=points(stderr))


def _either(moves: Sequence[object]) -> object:
    said: object = moves[0]
    for move in moves[1:]:
        said = Phrase("{a} or {b}", a=said, b=move)
    return said


def decisions(n: int) -> Phrase:
    return Counted("{count} decision", "{count} decisions", n)


def forced_moves(n: int) -> Phrase:
    return Counted("{count} forced move", "{count} forced moves", n)


def inaccuracies(n: int) -> Phrase:
    return Counted("{count} inaccuracy", "{count} inaccuracies", n)


def mistakes(n: int) -> Phrase:
    return Counted("{count} mistake", "{count} mistakes", n)


def blunders(n: int) -> Phrase:
    return Counted("{count} blunder", "{count} blunders", n)


def not_reviewed(n: int, why: Phrase) -> Phrase:
    return Counted("{count} decision not reviewed: {why}",
                   "{count} decisions not reviewed: {why}", n, why=why)


def sampled(n: int) -> Phrase:
    """The review's cap K and its sequential stop ("up to 200 deals sampled per decision,
    stopping once its label is settled at 95%"): K is the most a decision draws."""
    return Counted("up to {count} deal sampled per decision, stopping once its label is "
                   "settled at 95%", "up to {count} deals sampled per decision, stopping once "
                   "its label is settled at 95%", n)


def how_judged(n: int) -> Phrase:
    """The review's opening sentence on the match page: how a move is judged."""
    return Phrase("Each move is judged by what its player could know: the unseen tiles dealt "
                  "in ways consistent with it ({sampled}; every way when there are few), each "
                  "deal solved exactly. Lower loss is better.", sampled=sampled(n))


def luck_phrase(luck: float | None, stderr: float | None, exact: bool) -> Phrase:
    """A luck value with its precision: "2.1 ± 0.8", or "2.1 (exact)" when every consistent
    deal of every chance event was counted."""
    if exact:
        return Phrase("{value} (exact)", value=points(luck))
    return Phrase("{value} ± {stderr}", value=points(luck), stderr=points(stderr))


# The legend said beside Luck, Result and Luck-adjusted, wherever the report is shown.
LUCK_LEGEND = N_("Luck: the points the deal and the draws gave a player beyond what he "
                 "could expect before them, by what he knew then.")
RESULT_LEGEND = N_("Result: the points the deals gave the player's side (on two-side "
                   "tables, its margin over the other side).")
ADJUSTED_LEGEND = N_("Luck-adjusted: the result less the luck, what the play alone earned.")


def precision_legend(samples: int) -> Phrase:
    """How the luck is measured: K sampled deals, ± one standard error, or exact."""
    return Counted("Luck is estimated from {count} deal sampled per chance event: ± is one "
                   "standard error; \"exact\" when every consistent deal was counted.",
                   "Luck is estimated from {count} deals sampled per chance event: ± is one "
                   "standard error; \"exact\" when every consistent deal was counted.",
                   samples)


def luck_legend(samples: int) -> tuple[Phrase, ...]:
    """The lines that explain Luck, Result and Luck-adjusted, in the order shown."""
    return (Phrase(LUCK_LEGEND), precision_legend(samples), Phrase(RESULT_LEGEND),
            Phrase(ADJUSTED_LEGEND))


__all__ = ["ADJUSTED_LEGEND", "LUCK_LEGEND", "RESULT_LEGEND", "blunders", "cost_phrase",
           "decisions", "forced_moves", "how_judged", "inaccuracies", "luck_legend", "luck_phrase",
           "measured", "mistakes", "not_reviewed", "points", "precision_legend", "sampled"]
