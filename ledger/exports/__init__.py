"""Score sheets and matches out of the ledger: CSV, JSON, PDF and domino-match/1 files.

Each format is a module with one ``write_*``/``*_bytes`` entry point over
``ledger.scoresheet.ScoreSheet`` values (``csv_bytes``, ``json_bytes``,
``pdf_bytes``); ``cli`` is the ``export`` subcommand, ``select`` chooses the
matches it exports (files, or the ledger through ``stored``).
"""
