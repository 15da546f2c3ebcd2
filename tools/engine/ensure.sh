#!/usr/bin/env bash
# Makes the pinned Pulumi engine available and prints the directory that holds it.
#
# The CLI and the Python language host are built from the Go module proxy by the
# wrapper module in this directory (go.mod pins the release; it must equal the
# pulumi pin in pyproject.toml). Binaries are cached outside the checkout, keyed by
# version, so every clone on this machine reuses one build. Our own launchers
# (pulumi-resource-pulumi-python, pulumi-language-python-exec) sit beside them.
#
#   PATH="$(tools/engine/ensure.sh):$PATH" pulumi version
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(awk '$1 == "github.com/pulumi/pulumi/pkg/v3" { print $2; exit }' "$here/go.mod")"
cache_root="${WORKSPACE_IAC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workspace-iac}"
bin_dir="$cache_root/pulumi-$version/bin"

log() { echo "engine: $*" >&2; }

install_launchers() {
    install -m 0755 "$here/launchers/pulumi-resource-pulumi-python" "$bin_dir/"
    install -m 0755 "$here/launchers/pulumi-language-python-exec" "$bin_dir/"
}

if [ -x "$bin_dir/pulumi" ] && [ -x "$bin_dir/pulumi-language-python" ]; then
    install_launchers  # cheap, and keeps the launchers in step with the checkout
    echo "$bin_dir"
    exit 0
fi

command -v go >/dev/null || { log "Go is required to build the Pulumi engine ($version)"; exit 1; }
log "building Pulumi $version from the Go module proxy (first run on this machine; later runs reuse $bin_dir)"
start=$(date +%s)
mkdir -p "$cache_root"
staging="$(mktemp -d "$cache_root/build.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
# -checklinkname=0: Go >= 1.23 refuses an old dependency's go:linkname into the
# runtime (github.com/pgavlin/text -> internal/bytealg); the reference is benign.
(
    cd "$here"
    GOFLAGS=-mod=mod go build -trimpath \
        -ldflags "-s -w -checklinkname=0 -X github.com/pulumi/pulumi/pkg/v3/version.Version=$version" \
        -o "$staging/" \
        github.com/pulumi/pulumi/pkg/v3/cmd/pulumi \
        github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python
)
mkdir -p "$(dirname "$bin_dir")"
rm -rf "$bin_dir"
mv "$staging" "$bin_dir"
trap - EXIT
install_launchers
log "built in $(( $(date +%s) - start ))s: $("$bin_dir/pulumi" version)"
echo "$bin_dir"
