#!/usr/bin/env bash
# Builds the two static linux/amd64 binaries, each holding the driver and
# every mapper, reducer and combiner (`pdc map JOB`, `pdc reduce JOB`), which
# is what Hadoop Streaming ships to the cluster with -files:
#
#   bin/pdc          without main-content extraction (-tags nomainextract):
#                    starts in milliseconds, the binary to use and to ship
#   bin/pdc-extract  with it (go-trafilatura, whose dependencies take about
#                    0.25 s and 80 MB to initialise in every process);
#                    bin/pdc runs a command with --extract main as pdc-extract
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(git describe --always --dirty 2>/dev/null || echo dev)
mkdir -p bin
build() { # build OUT [TAGS]
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -tags "${2:-}" \
		-ldflags "-s -w -X github.com/pdc-mr/pdc/jobs.Version=$version" \
		-o "$1" ./jobs/pdc
}
build bin/pdc nomainextract
build bin/pdc-extract
echo "built bin/pdc and bin/pdc-extract ($version)"
