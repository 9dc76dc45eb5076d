"""Regenerate the sample matches:  python sample_matches/make_samples.py

Every complete sample is a random legal match of ``ledger.sim.generator`` (seeded,
so the same files come out each time), given the names a table of that site
would show and, for the variants, cut and closed by hand (resign, abandon,
agree_draw, a bot, times). ``partial/`` holds the same kind of matches as one
player records them; ``faulty/`` breaks one rule per file (see faults.py).

The files are committed; tests/samples checks them against the rules.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from faults import build, faults  # noqa: E402

from ledger.engine.board import fitting_ends, outcome_key  # noqa: E402
from ledger.engine.fold import advance  # noqa: E402
from ledger.engine.state import END_NAMES, State  # noqa: E402
from ledger.events import Event, Played  # noqa: E402
from ledger.findings import Finding  # noqa: E402
from ledger.formats.wire import event_from_dict  # noqa: E402
from ledger.rules import make_rules  # noqa: E402
from ledger.sim.generator import generate_match  # noqa: E402

ARABIC = ["علي", "Omar", "فاطمة", "Khalid", "ليلى", "Youssef", "نور", "Hassan", "Salma", "Tariq"]
PORTUGUESE = ["João", "Maria", "Tiago", "Beatriz", "Rafael", "Inês", "Luís", "Ana", "Duarte"]
SPANISH = ["Lucía", "Mateo", "Carmen", "Javier", "Sofía", "Diego", "Valentina", "Andrés"]
NAMES = {"domena": ARABIC, "sahrat-draw": ARABIC, "sahrat-fives": ARABIC,
         "sahrat-partner": ARABIC, "arab-block": ARABIC, "selminha": PORTUGUESE,
         "casual-arena": SPANISH}

# (file stem, preset, seats, options): one complete match per table of the seeds.
TABLES: list[tuple[str, str, int, dict[str, Any]]] = [
    ("domena-2", "domena", 2, {}),
    ("domena-4", "domena", 4, {}),
    ("sahrat-draw-2", "sahrat-draw", 2, {}),
    ("sahrat-draw-4", "sahrat-draw", 4, {}),
    ("sahrat-fives-2", "sahrat-fives", 2, {}),
    ("sahrat-fives-4", "sahrat-fives", 4, {}),
    ("sahrat-partner-4", "sahrat-partner", 4, {}),
    ("selminha-2", "selminha", 2, {}),
    ("selminha-3", "selminha", 3, {}),
    ("selminha-4", "selminha", 4, {}),
    ("arab-block-2", "arab-block", 2, {}),
    ("casual-arena-2", "casual-arena", 2, {}),
    ("casual-arena-3", "casual-arena", 3, {}),
    ("casual-arena-4", "casual-arena", 4, {}),
    ("casual-arena-4-teams", "casual-arena", 4, {"teams": True}),
    ("selminha-3-target-50", "selminha", 3, {"target": 50}),
    ("casual-arena-3-target-50", "casual-arena", 3, {"target": 50}),
    ("casual-arena-2-one-round", "casual-arena", 2, {"target": 0}),
    ("domena-4-one-round", "domena", 4, {"target": 0}),
]


# --- helpers ------------------------------------------------------------------------


def deal_count(match: dict[str, Any]) -> int:
    """Deals played (a redeal is not a new deal)."""
    count = 0
    played = True
    for ev in match["events"]:
        if ev["type"] == "deal":
            count += played
            played = False
        elif ev["type"] == "play":
            played = True
    return count


def redeals(match: dict[str, Any]) -> int:
    events = match["events"]
    return sum(1 for a, b in zip(events, events[1:], strict=False)
               if a["type"] == "deal" and b["type"] == "deal")


def pick(preset: str, seats: int, options: dict[str, Any], low: int = 3, high: int = 9,
         start: int = 0, want: Any = None) -> dict[str, Any]:
    """The first seeded match from ``start`` with ``low``..``high`` deals (and ``want``)."""
    seed = start
    while True:
        match = generate_match(preset, seats, options or None, seed=seed)
        if low <= deal_count(match) <= high and (want is None or want(match)):
            return match
        seed += 1


def dress(match: dict[str, Any], stem: str) -> dict[str, Any]:
    """Real names for the seats, no generator source: a record as a site shows it."""
    preset = match["table"]["rules"]
    rng = random.Random(stem)
    out = {"format": match["format"], "table": match["table"],
           "seats": rng.sample(NAMES[preset], len(match["seats"])),
           "events": match["events"]}
    return out


def fold(match: dict[str, Any]) -> State:
    """The engine's state after a record (used only to write claims the tests re-check)."""
    rules = make_rules(match["table"]["rules"], len(match["seats"]),
                       match["table"].get("options"))
    st = State(rules)
    findings: list[Finding] = []
    for i, raw in enumerate(match["events"]):
        out: list[Event] = []
        advance(st, event_from_dict(raw, len(match["seats"])), i, out, findings)
    assert not [f for f in findings if f.severity == "error"], findings
    return st


def cut_mid_deal(match: dict[str, Any], deal_no: int, plays: int) -> dict[str, Any]:
    """The record up to ``plays`` plays into deal ``deal_no`` (1-based)."""
    events = match["events"]
    seen = 0
    for i, ev in enumerate(events):
        if ev["type"] == "deal" and (i + 1 >= len(events) or events[i + 1]["type"] != "deal"):
            seen += 1
            if seen == deal_no:
                j, count = i + 1, 0
                while count < plays:
                    count += events[j]["type"] == "play"
                    j += 1
                return {**match, "events": events[:j]}
    raise ValueError("no such deal")


def cut_after_deal(match: dict[str, Any], deal_no: int) -> dict[str, Any]:
    ends = [i for i, ev in enumerate(match["events"]) if ev["type"] == "deal_end"]
    return {**match, "events": match["events"][:ends[deal_no - 1] + 1]}


def close(match: dict[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    """Append match-level events, then the match_end claim of where they leave it."""
    match = {**match, "events": match["events"] + list(events)}
    st = fold(match)
    assert st.phase == "ended"
    match["events"].append({"type": "match_end", "winner": st.winner, "scores": st.scores})
    return match


def timed(match: dict[str, Any], start: datetime, seed: int) -> dict[str, Any]:
    """An "at" on every event, as a site log has: a few seconds a move, pauses between deals."""
    rng = random.Random(seed)
    now = start
    out = []
    for ev in match["events"]:
        kind = ev["type"]
        now += timedelta(seconds={"deal": rng.randint(8, 12), "play": rng.randint(2, 14),
                                  "draw": rng.randint(1, 3), "pass": 1}.get(kind, 0))
        out.append({**ev, "at": now.strftime("%Y-%m-%dT%H:%M:%SZ")})
    return {**match, "started_at": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "events": out}


def drop_free_ends(match: dict[str, Any]) -> dict[str, Any]:
    """Leave out ``end`` wherever the format allows it (every fitting end alike)."""
    rules = make_rules(match["table"]["rules"], len(match["seats"]),
                       match["table"].get("options"))
    st = State(rules)
    out = []
    for i, raw in enumerate(match["events"]):
        ev = event_from_dict(raw, len(match["seats"]))
        if isinstance(ev, Played) and st.table and "end" in raw:
            fits = fitting_ends(st, ev.tile)
            if len({outcome_key(st, ev.tile, e) for e in fits}) == 1 \
                    and END_NAMES[fits[0]] == raw["end"]:
                raw = {k: v for k, v in raw.items() if k != "end"}
        advance(st, ev, i, [], [])
        out.append(raw)
    return {**match, "events": out}


def notation(match: dict[str, Any], sep: str) -> dict[str, Any]:
    """Tiles written "6|3" instead of "6-3" (a notation readers accept)."""
    def tile(t: str | None) -> str | None:
        return None if t is None else t.replace("-", sep)

    def hands(hs: list[list[str] | None]) -> list[list[str | None] | None]:
        return [None if h is None else [tile(t) for t in h] for h in hs]

    out = []
    for ev in match["events"]:
        ev = dict(ev)
        if "hands" in ev:
            ev["hands"] = hands(ev["hands"])
        if "stock" in ev:
            ev["stock"] = [tile(t) for t in ev["stock"]]
        if "tile" in ev:
            ev["tile"] = tile(ev["tile"])
        out.append(ev)
    return {**match, "events": out}


def pretty(match: dict[str, Any]) -> str:
    """Indented header, one event a line: readable and diff-friendly."""
    parts = []
    for key, value in match.items():
        if key == "events":
            rows = ",\n".join("    " + json.dumps(ev, ensure_ascii=False) for ev in value)
            parts.append(f'  "events": [\n{rows}\n  ]')
        else:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def line(match: dict[str, Any]) -> str:
    return json.dumps(match, ensure_ascii=False, separators=(",", ":"))


# --- the samples --------------------------------------------------------------------


def complete_samples() -> dict[str, dict[str, Any]]:
    samples: dict[str, dict[str, Any]] = {}
    for k, (stem, preset, seats, options) in enumerate(TABLES):
        one_round = options.get("target") == 0
        # Seeds of their own: the same seed deals the same tiles at every table.
        match = pick(preset, seats, options, low=1 if one_round else 3,
                     high=1 if one_round else 9, start=20 * k)
        samples[stem] = dress(match, stem)

    samples["selminha-4-redeal"] = dress(
        pick("selminha", 4, {}, start=1100, want=lambda m: redeals(m) > 0), "selminha-4-redeal")

    # A player leaves in the middle of deal 3 of a three-seat Selminha game: "at a table
    # of three, the remaining player with more points wins".
    base = dress(pick("selminha", 3, {}, low=4, start=100), "selminha-3-resign")
    samples["selminha-3-resign"] = close(cut_mid_deal(base, 3, 5), {"type": "resign", "seat": 1})

    # Nobody moves for a week: "A table with no moves for 7 days ends with no winner".
    base = dress(pick("selminha", 2, {}, low=3, start=200), "selminha-2-abandon")
    samples["selminha-2-abandon"] = close(cut_mid_deal(base, 2, 6),
                                          {"type": "abandon", "reason": "no moves for 7 days"})

    # "Only if all players agree a game can end in a draw."
    base = dress(pick("casual-arena", 2, {}, low=3, start=300), "casual-arena-2-agree-draw")
    samples["casual-arena-2-agree-draw"] = close(cut_after_deal(base, 2), {"type": "agree_draw"})

    # A marked bot takes the seat of a player who left (seed 000, §9), early in deal 2.
    base = dress(pick("domena", 4, {}, low=3, start=400), "domena-4-bot")
    events = base["events"]
    second = [i for i, ev in enumerate(events) if ev["type"] == "deal"][1]
    base["events"] = events[:second + 3] + [{"type": "bot", "seat": 2}] + events[second + 3:]
    samples["domena-4-bot"] = base

    # A site log: source, start time, "at" on every event, "6|3" tiles, ends left out
    # wherever every fitting end leaves the same open numbers.
    base = dress(pick("domena", 2, {}, low=3, start=500), "domena-2-timed")
    base = notation(timed(drop_free_ends(base), datetime(2026, 11, 1, 20, 15), seed=500), "|")
    samples["domena-2-timed"] = {
        "format": base["format"],
        "source": {"site": "playelephant", "id": "t-99812",
                   "note": "synthetic sample (make_samples.py)"},
        "table": base["table"], "seats": base["seats"], "started_at": base["started_at"],
        "events": base["events"]}
    return samples


def several(stem: str, tables: list[tuple[str, int, dict[str, Any]]],
            start: int) -> list[dict[str, Any]]:
    out = []
    for k, (preset, seats, options) in enumerate(tables):
        one_round = options.get("target") == 0
        match = pick(preset, seats, options, low=1 if one_round else 2, high=12,
                     start=start + 10 * k)
        out.append(dress(match, f"{stem}-{k}"))
    return out


CLUB_NIGHT = [("casual-arena", 2, {}), ("casual-arena", 3, {"target": 50}),
              ("casual-arena", 4, {"teams": True}), ("casual-arena", 2, {"target": 0}),
              ("casual-arena", 4, {}), ("selminha", 2, {"target": 50})]
ARCHIVE = [("domena", 2, {}), ("domena", 4, {}), ("sahrat-draw", 2, {}),
           ("sahrat-fives", 4, {}), ("sahrat-partner", 4, {}), ("arab-block", 2, {}),
           ("selminha", 3, {}), ("casual-arena", 3, {})]


# --- partial records ----------------------------------------------------------------


def as_seen_by(match: dict[str, Any], seat: int, keep_reveal: Any = True) -> dict[str, Any]:
    """The record one seat keeps: other hands and their draws unseen, no stock list."""
    events = []
    deal_no = 0
    for ev in match["events"]:
        kind = ev["type"]
        if kind == "deal":
            deal_no += 1
            ev = {"type": "deal", "hands": [h if s == seat else None
                                            for s, h in enumerate(ev["hands"])]}
        elif kind == "draw" and ev["seat"] != seat:
            ev = {**ev, "tile": None}
        elif kind == "reveal" and not (keep_reveal is True or deal_no in keep_reveal):
            continue
        events.append(ev)
    return {**match, "events": events}


def blind_runs(match: dict[str, Any], seat: int) -> bool:
    """Whether ``seat`` ever draws a tile it does not play at once (an unknowable tile)."""
    events = match["events"]
    for ev, nxt in zip(events, events[1:], strict=False):
        if ev["type"] == "draw" and ev["seat"] == seat and not (
                nxt["type"] == "play" and nxt["seat"] == seat):
            return True
    return False


def starting_hands(match: dict[str, Any]) -> dict[int, list[list[str]]]:
    """Event index of each deal played -> its hands (the truth a partial record hides)."""
    events = match["events"]
    return {i: ev["hands"] for i, ev in enumerate(events)
            if ev["type"] == "deal" and i + 1 < len(events) and events[i + 1]["type"] != "deal"}


def redeal_elsewhere(match: dict[str, Any], seat: int) -> bool:
    """Whether some deal is redealt for another seat's doubles, not ``seat``'s."""
    events = match["events"]
    return any(a["type"] == "deal" and b["type"] == "deal"
               and sum(t[0] == t[2] for t in a["hands"][seat]) < 4
               for a, b in zip(events, events[1:], strict=False))


def partial_samples() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    out = {}
    # Four seats, no stock: seat 0 sees its own hand; the reveals show the rest.
    full = dress(pick("domena", 4, {}, low=3, start=600), "partial-domena-4")
    rec = as_seen_by(full, 0)
    out["domena-4-seen-by-seat-0"] = (rec, {
        "why": "No stock: each hidden hand is its tiles played plus its tiles revealed.",
        "rebuilt": starting_hands(full), "unknown": []})

    # Selminha at four: a deal is reshuffled for another player's doubles, which the
    # recorder never sees; the redeal stands (a hidden hand may have held them).
    full = dress(pick("selminha", 4, {}, low=3, start=650,
                      want=lambda m: redeal_elsewhere(m, 0)), "partial-selminha-4")
    rec = as_seen_by(full, 0)
    out["selminha-4-redeal-seen-by-seat-0"] = (rec, {
        "why": "No stock: every played hand is rebuilt from its plays and the reveal; the "
               "redealt deal had no play, so its hidden hands matter to nothing.",
        "rebuilt": starting_hands(full), "unknown": []})

    # Two seats with a boneyard: seat 1's draws are unseen, but it plays each drawn
    # tile at once, so every draw is known and every hand rebuilt.
    full = dress(pick("sahrat-draw", 2, {}, low=3, start=700,
                      want=lambda m: not blind_runs(m, 1)
                      and any(e["type"] == "draw" and e["seat"] == 1 for e in m["events"])),
                 "partial-sahrat-draw-2")
    rec = as_seen_by(full, 0)
    out["sahrat-draw-2-seen-by-seat-0"] = (rec, {
        "why": "Seat 1 plays every tile it draws at once ('it can only be the drawn one'), "
               "so its draws are known, and played + revealed - drawn is its hand.",
        "rebuilt": starting_hands(full), "unknown": []})

    # Some tiles must stay unknown: seat 1 keeps a tile it drew (which one of its tiles
    # was drawn cannot be told), and in one deal seat 0 goes out and nobody reveals.
    def plan(m: dict[str, Any]) -> tuple[list[int], int] | None:
        if redeals(m):
            return None
        events = m["events"]
        starts = [i for i, ev in enumerate(events) if ev["type"] == "deal"]
        spans = zip(starts, starts[1:] + [len(events)], strict=True)
        kept = [k for k, (a, b) in enumerate(spans, 1) if blind_runs({"events": events[a:b]}, 1)]
        ends = [ev for ev in events if ev["type"] == "deal_end"]
        quiet = [k for k in range(1, len(starts) + 1) if k not in kept
                 and ends[k - 1]["result"] == "out" and ends[k - 1]["winner"] == 0]
        return (kept, quiet[0]) if kept and quiet else None

    full = dress(pick("selminha", 2, {}, low=3, start=800, want=plan), "partial-selminha-2")
    planned = plan(full)
    assert planned is not None
    kept_draw, no_reveal = planned
    truth = starting_hands(full)
    deals = list(truth)
    rec = as_seen_by(full, 0, keep_reveal=[k for k in range(1, len(deals) + 1)
                                           if k != no_reveal])
    rec_deals = [i for i, ev in enumerate(rec["events"]) if ev["type"] == "deal"]
    unknown = sorted(set(kept_draw) | {no_reveal})
    out["selminha-2-some-unknown"] = (rec, {
        "why": f"Deal(s) {kept_draw}: seat 1 draws a tile it does not play at once, so which "
               f"of its tiles came from the boneyard may stay unknown. Deal {no_reveal}: seat 0 "
               "goes out and nobody reveals, so the tiles seat 1 still held stay unknown (the "
               "deal's points come from the deal_end claim).",
        "rebuilt": {rec_deals[k - 1]: truth[deals[k - 1]] for k in range(1, len(deals) + 1)
                    if k not in unknown},
        "unknown": [{"event": rec_deals[k - 1], "seat": 1, "hand": truth[deals[k - 1]][1]}
                    for k in unknown],
        "no_reveal": rec_deals[no_reveal - 1]})
    return out


# --- writing ------------------------------------------------------------------------


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    for stem, match in complete_samples().items():
        write(HERE / f"{stem}.json", pretty(match))
    club = several("club-night", CLUB_NIGHT, 900)
    write(HERE / "club-night.jsonl", "".join(line(m) + "\n" for m in club))
    archive = several("archive", ARCHIVE, 1000)
    data = "".join(line(m) + "\n" for m in archive).encode()
    (HERE / "archive.jsonl.gz").write_bytes(gzip.compress(data, mtime=0))
    for stem, (match, expected) in partial_samples().items():
        write(HERE / "partial" / f"{stem}.json", pretty(match))
        write(HERE / "partial" / f"{stem}.expected.json",
              json.dumps(expected, ensure_ascii=False, indent=2) + "\n")
    for fault in faults():
        match, expected = build(fault)
        write(HERE / "faulty" / f"{fault.name}.json", pretty(match))
        write(HERE / "faulty" / f"{fault.name}.expected.json",
              json.dumps(expected, ensure_ascii=False, indent=2) + "\n")


if __name__ == "__main__":
    main()
