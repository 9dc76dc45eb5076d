"""Seats named the same way everywhere (issue 34, item 4): "Karim (seat 1)" or "seat 1",
counted from 1 and translated, in every sentence a reader sees; the report's English
message (the audit's JSON, hash-chained findings) keeps the match file's "seat 0"."""

from __future__ import annotations

from ledger.findings import Finding, finding
from ledger.i18n import ENGLISH, language, seat_named
from ledger.i18n.phrases import (
    FSI,
    LRI,
    PDI,
    Phrase,
    english,
    phrase_from_json,
    phrase_to_json,
    seated_template,
)


def test_seat_named_counts_from_one_with_the_players_name() -> None:
    assert ENGLISH.word(seat_named(0, "Karim")) == "Karim (seat 1)"
    assert ENGLISH.word(seat_named(3)) == "seat 4"
    assert language("pt").word(seat_named(1, "Bia")) == "Bia (lugar 2)"
    assert language("es").word(seat_named(2)) == "asiento 3"
    assert language("ar").word(seat_named(0, "علي")) == f"{FSI}علي{PDI} (المقعد {LRI}1{PDI})"


def test_a_seat_parameter_is_said_with_its_players_name() -> None:
    found = finding(4, "error", "out-of-turn", "{seat} played {tile}, but it was {turn}'s turn",
                    seat=0, tile="6-6", turn=1)
    # The report keeps the English of the match file ("seat 0", as JSON counts).
    assert found.message == "seat 0 played 6-6, but it was seat 1's turn"
    assert ENGLISH.finding(found) == "seat 1 played 6-6, but it was seat 2's turn"
    assert ENGLISH.finding(found, seats=["Karim", "Omar"]) == \
        "Karim (seat 1) played 6-6, but it was Omar (seat 2)'s turn"
    spanish = language("es").finding(found, seats=["Karim", "Omar"])
    assert spanish.startswith("Karim (asiento 1) jugó") and "Omar (asiento 2)" in spanish
    # A seat the names do not cover is its number alone.
    assert ENGLISH.finding(found, seats=["Karim"]) == \
        "Karim (seat 1) played 6-6, but it was seat 2's turn"


def test_a_seated_language_names_seats_in_every_sentence() -> None:
    seated = language("pt").seated(["Ana", "Bia"])
    assert seated.code == "pt" and seated.seats == ("Ana", "Bia")
    assert "Bia (lugar 2)" in seated.say("{seat} passed before any deal", seat=1)
    assert seated.word(Phrase("winner {name}", name=seat_named(0, "Ana"))) == \
        "vencedor Ana (lugar 1)"


def test_a_template_stored_before_is_worded_as_the_current_one() -> None:
    # Findings and analyses kept in a ledger hold "seat {seat} played {tile}": the same
    # msgid as the engine's "{seat} played {tile}" now, and never "seat seat 1".
    assert seated_template("seat {seat} played {tile}") == "{seat} played {tile}"
    assert seated_template("it was seat {turn}'s turn") == "it was {turn}'s turn"
    assert seated_template("seat {index} does not exist") == "seat {index} does not exist"
    old = Finding.from_dict({"event": 3, "severity": "error", "code": "x",
                             "message": "seat 2 drew from an empty stock",
                             "wording": {"template": "seat {seat} drew from an empty stock",
                                         "params": {"seat": 2}}})
    assert ENGLISH.finding(old, seats=["a", "b", "Lu"]) == "Lu (seat 3) drew from an empty stock"
    assert language("es").finding(old) == "asiento 3 robó de un pozo vacío"


def test_english_message_and_json_keep_the_index() -> None:
    phrase = Phrase("{seat} passed before any deal", seat=0)
    assert english(phrase.template, phrase.params) == "seat 0 passed before any deal"
    assert str(phrase) == "seat 0 passed before any deal"
    back = phrase_from_json(phrase_to_json(phrase))
    assert back is not None and back.params == {"seat": 0}  # JSON keeps the 0-based index
    assert ENGLISH.word(back) == "seat 1 passed before any deal"
