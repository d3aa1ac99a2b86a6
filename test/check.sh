#!/usr/bin/env bash
# The whole check on a fresh clone, and what CI runs (.ci/run calls it): the system packages the tests need, the npm
# packages, then typecheck, lint, formatting, the build and every test suite (each step runs even when another fails).
# `npm run check` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive

# Debian packages: Chromium (e2e tests, PDF printing), poppler-utils (reading PDFs back), PostgreSQL (linked-PostgreSQL
# tests), ClickHouse's server (linked-ClickHouse tests: throwaway 1- and 3-shard clusters; Debian ships 18.16), Python 3
# with cryptography (the second ledger verifier and the API client in resources/, run against the product's).
APT_PACKAGES=(chromium poppler-utils postgresql clickhouse-server python3 python3-cryptography)
missing() {
  ! command -v chromium >/dev/null 2>&1 || ! command -v pdftotext >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    ! { [ -x /usr/sbin/clickhouse-server ] || [ -x /usr/bin/clickhouse ]; } || ! python3 -c 'import cryptography' >/dev/null 2>&1
}
echo "== system packages: ${APT_PACKAGES[*]}"
if missing; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "Not a Debian system: install ${APT_PACKAGES[*]} (or set CHROMIUM_PATH, QA_PG_BIN and QA_CH_SERVER) and run this again." >&2
    exit 2
  fi
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq "${APT_PACKAGES[@]}" >/dev/null
fi
chromium --version || true
ls /usr/lib/postgresql/*/bin/initdb
ls /usr/sbin/clickhouse-server 2>/dev/null || ls /usr/bin/clickhouse

echo "== npm packages (npm ci when node_modules is missing or older than package-lock.json; it also builds the app)"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# Every step below runs even when an earlier one fails, so that one failure hides no other; the summary names each.
failed=()
step() {
  local name=$1
  shift
  echo "== $name"
  local t0=$SECONDS
  if "$@"; then
    echo "== $name: passed ($((SECONDS - t0)) s)"
  else
    echo "== $name: FAILED ($((SECONDS - t0)) s)"
    failed+=("$name")
  fi
}

step typecheck npm run typecheck
step "lint (ESLint: typescript-eslint, React hooks, the layer boundaries)" npm run lint
step "format (Prettier, 150 columns)" npm run format:check
step build npm run build
step "unit and integration tests" npx vitest run --project unit --project integration
step "end-to-end tests" npx vitest run --project e2e
# The soaks' bounded form: the full counts run in `npm run soak`.
step "soak tests (bounded)" env QA_SOAK_SEALS=2000 npx vitest run --project soak

echo "== summary"
if [ ${#failed[@]} -eq 0 ]; then
  echo "every step passed"
else
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
