#!/usr/bin/env python3
"""The agent of the receiver benchmark: POSTs one prepared OTLP protobuf body (BODY, made by
`otlp_decode_baseline write`) REQUESTS times to the endpoint proctor gives it, one request after
another on one keep-alive connection, and prints the seconds that took as its answer. It moves
itself off proctor's core first, so the client does not compete with the receiver."""

import http.client
import os
import sys
import time
import urllib.parse


def main():
    body_path, requests = sys.argv[1], int(sys.argv[2])
    core = os.environ.get("BENCH_CLIENT_CORE")
    if core is not None:
        os.sched_setaffinity(0, {int(core)})
    body = open(body_path, "rb").read()
    endpoint = urllib.parse.urlparse(os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"])
    connection = http.client.HTTPConnection(endpoint.hostname, endpoint.port)
    headers = {"content-type": "application/x-protobuf"}
    started = time.perf_counter()
    for _ in range(requests):
        connection.request("POST", "/v1/traces", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            print(f"status {response.status}", file=sys.stderr)
            sys.exit(1)
    print(f"{time.perf_counter() - started:.6f}")


if __name__ == "__main__":
    sys.stdin.readline()
    main()
