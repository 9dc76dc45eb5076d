"""Hand-crafted deals shared by the table tests.

Each deal is written for seat 0 as the opener (``by`` turns it round the table).
The comment under each one is the working a test's expectations rest on: which
tiles are left where, and their pips, counted by hand from the moves. The longer
move lists were first found with a small stand-alone simulator written for these
tests (not the engine) and then checked move by move; the tests themselves
assert no rule finding on them, so the engine agrees that they are legal.
"""

from __future__ import annotations

from .helpers import Scenario

# --- four seats, all 28 tiles dealt ---------------------------------------------------

# The 6s run out: 6-6 opens, the line grows to ten tiles, and the last 6-tile (0-6)
# leaves 6 at both ends with all seven 6-tiles down. Seats play in turn, no passes:
# r0 plays 6-6 1-2 5-0, r1 6-3 4-6 0-6 (the last tile), r2 2-6 6-1, r3 3-4 6-5.
# Ends: 66 (6,6) 63r (6,3) 26l (2,3) 34r (2,4) 12l (1,4) 46r (1,6) 61l (6,6)
# 65r (6,5) 50r (6,0) 06r (6,6): blocked, and nobody has passed yet.
LINE6_PLAYED = ("66 12 50", "63 46 06", "26 61", "34 65")
LINE6_SCRIPT = "0:66 1:63r 2:26l 3:34r 0:12l 1:46r 2:61l 3:65r 0:50r 1:06r"
# The 18 tiles the line leaves, 90 pips in all; r0 and r1 keep 4, r2 and r3 keep 5:
# 00 10 20 30 40 11 31 41 51 22 32 42 52 33 53 44 54 55


def line6(left: tuple[str, str, str, str]) -> Scenario:
    """The 6-line block with ``left`` as the tiles each seat still holds at the block."""
    hands = tuple(f"{p} {rest}" for p, rest in zip(LINE6_PLAYED, left, strict=True))
    return Scenario(hands, LINE6_SCRIPT)


# r2 alone lowest. r0 55 54 44 53 = 35, r1 52 42 33 51 = 25, r2 00 10 20 11 30 = 8,
# r3 40 31 22 41 32 = 22. Pair r0+r2 = 43, pair r1+r3 = 47.
LOW_R2 = line6(("55 54 44 53", "52 42 33 51", "00 10 20 11 30", "40 31 22 41 32"))

# r2 alone lowest but its pair heavier: r0 55 54 44 53 = 35, r1 51 42 31 22 = 20,
# r2 00 10 20 11 52 = 12, r3 30 40 41 32 33 = 23. Pair r0+r2 = 47, pair r1+r3 = 43.
LOW_R2_HEAVY_PAIR = line6(("55 54 44 53", "51 42 31 22", "00 10 20 11 52",
                           "30 40 41 32 33"))

# r1 and r2 (different pairs) tie lowest, the pair sums differ:
# r0 51 32 22 41 = 20, r1 55 40 11 30 = 19, r2 10 00 42 53 31 = 19, r3 44 20 52 33 54 = 32.
# Pair r0+r2 = 39, pair r1+r3 = 51.
TIE_R1_R2 = line6(("51 32 22 41", "55 40 11 30", "10 00 42 53 31", "44 20 52 33 54"))

# r1 and r2 tie lowest and the pair sums are equal too:
# r0 55 52 54 10 = 27, r1 30 31 32 51 = 18, r2 44 40 22 20 00 = 18, r3 53 33 41 11 42 = 27.
# Pair r0+r2 = 45, pair r1+r3 = 45.
TIE_EVEN = line6(("55 52 54 10", "30 31 32 51", "44 40 22 20 00", "53 33 41 11 42"))

# Partners r0 and r2 tie lowest: r0 22 52 44 10 = 20, r1 42 54 33 40 = 25,
# r2 32 55 20 30 00 = 20, r3 53 11 41 51 31 = 25. Pair r0+r2 = 40, pair r1+r3 = 50.
PARTNERS_R0_R2 = line6(("22 52 44 10", "42 54 33 40", "32 55 20 30 00", "53 11 41 51 31"))

# Partners r1 and r3 tie lowest: r0 11 44 55 54 = 29, r1 53 20 51 40 = 20,
# r2 00 30 32 52 33 = 21, r3 31 22 41 10 42 = 20. Pair r0+r2 = 50, pair r1+r3 = 40.
PARTNERS_R1_R3 = line6(("11 44 55 54", "53 20 51 40", "00 30 32 52 33", "31 22 41 10 42"))

# r0 (the opener) alone lowest: r0 00 10 20 40 = 7, r1 55 54 44 53 = 35,
# r2 11 30 31 41 51 = 20, r3 22 32 42 52 33 = 28. The others hold 35 + 20 + 28 = 83.
LOW_R0 = line6(("00 10 20 40", "55 54 44 53", "11 30 31 41 51", "22 32 42 52 33"))

# The same ten tiles laid for Sahrat Fives, all on the left of the 6-6 spinner, so
# the spinner stays an end (12) and its right side never gets a tile:
# 66 (12) 61l (1+12=13) 12l (14) 26l (18) 63l (15: r0 scores 15) 34l (16) 46l (18)
# 65l (17) 50l (12) 06l (18). Then 6 shows on the left and on the spinner's right,
# all seven 6-tiles are down: blocked.
FIVES_LINE6_SCRIPT = "0:66 1:61l 2:12l 3:26l 0:63l 1:34l 2:46l 3:65l 0:50l 1:06l"
FIVES_LINE6_PLAYED = ("66 63 50", "61 34 06", "12 46", "26 65")


def fives_line6(left: tuple[str, str, str, str]) -> Scenario:
    hands = tuple(f"{p} {rest}" for p, rest in zip(FIVES_LINE6_PLAYED, left, strict=True))
    return Scenario(hands, FIVES_LINE6_SCRIPT)


# r0 goes out on the 25th play, nobody passes. Left: r1 00 (0), r2 33 (6), r3 44 (8).
OUT_R0 = Scenario(
    ("66 61 43 31 22 20 10", "62 60 52 41 30 11 00", "65 63 55 54 40 33 32",
     "64 53 51 50 44 42 21"),
    "0:66 1:60r 2:65l 3:50l 0:10r 1:11r 2:40l 3:21r 0:22r 1:41l 2:32r 3:53r 0:61l "
    "1:62l 2:55r 3:42l 0:43l 1:30l 2:54r 3:64r 0:20l 1:52l 2:63r 3:51l 0:31l",
)

# r2 (r0's partner) goes out; r0 passes with ends 3 and 0 holding 44 22 11, r1 passes
# with ends 1 and 4 holding 55. Left: r0 44 (8), r1 55 (10), r3 00 (0).
OUT_R2 = Scenario(
    ("66 65 62 53 44 22 11", "61 55 43 42 33 20 10", "64 54 50 41 32 31 21",
     "63 60 52 51 40 30 00"),
    "0:66 1:61l 2:31l 3:60r 0:53l 1:20r 2:32r 3:52l 0:62l 1:43r 2:54r 3:63l 0:65r "
    "1:33l 2:64r 3:40r 0:pass 1:10r 2:21r 3:30l 0:22r 1:42r 2:50l 3:51l 0:11l 1:pass 2:41r",
)

# OUT_R2 gives seat 0 four doubles (a Selminha redeal); this one does not. r2 goes out;
# r0 passes with ends 6 and 4 holding 53 51 31 30, r1 with ends 1 and 4 holding 55 50 33,
# and again with ends 3 and 2 holding 55 50. Left: r0 53 (8), r1 55 50 (15), r3 00 (0).
OUT_R2B = Scenario(
    ("66 60 53 51 42 31 30", "65 61 55 50 43 33 22", "54 44 41 40 32 21 20",
     "64 63 62 52 11 10 00"),
    "0:66 1:65r 2:54r 3:64l 0:42r 1:22r 2:44l 3:62r 0:60r 1:43l 2:40r 3:63l 0:pass 1:61l "
    "2:21l 3:52l 0:51l 1:pass 2:41r 3:11r 0:31r 1:33r 2:32r 3:10l 0:30l 1:pass 2:20r",
)

# --- two seats with a stock of 14 -----------------------------------------------------

# 4-4 is the highest double dealt (66 55 33 are in the stock): seat 0 opens. Seat 0
# draws eight for 2-2, seat 1 draws the last six and the 2s are gone: blocked at
# that draw, seat 0 having laid the last tile. Left: seat 0 63 43 51 33 54 11 40 55 10
# = 54, seat 1 61 60 50 00 66 31 53 64 = 52.
BLOCK2 = Scenario(
    ("65 63 52 44 43 32 30", "62 61 60 42 41 21 20"),
    "0:44 1:42r 0:32r 1:41l 0:30r 1:21l 0:52l 1:20r 0:65l 1:62l "
    "0:draw 0:draw 0:draw 0:draw 0:draw 0:draw 0:draw 0:draw 0:22r "
    "1:draw 1:draw 1:draw 1:draw 1:draw 1:draw",
    stock="51 33 54 11 40 55 10 22 50 00 66 31 53 64",
)

# Seat 0 opens 6-6; the 3s run out with seat 0 laying 3-3 last. Left: seat 0
# 10 11 22 44 50 51 55 = 36 (lowest tile 1-0), seat 1 00 20 21 40 41 42 52 54 = 36
# (lowest tile 0-0).
TIE2 = Scenario(
    ("66 61 51 50 43 32 11", "65 64 63 62 52 31 30"),
    "0:66 1:63l 0:32l 1:64r 0:43r 1:62l 0:61l 1:31l 0:draw 0:draw 0:draw 0:53l 1:65l "
    "0:draw 0:60l 1:30l 0:draw 0:draw 0:draw 0:33r "
    "1:draw 1:draw 1:draw 1:draw 1:draw 1:draw 1:draw",
    stock="10 44 53 60 55 22 33 41 21 00 20 40 42 54",
)

# Seat 1 holds 6-6 and opens; the 5s run out, seat 0 laying 6-5 last. Left: seat 0
# 11 32 33 43 = 2+5+6+7 = 20, seat 1 20 41 60 61 = 2+5+6+7 = 20: the same pips
# tile by tile.
TWIN2 = Scenario(
    ("63 62 51 50 40 33 10", "66 61 53 42 31 30 21"),
    "1:66 0:62r 1:21r 0:51r 1:53r 0:63l 1:30l 0:50l 1:31r 0:10r 1:draw 1:draw 1:00r "
    "0:40r 1:42r 0:draw 0:draw 0:draw 0:22r 1:draw 1:55l 0:draw 0:52r 1:draw 1:draw "
    "1:54r 0:44r 1:64r 0:draw 0:draw 0:draw 0:65r 1:draw 1:draw",
    stock="41 00 11 44 22 55 52 64 54 43 32 65 20 60",
)

# Seat 1 holds 5-5, the highest double dealt (6-6 is in the stock), and opens; seat 0
# goes out, seat 1 is left with 6-5 (11).
OUT2 = Scenario(
    ("64 63 54 50 33 20 10", "65 61 55 43 41 30 00"),
    "1:55 0:54r 1:41r 0:50l 1:00l 0:10l 1:61l 0:63l 1:30l 0:20l 1:draw 1:31r 0:33r "
    "1:43r 0:64r",
    stock="31 60 32 62 11 51 66 52 53 42 44 22 40 21",
)

# --- three seats with a stock of 7 ----------------------------------------------------

# Seat 0 opens 6-6; the 1s run out, seat 2 laying 1-1 last, then seat 0 draws the rest.
# Left: seat 0 30 32 33 42 44 50 54 63 65 = 62, seat 1 20 22 40 43 = 17 (lowest tile
# 2-0), seat 2 00 52 55 = 17 (lowest tile 0-0).
TIE3 = Scenario(
    ("66 62 60 53 50 42 33", "43 40 31 22 21 20 10", "64 55 52 51 41 11 00"),
    "0:66 1:draw 1:61r 2:41r 0:60l 1:10l 2:64r 0:62r 1:21r 2:51l 0:53l 1:31l 2:11l "
    "0:draw 0:draw 0:draw 0:draw 0:draw 0:draw",
    stock="61 30 65 63 44 32 54",
)

# Seat 2 holds 5-5 (6-6 is in the stock) and opens; the 5s run out. Left: seat 0
# 22 32 33 = 4+5+6 = 15, seat 1 31 41 60 = 4+5+6 = 15, seat 2 00 10 20 21 30 44 62 63
# 64 66 = 56.
TWIN3 = Scenario(
    ("65 53 40 33 32 22 11", "60 52 51 50 43 41 31", "63 61 55 54 44 10 00"),
    "2:55 0:53r 1:43r 2:54r 0:65r 1:52l 2:61r 0:11r 1:51r 2:draw 2:42l 0:40l 1:50l "
    "2:draw 2:draw 2:draw 2:draw 2:draw 2:draw",
    stock="42 62 64 20 66 21 30",
)

# --- two seats, no drawing (Arab block) ----------------------------------------------

# Seat 1 holds 2-2, the highest double dealt, opens and goes out; seat 0 keeps 2-0 (2).
ARAB_OUT_LEADER = Scenario(
    ("53 51 50 42 31 20 10", "64 61 52 41 40 22 00"),
    "1:22 0:42r 1:41r 0:51r 1:52l 0:50l 1:00l 0:10l 1:61l 0:53r 1:64l 0:31r 1:40l",
)

# Seat 1 opens 6-6 and passes twice (ends 3 and 2 holding 61 55 41 00 64; ends 2 and 2
# holding the same); seat 0 goes out, seat 1 keeps 55 64 = 20.
ARAB_OUT_OTHER = Scenario(
    ("63 60 42 32 22 21 11", "66 64 62 61 55 41 00"),
    "1:66 0:63l 1:62r 0:22r 1:pass 0:32l 1:pass 0:21r 1:61r 0:60r 1:00r 0:42l 1:41l 0:11l",
)

# --- Sahrat Fives, two seats ------------------------------------------------------------

# Seat 0 holds 5-5, the highest double dealt (6-6 is in the stock); seat 1's seventh
# tile is left open (``x``): seat 1 never draws or passes, so any free tile will do.
# Open ends after each play, and the count (a double at an end counts both halves; the
# spinner 5-5 counts 10 while one of its sides is bare, nothing after; an empty up or
# down arm adds nothing):
#  1 0:55   spinner alone                 10 -> seat 0 scores 10
#  2 1:51l  L1 + spinner 10                11
#  3 0:54r  L1 R4, both sides covered       5 -> seat 0 scores 5 (up and down open, bare)
#  4 1:11l  L1-1 (2) R4                     6
#  5 0:44r  L1-1 (2) R4-4 (8)              10 -> seat 0 scores 10
#  6 1:50u  2 + 8 + U0                     10 -> seat 1 scores 10
#  7 0:53d  2 + 8 + 0 + D3                 13
#  8 1:32d  2 + 8 + 0 + D2                 12
#  9 0:30u  2 + 8 + U3 + 2                 15 -> seat 0 scores 15
# 10 1:22d  2 + 8 + 3 + D2-2 (4)           17
# 11 0:64r  2 + R6 + 3 + 4                 15 -> seat 0 scores 15
# 12 1:62r  2 + R2 + 3 + 4                 11
# 13 0:61l  L6 + 2 + 3 + 4                 15 -> seat 0 scores 15 and is out
# In-deal: seat 0 70, seat 1 10. Seat 0 then scores seat 1's last tile, rounded to 5.
FIVES_SCRIPT = ("0:55 1:51l 0:54r 1:11l 0:44r 1:50u 0:53d 1:32d 0:30u 1:22d 0:64r 1:62r "
                "0:61l")
FIVES_COUNTS = [(1, 0, 10), (3, 0, 5), (5, 0, 10), (6, 1, 10), (9, 0, 15), (11, 0, 15),
                (13, 0, 15)]


def fives2(x: str) -> Scenario:
    return Scenario(("55 54 44 53 30 64 61", f"51 11 50 32 22 62 {x}"), FIVES_SCRIPT)


# Seat 0 opens 5-5 (10), seat 1 lays 5-0 beside it (0 + 10 = 10); no later count is a
# multiple of 5 (1 3 4 6 7 9 3 7 11 4 7), and seat 0 goes out leaving seat 1 only 1-0,
# which rounds to 0: the deal ends 10 to 10.
FIVES_EVEN = Scenario(
    ("55 51 43 32 60 44 53", "50 31 20 64 54 41 10"),
    "0:55 1:50l 0:51r 1:31r 0:43r 1:20l 0:32l 1:64r 0:60r 1:54u 0:44u 1:41u 0:53d",
)

# Four seats, Fives: the 6-line laid left of the spinner, r0 alone lowest (7):
# r0 00 10 20 40 = 7, r1 55 54 44 53 = 35, r2 11 30 31 41 51 = 20, r3 22 32 42 52 33 = 28.
FIVES_LOW_R0 = fives_line6(("00 10 20 40", "55 54 44 53", "11 30 31 41 51",
                            "22 32 42 52 33"))

# Three seats: seat 1 holds 6-6 and opens; seat 2 goes out; seat 0 keeps 5-5 (10),
# seat 1 keeps 6-4 (10).
OUT3 = Scenario(
    ("63 61 55 42 22 11 10", "66 64 62 51 44 32 30", "65 54 53 52 50 43 20"),
    "1:66 2:65l 0:63r 1:30r 2:53l 0:10r 1:32l 2:52l 0:11r 1:51r 2:54l 0:42l 1:62l 2:50r "
    "0:61l 1:draw 1:41l 2:20r 0:22r 1:44l 2:43l",
    stock="41 40 33 60 00 31 21",
)

# Arab block: seat 0 opens 6-6 and nobody holds another 6: blocked at once. Seat 0 keeps
# 10 20 11 21 30 00 = 11, seat 1 55 44 33 54 53 43 52 = 55.
ARAB_BLOCK_AT_ONCE = Scenario(("66 10 20 11 21 30 00", "55 44 33 54 53 43 52"), "0:66")

# The same, both left with 38: seat 0 54 53 52 51 43 10, seat 1 55 44 33 42 32 30 00.
ARAB_BLOCK_EVEN = Scenario(("66 54 53 52 51 43 10", "55 44 33 42 32 30 00"), "0:66")

# 6-6, 6-3 left, 6-1 right: the ends are 3 and 1 and neither hand has a 3 or a 1.
# Seat 0 keeps 00 20 22 40 42 = 16, seat 1 62 64 44 50 52 54 = 47.
ARAB_BLOCK_PLAYED = Scenario(("66 61 00 20 22 40 42", "63 62 64 44 50 52 54"),
                             "0:66 1:63l 0:61r")
