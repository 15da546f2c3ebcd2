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
# keyed by version and Go toolchain, so every clone on this machine reuses one build. Our own
# launchers (pulumi-resource-pulumi-python, pulumi-language-python-exec) sit beside them.
#
# Every call checks the engine before printing its directory: each binary's SHA-256 against
# engine.sha256 in this directory (the hashes of the reproducible build below, committed and
# reviewed like the code), the launchers against the checkout's, and nothing else in the
# directory. A binary that differs is refused, never run: the directory may come from a
# cache that someone else's branch wrote (README.md, "The engine a job runs").
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
# The build is reproducible, so its hash can be committed: one Go toolchain (GOTOOLCHAIN
# fetches it from the module proxy where the machine's Go is another), no C toolchain
# (CGO_ENABLED=0), no paths (-trimpath), the default instruction-set levels. CI's setup-go
# installs this very version (a test checks), so it fetches nothing.
toolchain=go1.26.8
bin_dir="$cache_root/pulumi-$version-$toolchain/bin"
sums="$here/engine.sha256"

platform() {
    local os arch
    case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os="$(uname -s)" ;; esac
    case "$(uname -m)" in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
    echo "$os/$arch"
}
platform="$(platform)"
# A platform engine.sha256 has no line for (its build was never recorded in review) keeps
# the hash of this machine's own first build here, outside the build directory, so a later
# run still checks the binaries against it. CI runs on a committed platform (a test checks).
local_sums="$cache_root/engine-sha256/pulumi-$version-$toolchain-${platform/\//-}"

sha256() {
    if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# The recorded hash of one binary: engine.sha256's line `<sha256> <version> <toolchain>
# <os>/<arch> <name>`, else this machine's record; nothing when neither has one.
recorded() {
    local name="$1" hash
    hash="$(awk -v v="$version" -v t="$toolchain" -v p="$platform" -v n="$name" \
            '$1 !~ /^#/ && $2 == v && $3 == t && $4 == p && $5 == n { print $1; exit }' "$sums")"
    if [ -z "$hash" ] && [ -f "$local_sums" ]; then
        hash="$(awk -v n="$name" '$2 == n { print $1; exit }' "$local_sums")"
    fi
    echo "$hash"
}

committed_platform() {
    awk -v v="$version" -v t="$toolchain" -v p="$platform" \
        '$1 !~ /^#/ && $2 == v && $3 == t && $4 == p { found = 1 } END { exit !found }' "$sums"
}

refuse() {
    log "refusing the engine in $bin_dir: $*"
    log "nothing in it was run. If you did not expect this, find out who wrote that directory;"
    log "to rebuild from the Go module proxy, remove it: rm -rf '$(dirname "$bin_dir")'"
    exit 1
}

launchers=(pulumi-resource-pulumi-python pulumi-language-python-exec)

# Each binary is a regular file whose SHA-256 is the recorded one, and nothing but the
# binaries and the launchers is there (the directory goes first on PATH: a `python3` or
# `git` planted beside the engine would run in its place). The launchers are the checkout's:
# install_launchers puts them back first (checking them here too would refuse the engine
# whenever two checkouts with different launchers share it at once).
verify() {
    local package name expected actual entry
    for package in "${packages[@]}"; do
        name="$(basename "$package")"
        [ -f "$bin_dir/$name" ] && [ ! -L "$bin_dir/$name" ] || refuse "$name is not a regular file"
        expected="$(recorded "$name")"
        [ -n "$expected" ] || refuse "$name has no recorded SHA-256 (neither $sums nor $local_sums names it for $version, $toolchain, $platform)"
        actual="$(sha256 "$bin_dir/$name")"
        [ "$actual" = "$expected" ] || refuse "$name has SHA-256 $actual, the recorded one is $expected"
    done
    for entry in "$bin_dir"/* "$bin_dir"/.[!.]*; do
        [ -e "$entry" ] || [ -L "$entry" ] || continue
        name="$(basename "$entry")"
        case " ${launchers[*]} " in *" $name "*) continue ;; esac
        case "$name" in .pulumi-resource-pulumi-python.[0-9]* | .pulumi-language-python-exec.[0-9]*) continue ;; esac  # another caller's launcher, being installed
        for package in "${packages[@]}"; do [ "$name" = "$(basename "$package")" ] && continue 2; done
        refuse "it holds $name, which is not part of the engine"
    done
}

# Several test workers ask at once: each launcher is replaced only when it differs, and by
# a rename, so no caller ever finds one half-written or missing.
install_launchers() {
    local name
    for name in "${launchers[@]}"; do
        [ ! -L "$bin_dir/$name" ] && cmp -s "$here/launchers/$name" "$bin_dir/$name" && continue
        install -m 0755 "$here/launchers/$name" "$bin_dir/.$name.$$"
        mv -f "$bin_dir/.$name.$$" "$bin_dir/$name"
    done
}

present() {
    local package
    for package in "${packages[@]}"; do
        [ -e "$bin_dir/$(basename "$package")" ] || [ -L "$bin_dir/$(basename "$package")" ] || return 1
    done
}

if present; then
    # Checked before anything of it runs (the launchers are put back first: cheap, and it
    # keeps them in step with the checkout).
    [ -L "$bin_dir" ] && refuse "the directory is a symbolic link"
    install_launchers
    verify
    echo "$bin_dir"
    exit 0
fi

command -v go >/dev/null || { log "Go is required to build the Pulumi engine ($version)"; exit 1; }
log "building Pulumi $version with $toolchain from the Go module proxy (first run on this machine; later runs reuse $bin_dir)"
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
    GOTOOLCHAIN="$toolchain" GOFLAGS=-mod=mod CGO_ENABLED=0 GOAMD64=v1 GOARM64=v8.0 \
        go build -trimpath \
        -ldflags "-s -w $extra_ldflags $version_ldflags" \
        -o "$staging/" \
        "${packages[@]}"
)
chmod 0755 "$staging"
if ! committed_platform; then
    # Recorded before the build is moved into place: a directory without a record is refused.
    log "$sums records no build for $platform: this build's hashes are kept in $local_sums"
    mkdir -p "$(dirname "$local_sums")"
    for package in "${packages[@]}"; do
        name="$(basename "$package")"
        echo "$(sha256 "$staging/$name") $name"
    done > "$local_sums.$$"
    mv -f "$local_sums.$$" "$local_sums"
fi
mkdir -p "$(dirname "$bin_dir")"
rm -rf "$bin_dir"
mv "$staging" "$bin_dir"
trap - EXIT
install_launchers
verify
log "built in $(( $(date +%s) - start ))s: $("$bin_dir/pulumi" version)"
echo "$bin_dir"
