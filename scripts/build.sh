#!/usr/bin/env bash
# Builds bin/pdc: one static linux/amd64 binary holding the driver and every
# mapper, reducer and combiner (`pdc map JOB`, `pdc reduce JOB`), which is
# what Hadoop Streaming ships to the cluster with -files.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(git describe --always --dirty 2>/dev/null || echo dev)
mkdir -p bin
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath \
  -ldflags "-s -w -X github.com/pdc-mr/pdc/jobs.Version=$version" \
  -o bin/pdc ./jobs/pdc
echo "built bin/pdc ($version)"
