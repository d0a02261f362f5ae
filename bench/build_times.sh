#!/usr/bin/env bash
# Clean-build time of the proctor binary with the release profile (thin LTO, parallel code
# generation) and the dist profile (fat LTO, one code-generation unit), each in a fresh target
# folder, one after the other. Prints one line per profile: wall seconds, CPU seconds (user +
# sys of cargo and every compiler it ran), target folder size, and the load average after.
#
#   bash bench/build_times.sh            # needs about 3.5 GB free under $TMPDIR
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for profile in release dist; do
    target="$scratch/$profile"
    start=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$scratch/time" \
        env CARGO_TARGET_DIR="$target" cargo build --locked --quiet --profile "$profile" -p proctor --bin proctor
    end=$(date +%s.%N)
    read -r user sys < "$scratch/time"
    printf '%-8s wall %7.0f s  cpu %7.0f s  target %s  load %s\n' "$profile" \
        "$(echo "$end - $start" | bc)" "$(echo "$user + $sys" | bc)" \
        "$(du -sh "$target" | cut -f1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
    rm -rf "$target"
done
