"""Replay analysis: what each player knew, and what the best play was.

- ``knowledge``: per step and per seat, the tiles seen, the numbers others lack,
  the tiles of each number still unseen, the numbers used up on the table.
- ``solver``: perfect-information values of every position of a deal (alpha-beta
  for two sides, max-n for three or four, in C: ``_maxn.c``), from the rules' own scoring.
- ``positions``: best play from any position (hidden hands supplied by the caller), and
  batches of positions solved on every core.
- ``review``: a recorded match deal by deal: best play at the start and after each
  move, every option of every decision and what each mistake cost; per step too.
- ``swing``: the swing chart of a deal as a Plotly figure (plain data).
- ``stats``: player statistics over audited matches, per table.
- ``whatif``: a match re-scored under another table, the two sheets side by side.
- ``cli``: ``domino-ledger analyse`` (``cli_whatif``, ``cli_stats``: ``whatif``, ``stats``).
"""
