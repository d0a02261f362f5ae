#!/usr/bin/env bash
# Makes docs/html-report.png (or the PNG named as the first argument) from the current page:
# the HTML report of fixtures/compare/v1.jsonl and v2.jsonl with their tasks and the fixture
# ledger's cost chart, opened at one attempt, as headless Chromium draws it with no network.
#
#   docs/screenshot.sh [OUT.png]
#
# PROCTOR names the proctor binary (default: built here with cargo, target/debug/proctor);
# CHROMIUM the browser (default: the first of chromium, chromium-browser, google-chrome on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/html-report.png}"
# The attempt opened at the bottom: agent-v1's attempt 1 of refund_duplicate_request, which
# broke a rule at step 3 (the page's 17th attempt, #attempt-16). The window is as tall as the
# whole page, so that Chromium scrolls nowhere and draws every part of it.
attempt="${PROCTOR_SCREENSHOT_ATTEMPT:-attempt-16}"
size="${PROCTOR_SCREENSHOT_SIZE:-1280,4900}"

if [ -z "${PROCTOR:-}" ]; then
  cargo build --quiet --locked -p proctor
  PROCTOR="${CARGO_TARGET_DIR:-target}/debug/proctor"
fi
browser="${CHROMIUM:-}"
if [ -z "$browser" ]; then
  for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then browser="$name"; break; fi
  done
fi
if [ -z "$browser" ]; then
  echo "docs/screenshot.sh: no headless Chromium on PATH (Debian: apt-get install -y chromium; or set CHROMIUM)" >&2
  exit 3
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Built where the page names its inputs as short relative paths, not a temporary folder.
root="$(pwd)"
case "$PROCTOR" in
  */*) PROCTOR="$(cd "$(dirname "$PROCTOR")" && pwd)/$(basename "$PROCTOR")" ;;
  *) PROCTOR="$(command -v "$PROCTOR")" ;;
esac
ln -s "$root/fixtures" "$work/fixtures"
cat fixtures/compare/v1.jsonl fixtures/compare/v2.jsonl >"$work/results.jsonl"
(cd "$work" && "$PROCTOR" report results.jsonl --format html --tasks fixtures/refunds/tasks.yaml \
  --ledger fixtures/ledger/ledger.csv >report.html)

# Root cannot use Chromium's own sandbox; the page is ours and makes no request.
sandbox=()
[ "$(id -u)" = 0 ] && sandbox=(--no-sandbox)
mkdir -p "$(dirname "$out")"
"$browser" --headless=new "${sandbox[@]}" --disable-gpu --hide-scrollbars \
  --no-first-run --no-default-browser-check --disable-extensions --disable-sync \
  --disable-background-networking --disable-component-update --disable-default-apps \
  --host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="127.0.0.1:9" \
  --user-data-dir="$work/profile" --force-device-scale-factor=1 \
  --window-size="$size" --virtual-time-budget=3000 \
  --screenshot="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")" \
  "file://$work/report.html#$attempt" 2>"$work/chromium.log" >/dev/null || {
  cat "$work/chromium.log" >&2
  exit 3
}
echo "wrote $out"
