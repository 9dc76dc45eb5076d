#!/usr/bin/env bash
# The main job: the web app (domino-ledger serve) on the embedded SQLite ledger.
# The first start, on an empty ledger, imports sample_matches/ so there is something to
# browse. Arguments go to `serve`: --host, --port, --db URL ($DOMINO_LEDGER_DB works too).
source "$(dirname "$0")/env.sh"

db=()
host=127.0.0.1
port=8000
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --db) db=(--db "${args[i + 1]:-}") ;;
    --db=*) db=(--db "${args[i]#--db=}") ;;
    --host) host="${args[i + 1]:-$host}" ;;
    --host=*) host="${args[i]#--host=}" ;;
    --port) port="${args[i + 1]:-$port}" ;;
    --port=*) port="${args[i]#--port=}" ;;
  esac
done

# How many matches the ledger holds (opening it creates and migrates an embedded one).
stored=$(python - "${db[@]:1}" <<'EOF'
import sys

from ledger.store.db import open_db
from ledger.store.pages.queries import counts

engine = open_db(sys.argv[1] if len(sys.argv) > 1 else None)
with engine.connect() as conn:
    print(counts(conn)["matches"])
engine.dispose()
EOF
)

if [ "$stored" = "0" ]; then
  echo "domino-ledger: first start, importing the sample matches into the ledger..."
  shopt -s nullglob
  files=()
  for f in sample_matches/*.json sample_matches/*.jsonl sample_matches/*.jsonl.gz \
           sample_matches/faulty/*.json sample_matches/partial/*.json; do
    case "$f" in *.expected.json) ;; *) files+=("$f") ;; esac
  done
  if [ ${#files[@]} -gt 0 ]; then
    # Exit 1 only says some samples are faulty (some are, on purpose): they are stored too.
    domino-ledger import --no-progress "${db[@]}" "${files[@]}" >/dev/null || test $? -eq 1
  fi
fi

shown_host="$host"
case "$host" in 0.0.0.0 | "::") shown_host=127.0.0.1 ;; esac
echo "domino-ledger: open http://$shown_host:$port/ in a browser (Ctrl-C stops the server)"
exec domino-ledger serve "$@"
