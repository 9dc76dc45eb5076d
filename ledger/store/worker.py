"""An import worker: ``python -m ledger.store.worker PATH JOBS K`` (or ``--files JOBS K``).

Reads the file, decodes and prepares every JOBS-th match from the K-th on (audit,
canonical rows, hashes, read model) and pickles them to stdout for the
importing process, which alone writes to the database. Every worker counts
the file's matches the same way, so together they cover each match once.
"""

from __future__ import annotations

import gc
import pickle
import sys

from ledger.formats.reader import ReadError, read_matches
from ledger.store.prepare import item_of


def main(argv: list[str]) -> int:
    if argv[0] == "--files":
        return whole_files(int(argv[1]), int(argv[2]), sys.stdin.read().splitlines())
    path, jobs, k = argv[0], int(argv[1]), int(argv[2])
    # As the importing command does: the collector need not re-scan the modules' objects.
    gc.freeze()
    out = pickle.Pickler(sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        try:
            for record in read_matches(path, part=(k, jobs)):  # the others' lines undecoded
                out.dump(("item", item_of(record, for_sqlite=True)))
                out.clear_memo()
        except ReadError as exc:
            out.dump(("read-error", str(exc)))
            return 0
        out.dump(("end", None))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        return 0  # the importer stopped reading (killed, or interrupted): nothing to do
    return 0


def whole_files(jobs: int, k: int, paths: list[str]) -> int:
    """``--files JOBS K`` (the paths on stdin): every JOBS-th file from the K-th on, whole,
    each followed by ``file-end`` or by the error that stopped its reading."""
    gc.freeze()
    out = pickle.Pickler(sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        for path in paths[k::jobs]:
            try:
                for record in read_matches(path):
                    out.dump(("item", item_of(record, for_sqlite=True)))
                    out.clear_memo()
                out.dump(("file-end", None))
            except ReadError as exc:
                out.dump(("read-error", (exc.template, exc.params)))
            out.clear_memo()  # each message stands alone, the next file's too
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
