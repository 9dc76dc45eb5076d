"""The analysis notes in every language: each kind of note, met in a real record, keeps its
English sentence (``note``, the public JSON) and words in Arabic from ``note_phrases``.

"Arabic" is checked strictly: once the isolated values (numbers, tiles: LRI/FSI ... PDI)
are taken out, no Latin letter is left, so a sentence missing from the catalog, or a
solver reason that was not recognised, fails the test.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from ledger.analysis.review import DealReview, analyse_step, review_match, solver_reason
from ledger.analysis.solver import DealSolver, TooLarge
from ledger.engine.fold import advance
from ledger.engine.state import State
from ledger.events import Dealt
from ledger.formats.reader import MatchRecord, parse_match, read_matches
from ledger.i18n import language
from ledger.i18n.phrases import LRI, PDI, clauses, phrase_from_json, phrase_to_json
from ledger.rules import make_rules
from ledger.rules.base import Rules
from tests.analysis.test_review import SHORT

SAMPLES = Path(__file__).resolve().parents[2] / "sample_matches"
AR = language("ar")
_ISOLATED = re.compile("[\u2066\u2067\u2068][^\u2069]*\u2069")


def record_of(name: str) -> tuple[Rules, MatchRecord]:
    (record,) = read_matches(SAMPLES / name)
    header = record.header
    assert header is not None
    return make_rules(header.preset, len(header.seats), header.options), record


def arabic(review: DealReview | Any) -> str:
    """The note of a review (or step) in Arabic, checked to be Arabic all through; its
    phrases go through their JSON form first, as the web keeps them."""
    assert review.note_phrases, "a note comes with its phrases"
    stored = orjson.loads(orjson.dumps([phrase_to_json(p) for p in review.note_phrases]))
    phrases = [phrase_from_json(obj) for obj in stored]
    assert all(p is not None for p in phrases)
    said = clauses([p for p in phrases if p is not None])
    assert said is not None
    # The English of the phrases is the note, word for word.
    assert str(said) == review.note
    text = AR.word(said)
    bare = _ISOLATED.sub("", text)
    assert not re.search("[A-Za-z]", bare), f"not all Arabic: {text!r}"
    assert re.search("[\u0600-\u06ff]", bare)
    return text


def num(n: int | str) -> str:
    return f"{LRI}{n}{PDI}"


def test_hidden_hand_and_unknown_stock() -> None:
    rules, record = record_of("partial/selminha-2-some-unknown.json")
    reviews = review_match(rules, record.events)
    hidden = next(r for r in reviews if "hidden" in (r.note or ""))
    assert hidden.note == "cannot be analysed: a hand of this deal stays hidden"
    assert arabic(hidden) == "لا يمكن تحليلها: تبقى يدٌ من هذه التوزيعة مخفية"
    rules, record = record_of("partial/sahrat-draw-2-seen-by-seat-0.json")
    (stock,) = review_match(rules, record.events, deals=[2])
    assert stock.note == "cannot be analysed: the order of the stock is not known"
    assert arabic(stock) == "لا يمكن تحليلها: ترتيب البنك غير معروف"


def test_too_large_with_a_small_visit_limit() -> None:
    # Four seats each for himself (Sahrat Draw): with 2,000 visits for a position, the
    # positions from the start on to some event do not fit.
    rules, record = record_of("sahrat-draw-4.json")
    (small,) = review_match(rules, record.events, deals=[0], max_nodes=2000)
    assert small.best is None and small.note is not None
    # The event named is where the last position that did not fit is (the ones before it
    # are left out, the ones after it are solved).
    found = re.search(r"to event (\d+) ", small.note)
    assert found is not None
    event = int(found[1])
    assert all(s.outcome is None for s in small.steps if s.event < event)
    assert all(s.outcome is not None for s in small.steps if s.event > event)
    assert small.note == (
        f"the positions from the start of the deal to event {event} are too large to solve "
        "exactly (more than 2,000 positions to search (with three or four sides each for "
        "himself, few can be skipped)); their values are left out")
    text = arabic(small)
    assert f"حتى الحدث {num(event)} أكبر من أن تُحلّ بدقة" in text
    assert "يتجاوز عدد الوضعيات التي يجب البحث فيها \u20682,000\u2069" in text


def test_too_large_for_the_kept_positions() -> None:
    # The Python max-n keeps a value per position: room for 3,000 is too little for the
    # start of a four-seat deal each for himself.
    rules, record = record_of("sahrat-draw-4.json")
    st = State(rules)
    for i, ev in enumerate(record.events):
        assert ev is not None
        advance(st, ev, i, [], [])
        if isinstance(ev, Dealt):
            break
    solver = DealSolver(st.copy(), 3000, native=False)
    with pytest.raises(TooLarge) as caught:
        solver.outcome(st)
    reason = solver_reason(caught.value)
    assert str(reason) == str(caught.value) == \
        "more than 3,000 positions to solve exactly (max-n keeps every one)"
    assert AR.word(reason) == \
        "يتجاوز عدد الوضعيات التي يجب حلّها بدقة \u20683,000\u2069 (البحث متعدد اللاعبين " \
        "يحتفظ بكل واحدة منها)"


def _stops_after(n: int) -> Any:
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] > n
    return stop


@pytest.mark.parametrize("name", ["domena-2.json", "selminha-3.json"])
def test_stopped(name: str) -> None:
    # Two sides solve from the start on, more sides from the end back: either way what
    # was left out is said, with its event.
    rules, record = record_of(name)
    (part,) = review_match(rules, record.events, deals=[0], stop=_stops_after(2))
    left_out = [s.event for s in part.steps if s.outcome is None]
    assert left_out and part.best is None
    if rules.sides == 2:
        assert part.note == (
            f"the analysis was stopped: the start of the deal and the positions from event "
            f"{left_out[0]} to its end were not solved; their values are left out")
        assert arabic(part) == (
            "أُوقف التحليل: لم تُحلّ بداية التوزيعة ولا الوضعيات من الحدث "
            f"{num(left_out[0])} حتى نهايتها؛ فقيمها متروكة")
    else:
        assert part.note == (
            f"the analysis was stopped: the positions from the start of the deal to event "
            f"{left_out[-1]} were not solved; their values are left out")
        assert arabic(part) == (
            "أُوقف التحليل: لم تُحلّ الوضعيات من بداية التوزيعة حتى الحدث "
            f"{num(left_out[-1])}؛ فقيمها متروكة")


def test_stopped_before_the_start() -> None:
    # Every move solved, then stopped: only the start of the deal is left out.
    rules, record = record_of("domena-2.json")
    (full,) = review_match(rules, record.events, deals=[0])
    (part,) = review_match(rules, record.events, deals=[0],
                           stop=_stops_after(len(full.steps)))
    assert part.best is None and all(s.outcome is not None for s in part.steps)
    assert part.note == ("the analysis was stopped: the start of the deal was not solved; "
                         "its value is left out")
    assert arabic(part) == "أُوقف التحليل: لم تُحلّ بداية التوزيعة؛ فقيمتها متروكة"


@pytest.mark.parametrize(("name", "event", "seat", "kind", "verb"), [
    ("faulty/illegal-draw.json", 13, 0, "draw", "سحب"),
    ("faulty/illegal-pass.json", 13, 0, "pass", "تمرير"),
    ("faulty/wrong-opening-tile.json", 1, 1, "play", "لعب"),
])
def test_a_move_that_is_not_legal(name: str, event: int, seat: int, kind: str,
                                  verb: str) -> None:
    rules, record = record_of(name)
    review = next(r for r in review_match(rules, record.events) if r.note)
    assert review.note == (f"event {event}: seat {seat}'s {kind} is not a legal move; the "
                           "analysis of this deal stops there")
    # The English note keeps the record's "seat 0"; a reader's sentence counts from 1.
    assert arabic(review) == (f"الحدث {num(event)}: {verb} المقعد {num(seat + 1)} ليس نقلة "
                              "مسموحة؛ ويتوقف تحليل هذه التوزيعة عنده")


def test_an_event_the_rules_refuse() -> None:
    # The finding that stops the fold is itself worded in Arabic inside the note.
    rules, record = record_of("faulty/tile-not-in-hand.json")
    (review,) = [r for r in review_match(rules, record.events) if r.note]
    assert review.note == ("event 4: seat 0 played 2-1, which it does not hold: it is in "
                           "seat 1's hand; the analysis stops there")
    assert arabic(review) == (f"الحدث {num(4)}: لعب المقعد {num(1)} الحجر \u20682-1\u2069 وهو "
                              f"ليس معه: الحجر في يد المقعد {num(2)}؛ ويتوقف التحليل عنده")


def test_a_record_that_stops_early() -> None:
    rules, record = record_of("faulty/deal-not-finished.json")
    first, second = review_match(rules, record.events)
    assert first.note == "a new deal started before this one ended"
    assert arabic(first) == "بدأت توزيعة جديدة قبل أن تنتهي هذه التوزيعة"
    assert second.note == "the record stops before the deal ended"
    assert arabic(second) == "ينتهي السجل قبل أن تنتهي التوزيعة"


def test_two_notes_together() -> None:
    # A record cut in the middle of a deal too large to solve: both are said, in order.
    rules, record = record_of("sahrat-draw-4.json")
    cut = next(i for i, ev in enumerate(record.events) if i > 0 and isinstance(ev, Dealt)) - 3
    (review,) = review_match(rules, record.events[:cut], deals=[0], max_nodes=2000)
    assert review.note is not None
    big, stops = review.note.split("; their values are left out; ")
    assert big.startswith("the positions from the start of the deal to event ")
    assert stops == "the record stops before the deal ended"
    text = arabic(review)
    assert text.endswith("؛ فقيمها متروكة؛ ينتهي السجل قبل أن تنتهي التوزيعة")


def test_an_unreadable_event() -> None:
    match = copy.deepcopy(SHORT)
    match["events"][5] = {"type": "play", "seat": 0, "tile": "9-9"}
    record = parse_match(match)
    rules = make_rules("arab-block", 2, {"target": 0})
    (review,) = review_match(rules, record.events)
    assert review.note == "event 5 cannot be read; the analysis stops there"
    assert arabic(review) == f"لا يمكن قراءة الحدث {num(5)}؛ ويتوقف التحليل عنده"
    at = analyse_step(rules, record.events, 7)
    assert at.note == "event 5 cannot be read"
    assert arabic(at) == f"لا يمكن قراءة الحدث {num(5)}"


def test_step_notes() -> None:
    rules, record = record_of("partial/selminha-2-some-unknown.json")
    at = analyse_step(rules, record.events, 0)
    assert at.note == "no deal is being played here"
    assert arabic(at) == "لا توزيعة تُلعب هنا"
    reviews = review_match(rules, record.events)
    hidden = next(r for r in reviews if "hidden" in (r.note or ""))
    at = analyse_step(rules, record.events, hidden.event + 1)
    assert at.note == "a hand of this deal stays hidden"
    assert arabic(at) == "تبقى يدٌ من هذه التوزيعة مخفية"


def test_the_json_shape_is_unchanged() -> None:
    # ``to_dict`` (the --json line) keeps its keys: the note is the English sentence.
    rules, record = record_of("faulty/deal-not-finished.json")
    first, _ = review_match(rules, record.events)
    got = first.to_dict()
    assert set(got) == {"deal", "best", "decisions", "note"}
    assert got["note"] == "a new deal started before this one ended"
