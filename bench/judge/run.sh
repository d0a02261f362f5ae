#!/usr/bin/env bash
# Judge throughput against a local mock server (127.0.0.1 only) answering after 100 ms:
# 1000 verdicts at judge_jobs 32 should reach at least 85% of the ideal 320 verdicts/s.
# Prints the fraction of ideal and a bare-call baseline measured in the same run.
# Options pass through: --verdicts N --jobs J --latency-ms L.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec cargo bench --profile dist -p proctor-judge --bench judge_throughput -- "$@"
