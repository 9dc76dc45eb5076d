"""Sentences as templates and parameters, worded in any language.

A finding (or any sentence the ledger prints) is kept as an English template,
which is also its gettext msgid, and parameters: seats and deals as numbers,
tiles as "6-3", ends as (name, number) pairs, and nested ``Phrase`` values for
the parts that are themselves sentences ("it is still in the stock"). Wording a
sentence translates the template and every nested phrase, and renders each
parameter the way the language writes it; English is the same code with the
identity translation, so the English message and the template cannot drift.

Pure: no gettext, no I/O. The engine builds templates and parameters (only when
it makes a finding: findings are rare) and ``english`` gives its message; the
catalogs are looked up in ``ledger.i18n.catalog``.

In a right-to-left language every number, tile and verbatim text (a file name,
a value from the record) is wrapped in a Unicode isolate, so that "6-3" stays
"6-3" and a number does not jump to the other side of the Arabic around it. In a
left-to-right one, text holding right-to-left letters (an Arabic name) is isolated
(FSI ... PDI), so that "علي 1-0 2-2; نور 6-6" keeps its order in an English sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Formatter
from typing import Protocol

# left-to-right / right-to-left / first-strong isolate, pop directional isolate
LRI, RLI, FSI, PDI = "\u2066", "\u2067", "\u2068", "\u2069"
# Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo... and their
# presentation forms): text holding one is isolated even in a left-to-right sentence.
_ISOLATES = re.compile(f"[{LRI}{FSI}][^{PDI}]*{PDI}")  # what is isolated already
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


class Translator(Protocol):
    """What wording needs of a gettext translations object."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...

    def pgettext(self, context: str, message: str, /) -> str: ...


class _Identity:
    """English: the templates are the English sentences."""

    def gettext(self, message: str, /) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return singular if n == 1 else plural

    def pgettext(self, context: str, message: str, /) -> str:
        return message


IDENTITY: Translator = _Identity()

# The words a parameter can hold, written out so that extraction finds them: ``side`` is
# an end's name (pgettext "end"), ``result`` how a deal ended (pgettext "result").
WORDS = (
    IDENTITY.pgettext("end", "left"), IDENTITY.pgettext("end", "right"),
    IDENTITY.pgettext("end", "up"), IDENTITY.pgettext("end", "down"),
    IDENTITY.pgettext("result", "out"), IDENTITY.pgettext("result", "block"),
    IDENTITY.pgettext("result", "tie"),
    IDENTITY.pgettext("severity", "error"), IDENTITY.pgettext("severity", "warning"),
)


@dataclass(frozen=True, slots=True)
class Phrase:
    """A part of a sentence that is itself worded per language: a template (msgid) and its
    parameters; with ``plural``, a counted phrase chosen by ``params["count"]`` (ngettext)."""

    template: str
    params: Mapping[str, object] = field(default_factory=dict)
    plural: str | None = None

    def __init__(self, template: str, plural: str | None = None, /, **params: object) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "plural", plural)

    def __str__(self) -> str:
        return english(self.template, self.params, self.plural)


def N_(message: str) -> str:  # noqa: N802
    """Marks a msgid for extraction where it is data (a table of labels); words nothing."""
    return message


def Counted(singular: str, plural: str, count: int, /, **params: object) -> Phrase:  # noqa: N802
    """A phrase whose wording follows a number: "{count} unseen tile(s)"."""
    return Phrase(singular, plural, count=count, **params)


class Worded(str):
    """Text already in the reader's language: put in as it is."""

    __slots__ = ()


class Said(str):
    """English text that keeps its wording: a sentence held where text is expected (a
    button's label, a reason). It is the English sentence everywhere a string goes (JSON,
    comparisons, the English page); a page in another language words ``phrase``."""

    phrase: Phrase

    def __new__(cls, phrase: Phrase) -> Said:
        said = super().__new__(cls, english(phrase.template, phrase.params, phrase.plural))
        said.phrase = phrase
        return said

    def __reduce__(self) -> tuple[type[Said], tuple[Phrase]]:
        return (Said, (self.phrase,))


# How a parameter is rendered, by its name (every other one: by its value's type).
_AND_LISTS = frozenset({"fits"})  # "the left end (3) and the right end (3)"
_SERIES = frozenset({"ends"})  # "a, b and c"
_OR_LISTS = frozenset({"counts"})  # "2 or 4"

# Parameters that hold a seat's 0-based index (as match files and JSON count): a sentence
# says them as people do, "Karim (seat 1)" (``seat_named``), and only the English message
# a report keeps (``english``: the audit's JSON) says "seat 0" as it always has.
SEAT_PARAMS = frozenset({"seat", "turn", "leader", "next"})
# Templates written before the seat was its own phrase ("seat {seat} played {tile}", kept
# in stored findings and analyses) read as their current msgid ("{seat} played {tile}").
_SEAT_WORDS = re.compile(r"seat \{(seat|turn|leader|next)\}")
_SEATED: dict[str, str] = {}
Seats = Sequence[str] | None  # the players' names by seat; None: the report's English

_FORMATTER = Formatter()
_PARSED: dict[str, list[tuple[str, str | None]]] = {}


def _parse(template: str) -> list[tuple[str, str | None]]:
    parsed = _PARSED.get(template)
    if parsed is None:
        parsed = [(text, name) for text, name, _, _ in _FORMATTER.parse(template)]
        if len(_PARSED) < 4096:
            _PARSED[template] = parsed
    return parsed


def seated_template(template: str) -> str:
    """The current msgid of ``template``: "seat {seat}" written out before is "{seat}"."""
    got = _SEATED.get(template)
    if got is None:
        got = _SEAT_WORDS.sub(r"{\1}", template) if "seat {" in template else template
        if len(_SEATED) < 4096:
            _SEATED[template] = got
    return got


def render(template: str, params: Mapping[str, object], tr: Translator = IDENTITY,
           rtl: bool = False, plural: str | None = None, seats: Seats = ()) -> str:
    """The sentence in the language of ``tr``: its template translated, parameters filled;
    a seat named with its player's name in ``seats`` and counted from 1 (``seats`` None:
    "seat 0", the English message of a report)."""
    template = seated_template(template)
    if plural is not None:
        count = params.get("count")
        text = tr.ngettext(template, plural, count if isinstance(count, int) else 0)
    else:
        text = tr.gettext(template)
    if not params:
        return text
    out: list[str] = []
    for literal, name in _parse(text):
        out.append(literal)
        if name is not None:
            out.append(_value(name, params.get(name, ""), tr, rtl, seats))
    return "".join(out)


def english(template: str, params: Mapping[str, object], plural: str | None = None) -> str:
    """The English message a report keeps (JSON, the hash-chained findings): seats as
    "seat 0", as the match file counts them."""
    return render(template, params, IDENTITY, False, plural, None)


def word(phrase: Phrase, tr: Translator = IDENTITY, rtl: bool = False,
         seats: Seats = ()) -> str:
    return render(phrase.template, phrase.params, tr, rtl, phrase.plural, seats)


def _value(name: str, value: object, tr: Translator, rtl: bool, seats: Seats = ()) -> str:
    if type(value) is Worded:
        return value
    if isinstance(value, Phrase):
        return word(value, tr, rtl, seats)
    if name in SEAT_PARAMS and type(value) is int:
        if seats is None:
            return f"seat {value}"
        return word(seat_named(value, seats[value] if 0 <= value < len(seats) else None),
                    tr, rtl, seats)
    if name == "side":  # an end's name: left, right, up, down
        return tr.pgettext("end", str(value))
    if name == "result":  # how a deal ended: out, block, tie
        return tr.pgettext("result", str(value))
    if name == "severity":  # a finding's: error, warning
        return tr.pgettext("severity", str(value))
    if name == "end" and _is_end(value):
        return _end(value, tr, rtl)
    if isinstance(value, (list, tuple)):
        if (name in _AND_LISTS or name in _SERIES) and all(_is_end(v) for v in value):
            items = [_end(v, tr, rtl) for v in value]
            return _and_series(items, tr) if name in _SERIES else _and_chain(items, tr)
        items = [_value("", v, tr, rtl, seats) for v in value]
        if name in _OR_LISTS:
            return _or_chain(items, tr)
        return tr.pgettext("list", ", ").join(items)
    if value is None:
        return "None"
    text = str(value)
    if rtl:
        return (LRI if isinstance(value, int) else FSI) + text + PDI
    if _RIGHT_TO_LEFT.search(_ISOLATES.sub("", text)):
        # An Arabic name in an English sentence: isolated, or the bidi algorithm carries
        # the numbers and tiles next to it over to its side ("10+ علي" for "علي +10").
        return FSI + text + PDI
    return text


def seat_named(index: int, name: str | None = None) -> Phrase:
    """A seat as people say it (issue 34): its player's name and its number counted from 1,
    "Karim (seat 1)"; 0-based indexes stay inside match files and JSON."""
    if name:
        return Phrase("{name} (seat {number})", name=name, number=index + 1)
    return Phrase("seat {number}", number=index + 1)


def clauses(phrases: Sequence[Phrase]) -> Phrase | None:
    """Sentences said one after another ("a; b"), as one phrase (None: there are none)."""
    said: Phrase | None = None
    for phrase in phrases:
        said = phrase if said is None else Phrase("{a}; {b}", a=said, b=phrase)
    return said


def join(items: Sequence[object], tr: Translator = IDENTITY, rtl: bool = False,
         seats: Seats = ()) -> str:
    """Items (phrases, numbers, text) as a list: "a, b, c" in the reader's language."""
    return _value("", tuple(items), tr, rtl, seats)


def _is_end(value: object) -> bool:
    """An end as the engine gives it: (its name, its number)."""
    return isinstance(value, (tuple, list)) and len(value) == 2 and \
        isinstance(value[0], str) and isinstance(value[1], int)


def _end(value: object, tr: Translator, rtl: bool) -> str:
    assert isinstance(value, (tuple, list))
    return render("the {side} end ({number})", {"side": value[0], "number": value[1]}, tr, rtl)


def _and_chain(items: Sequence[str], tr: Translator) -> str:
    """ "a and b and c": every item joined by "and"."""
    if not items:
        return ""
    text = items[0]
    for item in items[1:]:
        text = render("{a} and {b}", {"a": Worded(text), "b": Worded(item)}, tr)
    return text


def _and_series(items: Sequence[str], tr: Translator) -> str:
    """ "a, b and c"."""
    if len(items) < 2:
        return items[0] if items else ""
    head = tr.pgettext("list", ", ").join(items[:-1])
    return render("{a} and {b}", {"a": Worded(head), "b": Worded(items[-1])}, tr)


def _or_chain(items: Sequence[str], tr: Translator) -> str:
    if not items:
        return ""
    text = items[0]
    for item in items[1:]:
        text = render("{a} or {b}", {"a": Worded(text), "b": Worded(item)}, tr)
    return text


# --- parameters as JSON (to store a finding's wording beside its message) -------------


def params_to_json(params: Mapping[str, object]) -> dict[str, object]:
    return {k: _to_json(v) for k, v in params.items()}


def _to_json(value: object) -> object:
    if isinstance(value, Phrase):
        out: dict[str, object] = {"phrase": value.template,
                                  "params": params_to_json(value.params)}
        if value.plural is not None:
            out["plural"] = value.plural
        return out
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    return value


def phrase_to_json(phrase: Phrase) -> dict[str, object]:
    """A phrase in the JSON form stored findings and the swing chart keep:
    ``{"phrase": template, "params": {...}}`` (and ``"plural"`` when it is counted)."""
    out = _to_json(phrase)
    assert isinstance(out, dict)
    return out


def phrase_from_json(obj: Mapping[str, object]) -> Phrase | None:
    """The phrase of ``phrase_to_json`` (None: ``obj`` is not one)."""
    got = _from_json(dict(obj))
    return got if isinstance(got, Phrase) else None


def params_from_json(obj: Mapping[str, object]) -> dict[str, object]:
    return {k: _from_json(v) for k, v in obj.items()}


def _from_json(value: object) -> object:
    if isinstance(value, dict) and isinstance(value.get("phrase"), str):
        inner = value.get("params")
        plural = value.get("plural")
        return Phrase(value["phrase"], plural if isinstance(plural, str) else None,
                      **params_from_json(inner if isinstance(inner, dict) else {}))
    if isinstance(value, list):
        return tuple(_from_json(v) for v in value)
    return value
