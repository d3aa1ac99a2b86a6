#!/usr/bin/env bash
# The whole check on a fresh clone, and what CI runs (.ci/run calls it): the system packages the tests need, the npm
# packages, then typecheck, lint, formatting and every test suite. `npm run check` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive

# Debian packages: Chromium (e2e tests, PDF printing), poppler-utils (reading PDFs back), PostgreSQL (linked-PostgreSQL
# tests), ClickHouse's server (linked-ClickHouse tests: throwaway 1- and 3-shard clusters; Debian ships 18.16).
APT_PACKAGES=(chromium poppler-utils postgresql clickhouse-server)
missing() {
  ! command -v chromium >/dev/null 2>&1 || ! command -v pdftotext >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    ! { [ -x /usr/sbin/clickhouse-server ] || [ -x /usr/bin/clickhouse ]; }
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

echo "== typecheck"
npm run typecheck

echo "== lint (ESLint: typescript-eslint, React hooks, the layer boundaries) and the formatter (Prettier, 150 columns)"
npm run lint
npm run format:check

echo "== test (builds the app, then the unit, integration and end-to-end suites)"
npm test
