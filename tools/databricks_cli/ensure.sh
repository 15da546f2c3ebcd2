#!/usr/bin/env bash
# Makes the pinned Databricks CLI (the service's own command-line tool) available and
# prints the path of its binary. The CLI compatibility tests (tests/cli) drive it
# against the emulator.
#
# Built from the Go module proxy by the wrapper module in this directory (go.mod pins
# the release), like the Pulumi engine (tools/engine). The binary is cached outside the
# checkout, keyed by version, so every clone on this machine reuses one build.
#
#   "$(tools/databricks_cli/ensure.sh)" --version
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(grep -Eo 'github\.com/databricks/cli v[^ ]+' "$here/go.mod" | head -n 1 | cut -d ' ' -f 2)"
[ -n "$version" ] || { echo "databricks-cli: no github.com/databricks/cli version in $here/go.mod" >&2; exit 1; }
cache_root="${WORKSPACE_IAC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workspace-iac}"
bin_dir="$cache_root/databricks-cli-$version/bin"
binary="$bin_dir/databricks"

log() { echo "databricks-cli: $*" >&2; }

if [ -x "$binary" ]; then
    echo "$binary"
    exit 0
fi

command -v go >/dev/null || { log "Go is required to build the Databricks CLI ($version)"; exit 1; }
log "building the Databricks CLI $version from the Go module proxy (first run on this machine; later runs reuse $bin_dir)"
start=$(date +%s)
mkdir -p "$cache_root"
staging="$(mktemp -d "$cache_root/build.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
# buildVersion is what the release build stamps; without it the CLI reports a
# development version in its User-Agent and `--version`.
(
    cd "$here"
    GOFLAGS=-mod=mod go build -trimpath \
        -ldflags "-s -w -X github.com/databricks/cli/internal/build.buildVersion=${version#v}" \
        -o "$staging/databricks" \
        github.com/databricks/cli
)
mkdir -p "$(dirname "$bin_dir")"
rm -rf "$bin_dir"
mv "$staging" "$bin_dir"
trap - EXIT
log "built in $(( $(date +%s) - start ))s: $("$binary" --version)"
echo "$binary"
