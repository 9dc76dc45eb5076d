"""Replay analysis: what each player knew, and what the best play was.

- ``knowledge``: per step and per seat, the tiles seen, the numbers others lack,
  the tiles of each number still unseen, the numbers used up on the table.
- ``solver``: perfect-information values of every position of a deal (alpha-beta
  for two sides, max-n for three or four, in C: ``_maxn.c``), from the rules' own scoring.
- ``positions``: best play from any position (hidden hands supplied by the caller), and
  batches of positions solved on every core.
- ``review``: a recorded match deal by deal: best play at the start and after each
  move, every option of every decision and what each mistake cost; per step too.
- ``sampling``: deals of the unseen tiles consistent with what a seat knew, drawn
  uniformly (exact counting), seeded by the match's hash and the event.
- ``knowledge_review``: the review by what the player knew: each option's expected value
  over sampled deals, the knowledge loss, luck per seat; ``cli_knowledge``: its
  ``analyse --knowledge`` / ``--report`` output.
- ``swing``: the swing chart of a deal as a Plotly figure (plain data).
- ``stats``: player statistics over audited matches, per table.
- ``whatif``: a match re-scored under another table, the two sheets side by side.
- ``cli``: ``domino-ledger analyse`` (``cli_whatif``, ``cli_stats``: ``whatif``, ``stats``).
"""
