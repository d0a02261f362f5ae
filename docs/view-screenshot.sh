#!/usr/bin/env bash
# Makes docs/view.png (or the PNG named as the first argument): the page of `proctor view` on
# a small folder of runs made here, offline: four weekly runs of two agents on the ten sums of
# fixtures/cluster/tasks.yaml (fixtures/agents/sum_agent.py, wrapped to report token usage so
# that the runs have a cost), as headless Chromium draws it.
#
#   docs/view-screenshot.sh [OUT.png]
#
# PROCTOR names the proctor binary (default: built here with cargo, target/debug/proctor);
# CHROMIUM the browser (default: the first of chromium, chromium-browser, google-chrome on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/view.png}"
size="${PROCTOR_SCREENSHOT_SIZE:-1280,1000}"

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
  echo "docs/view-screenshot.sh: no headless Chromium on PATH (Debian: apt-get install -y chromium; or set CHROMIUM)" >&2
  exit 3
fi
case "$PROCTOR" in
  */*) PROCTOR="$(cd "$(dirname "$PROCTOR")" && pwd)/$(basename "$PROCTOR")" ;;
  *) PROCTOR="$(command -v "$PROCTOR")" ;;
esac

work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The sum agent (copied: an agent sees only its sandbox and what proctor gives it), its
# answer passed on with the usage of a priced model added (agent v2 spends more tokens).
cp fixtures/agents/sum_agent.py "$work/sum_agent.py"
cat >"$work/agent.py" <<PY
import json, subprocess, sys
line = sys.stdin.readline()
done = subprocess.run([sys.executable, "$work/sum_agent.py"], input=line,
                      capture_output=True, text=True, check=True)
outcome = json.loads(done.stdout)
outcome["usage"] = [{"provider": "anthropic", "model": "claude-sonnet-4-6",
                     "input_tokens": int(sys.argv[1]), "output_tokens": 90}]
print(json.dumps(outcome))
PY
# Moves a results file's attempts to one day (the runs are made now, shown weeks apart).
cat >"$work/redate.py" <<'PY'
import json, sys
path, day = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(path) if l.strip()]
for i, line in enumerate(lines):
    line["timings"]["started_at"] = "%sT09:%02d:00Z" % (day, i % 60)
with open(path, "w") as f:
    f.writelines(json.dumps(line) + "\n" for line in lines)
PY

mkdir -p "$work/results/weekly" "$work/cache"
week=0
for day in 2026-11-02 2026-11-09 2026-11-16 2026-11-23; do
  week=$((week + 1))
  file="$work/results/weekly/week$week.jsonl"
  "$PROCTOR" run --tasks fixtures/cluster/tasks.yaml --attempts 2 --seed "$week" \
    --agent "v1=python3 $work/agent.py 1800" --agent "v2=python3 $work/agent.py $((2400 + 300 * week))" \
    --out "$file" >/dev/null 2>"$work/run.log" || [ $? -eq 1 ] || { cat "$work/run.log" >&2; exit 3; }
  python3 "$work/redate.py" "$file" "$day"
done

"$PROCTOR" view "$work/results" --cache "$work/cache" >"$work/address" 2>"$work/view.log" &
server=$!
# The address, then the list summarised.
python3 - "$work/address" <<'PY' || { cat "$work/view.log" >&2; exit 3; }
import json, sys, time, urllib.request
deadline = time.time() + 60
while time.time() < deadline:
    text = open(sys.argv[1]).read()
    if text.endswith("\n"):
        break
    time.sleep(0.1)
address = text.strip()
port = address.split(":")[2].split("/")[0]
token = address.split("token=")[1]
while time.time() < deadline:
    request = urllib.request.Request("http://127.0.0.1:%s/api/runs" % port,
                                     headers={"X-Proctor-Token": token})
    runs = json.load(urllib.request.urlopen(request))
    if not runs["scanning"] and len(runs["runs"]) == 4:
        sys.exit(0)
    time.sleep(0.2)
sys.exit("the view never listed the four runs")
PY
url="$(head -n 1 "$work/address")"

# Root cannot use Chromium's own sandbox; the page asks only its own server.
sandbox=()
[ "$(id -u)" = 0 ] && sandbox=(--no-sandbox)
mkdir -p "$(dirname "$out")"
"$browser" --headless=new "${sandbox[@]}" --disable-gpu --hide-scrollbars \
  --no-first-run --no-default-browser-check --disable-extensions --disable-sync \
  --disable-background-networking --disable-component-update --disable-default-apps \
  --user-data-dir="$work/profile" --force-device-scale-factor=1 \
  --window-size="$size" --virtual-time-budget=5000 \
  --screenshot="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")" \
  "$url" 2>"$work/chromium.log" >/dev/null || {
  cat "$work/chromium.log" >&2
  exit 3
}
echo "wrote $out"
