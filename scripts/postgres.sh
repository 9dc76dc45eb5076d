#!/usr/bin/env bash
# The local PostgreSQL the store tests use: 127.0.0.1:5432, user postgres, trust auth,
# database `test`. Starts it if it is stopped; installs it (apt-get) if it is missing.
# Idempotent and tolerant: it never fails the caller. If the server cannot be had, the
# PostgreSQL tests fail and say so.
set -uo pipefail

sudo_=""
[ "$(id -u)" -eq 0 ] || sudo_="sudo"
ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
newest() { ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1; }

installed_now=""
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(newest)" ]; then
  echo "postgres.sh: installing PostgreSQL" >&2
  $sudo_ apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq postgresql \
    || { echo "postgres.sh: could not install PostgreSQL" >&2; exit 0; }
  installed_now=1
fi
version="$(newest)"

if [ -n "$installed_now" ] && [ -n "$version" ]; then
  # A fresh server: let local connections in without a password (a test machine only).
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  $sudo_ sh -c "printf 'local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n' > '$hba'"
  $sudo_ pg_ctlcluster --skip-systemctl-redirect "$version" main reload >/dev/null 2>&1 || true
fi

if ! ready && [ -n "$version" ]; then
  $sudo_ pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || true
fi
for _ in $(seq 1 60); do ready && break; sleep 0.5; done
if ! ready; then
  echo "postgres.sh: PostgreSQL is not answering on 127.0.0.1:5432" >&2
  exit 0
fi

# The tests' database.
if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'test'" 2>/dev/null | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE test" >/dev/null 2>&1 \
    || echo "postgres.sh: could not create the database test" >&2
fi
exit 0
