"""The words of each table, as its players know them.

Every table of the seeds has its own talk: Sahrat's players say «البنك» for the
stock and «قفلت» when a deal blocks; at Casual Arena the player who leads is
"the hand" (la mano). A glossary lists, per table, each term in the languages
its players use, with what it means (a msgid: the meaning is worded in the
reader's language) and, where the seed gives the word, the seed's own text.

Words the seed gives are marked with ``seed``; the others are the usual words
at such tables (``seed`` None), given so that the glossary reads in every
language the table is played in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ledger.i18n.catalog import DEFAULT, Language, language
from ledger.i18n.phrases import N_


@dataclass(frozen=True, slots=True)
class Term:
    key: str  # stable id: "stock", "pass", "blocked", ...
    meaning: str  # English, a msgid: what the term means at this table
    words: Mapping[str, str]  # language -> the word players use
    seed: str | None = None  # the seed's words that give the term, quoted


@dataclass(frozen=True, slots=True)
class TableGlossary:
    preset: str  # rules preset id (several presets can share a seed's glossary)
    seed: str  # the seed file
    names: Mapping[str, str]  # the table's name, by language
    languages: tuple[str, ...]  # the languages its players use, most used first
    terms: tuple[Term, ...]

    def name(self, lang: str) -> str:
        return self.names.get(lang) or self.names[DEFAULT]


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a glossary as a reader sees it."""

    key: str
    word: str  # the term in the reader's language (English if it has none)
    meaning: str  # in the reader's language
    words: tuple[tuple[str, str], ...]  # (language, word) in the table's languages
    seed: str | None


_PASS = N_("The turn goes to the next player: you have no tile that fits (and nothing to "
           "draw).")
_BLOCK = N_("Nobody can play and nothing is left to draw: the deal ends and the lowest hand "
            "wins.")
_OUT = N_("The player who lays the last tile of the hand wins the deal.")
_STOCK = N_("The tiles left face down after the deal, drawn one at a time when you cannot "
            "play.")
_DOUBLE = N_("A tile with the same number on both halves, such as 6-6.")
_TILE = N_("One of the 28 pieces of the double-six set.")
_PARTNER = N_("The player across the table, who scores with you.")
_LEAD = N_("The player who lays the first tile of a deal.")

_DOMENA = (
    Term("game", N_("Arabic dominoes as PlayElephant plays it: one line, two open ends, "
                    "points from the opponents' tiles."),
         {"en": "Domena", "ar": "الدومنة"}, "Domena (الدومنة) is Arabic dominoes"),
    Term("pass", _PASS, {"en": "pass", "ar": "باص"},
         "A player with no move passes (bās)"),
    Term("boneyard", _STOCK, {"en": "boneyard", "ar": "البنك"}),
    Term("blocked", _BLOCK, {"en": "blocked", "ar": "قفلت"}),
    Term("out", _OUT, {"en": "going out", "ar": "دومينو!"}),
    Term("double", _DOUBLE, {"en": "double", "ar": "دبل"}),
    Term("pair", _PARTNER, {"en": "partner", "ar": "شريك"},
         "Four players play in two pairs, and partners sit opposite each other."),
)

_SAHRAT = (
    Term("stock", _STOCK, {"en": "stock", "ar": "البنك"},
         "the rest is the «البنك» (the stock)"),
    Term("out", _OUT, {"en": "Domino!", "ar": "دومينو!"},
         "«دومينو!»: the player who lays his last tile wins the round"),
    Term("blocked", _BLOCK, {"en": "blocked", "ar": "قفلت"}, "«قفلت» (blocked)"),
    Term("pass", _PASS, {"en": "pass", "ar": "باص"}),
    Term("fives", N_("After every play the open ends are added up; a multiple of 5 scores at "
                     "once."), {"en": "Fives", "ar": "الخمسات"},
         "If the total is a multiple of 5, you score it at once"),
    Term("partner", _PARTNER, {"en": "partner", "ar": "شريك"},
         "Partner Domino: 4 players in two teams, your partner across from you."),
    Term("majlis", N_("The sitting room where the game is played; each majlis may play its "
                      "own options."), {"en": "majlis", "ar": "مجلس"},
         "Where tables differ from one majlis to another"),
)

_SELMINHA = (
    Term("boneyard", _STOCK, {"en": "boneyard", "pt": "dorme", "ar": "البنك"},
         "The rest stay face down in the boneyard"),
    Term("out", _OUT, {"en": "going out", "pt": "bater", "ar": "دومينو!"},
         "Going out: Someone plays the last tile in their hand."),
    Term("blocked", N_("Everyone passes in turn and no one can play: the round ends and the "
                       "fewest pips win."),
         {"en": "blocked game", "pt": "jogo trancado", "ar": "قفلت"},
         "Blocked game: Everyone passes in turn and no one can play."),
    Term("double", _DOUBLE, {"en": "double", "pt": "carroça", "ar": "دبل"},
         "Tiles with the same number on both ends are doubles"),
    Term("tile", _TILE, {"en": "tile", "pt": "pedra", "ar": "حجر"}),
    Term("pass", _PASS, {"en": "pass", "pt": "passo", "ar": "باص"}),
    Term("pips", N_("The dots on a tile; a hand counts the pips of its tiles."),
         {"en": "pips", "pt": "pontos", "ar": "نقاط"},
         "the pips left in each one are added up"),
)

_ARAB_BLOCK = (
    Term("out", _OUT, {"en": "domino", "ar": "دومينو!"},
         "A player places their last tile — they \"domino\" and win the round."),
    Term("blocked", N_("Both players pass one after the other: the lower hand wins."),
         {"en": "blocked", "ar": "قفلت"},
         "Both players pass consecutively — the game is \"blocked.\""),
    Term("boneyard", N_("The 14 tiles left after the deal; the Block game never draws from "
                        "them."), {"en": "boneyard", "ar": "البنك"},
         "The remaining 14 tiles form the boneyard and are not used in the Block variant."),
    Term("double", _DOUBLE, {"en": "double", "ar": "دبل"},
         "Tiles where both halves are the same number (0-0, 1-1, etc.) are called doubles."),
    Term("pass", _PASS, {"en": "pass", "ar": "باص"}),
)

_CASUAL_ARENA = (
    Term("hand", N_("The player with the highest double, who leads; a tied block goes to the "
                    "hand or the one closest to it."),
         {"en": "the hand", "es": "la mano", "ar": "البادئ"},
         "The player with the highest double will be the one who starts playing and he's "
         "called the hand."),
    Term("tile", _TILE, {"en": "tile", "es": "ficha", "ar": "حجر"},
         "Dominoes consists of 28 tiles or bones"),
    Term("blocked", N_("No player can place or take a tile: the lowest hand wins."),
         {"en": "block", "es": "tranque", "ar": "قفلت"},
         "The match may also end when no player can place or take. This situation is "
         "called block."),
    Term("couples", N_("Four players in two teams: a couple wins when either member wins."),
         {"en": "couples", "es": "parejas", "ar": "أزواج"}, "Couples matches"),
    Term("take", N_("Taking a tile from those left after the deal, until one fits."),
         {"en": "take", "es": "robar", "ar": "سحب"},
         "When it's not possible, he has to take a tile until he can."),
    Term("pass", _PASS, {"en": "pass", "es": "paso", "ar": "باص"},
         "If there aren't any tiles to take, the player must pass"),
    Term("double", _DOUBLE, {"en": "double", "es": "doble", "ar": "دبل"},
         "The tiles which both sides are equal are called doubles."),
    Term("out", _OUT, {"en": "domino", "es": "dominó", "ar": "دومينو!"},
         "When a player puts his last tile, he wins that round."),
)

_SAHRAT_LANGS = ("ar", "en")
GLOSSARIES: Mapping[str, TableGlossary] = {
    g.preset: g for g in (
        TableGlossary("domena", "000_3053cf30db062627.txt",
                      {"en": "PlayElephant Domena", "ar": "الدومنة على PlayElephant"},
                      ("ar", "en"), _DOMENA),
        TableGlossary("sahrat-draw", "001_e536ce776a04bae3.txt",
                      {"en": "Sahrat Domino (draw)", "ar": "دومينو سهرات (سحب)"},
                      _SAHRAT_LANGS, _SAHRAT),
        TableGlossary("sahrat-fives", "001_e536ce776a04bae3.txt",
                      {"en": "Sahrat Domino Fives", "ar": "دومينو الخمسات في سهرات"},
                      _SAHRAT_LANGS, _SAHRAT),
        TableGlossary("sahrat-partner", "001_e536ce776a04bae3.txt",
                      {"en": "Sahrat Partner Domino", "ar": "دومينو الشراكة في سهرات"},
                      _SAHRAT_LANGS, _SAHRAT),
        TableGlossary("selminha", "002_10d567ad275b8de6.txt",
                      {"en": "Selminha", "pt": "Selminha", "ar": "سلمينيا"},
                      ("pt", "en"), _SELMINHA),
        TableGlossary("arab-block", "003_d57eb88baa050f56.txt",
                      {"en": "Block dominoes", "ar": "دومينو البلوك"},
                      ("ar", "en"), _ARAB_BLOCK),
        TableGlossary("casual-arena", "004_4a02ef295e7c1bfa.txt",
                      {"en": "Casual Arena", "es": "Casual Arena", "ar": "كاجوال أرينا"},
                      ("es", "en"), _CASUAL_ARENA),
    )
}


def table_name(preset: str, lang: str = DEFAULT, default: str | None = None) -> str:
    """The table's name in a language (its English title where it has no other)."""
    g = GLOSSARIES.get(preset)
    if g is None:
        return default if default is not None else preset
    return g.name(lang)


def entries(preset: str, lang: str | Language = DEFAULT) -> list[Entry]:
    """A table's glossary for a reader: each term in the reader's language where the table
    has one, its meaning in the reader's language, and the table's own words."""
    reader = lang if isinstance(lang, Language) else language(lang)
    g = GLOSSARIES.get(preset)
    if g is None:
        return []
    out = []
    for term in g.terms:
        word = term.words.get(reader.code) or term.words[DEFAULT]
        words = tuple((code, term.words[code]) for code in g.languages if code in term.words)
        out.append(Entry(term.key, word, reader.say(term.meaning), words, term.seed))
    return out
