#!/usr/bin/env bash
# Makes a Pulumi engine available and prints the directory that holds it.
#
# WORKSPACE_IAC_ENGINE picks which one:
#   classic (default)  the pinned release of go.mod in this directory: the CLI and the Python
#                      language host; it must equal the lock-step pulumi pin (constraints.txt)
#   modern             the newest CLI the Go module proxy serves in full (modern/go.mod); no
#                      language host (its module is not served), so it runs Automation API
#                      inline programs, which need none
# Both are built from the Go module proxy by a wrapper module and cached outside the checkout,
# keyed by version, so every clone on this machine reuses one build. Our own launchers
# (pulumi-resource-pulumi-python, pulumi-language-python-exec) sit beside them.
#
#   PATH="$(tools/engine/ensure.sh):$PATH" pulumi version
#   PATH="$(WORKSPACE_IAC_ENGINE=modern tools/engine/ensure.sh):$PATH" pulumi version
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { echo "engine: $*" >&2; }

case "${WORKSPACE_IAC_ENGINE:-classic}" in
    classic)
        module_dir="$here"
        packages=(github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
                  github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python)
        # Go >= 1.23 refuses an old dependency's go:linkname into the runtime
        # (github.com/pgavlin/text -> internal/bytealg); the reference is benign.
        extra_ldflags="-checklinkname=0"
        ;;
    modern)
        module_dir="$here/modern"
        packages=(github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
        extra_ldflags=""
        ;;
    *)
        log "WORKSPACE_IAC_ENGINE is '${WORKSPACE_IAC_ENGINE}'; it must be 'classic' or 'modern'"
        exit 2
        ;;
esac

version="$(awk '$1 == "github.com/pulumi/pulumi/pkg/v3" { print $2; exit }
                $1 == "require" && $2 == "github.com/pulumi/pulumi/pkg/v3" { print $3; exit }' \
           "$module_dir/go.mod")"
cache_root="${WORKSPACE_IAC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workspace-iac}"
bin_dir="$cache_root/pulumi-$version/bin"

# Several test workers ask at once: each launcher is replaced only when it differs, and by
# a rename, so no caller ever finds one half-written or missing.
install_launchers() {
    local name
    for name in pulumi-resource-pulumi-python pulumi-language-python-exec; do
        cmp -s "$here/launchers/$name" "$bin_dir/$name" && continue
        install -m 0755 "$here/launchers/$name" "$bin_dir/.$name.$$"
        mv -f "$bin_dir/.$name.$$" "$bin_dir/$name"
    done
}

built() {
    local package
    for package in "${packages[@]}"; do
        [ -x "$bin_dir/$(basename "$package")" ] || return 1
    done
}

if built; then
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
# Where `pulumi version` reads its version: pkg/v3/version up to 3.8x, the SDK's
# go/common/version later (the linker ignores the one a release lacks).
version_ldflags="-X github.com/pulumi/pulumi/pkg/v3/version.Version=$version"
version_ldflags+=" -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version"
(
    cd "$module_dir"
    GOFLAGS=-mod=mod go build -trimpath \
        -ldflags "-s -w $extra_ldflags $version_ldflags" \
        -o "$staging/" \
        "${packages[@]}"
)
mkdir -p "$(dirname "$bin_dir")"
rm -rf "$bin_dir"
mv "$staging" "$bin_dir"
trap - EXIT
install_launchers
log "built in $(( $(date +%s) - start ))s: $("$bin_dir/pulumi" version)"
echo "$bin_dir"
