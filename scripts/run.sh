#!/usr/bin/env bash
# The main job: audit every sample match (the web app takes this place once it lands).
source "$(dirname "$0")/env.sh"
shopt -s nullglob
domino-ledger audit sample_matches/*.json sample_matches/*.jsonl "$@" || test $? -eq 1
