#!/usr/bin/env bash
# Makes a pinned peer tool of the benches available and prints the path of its binary:
#   provider (default)  the service's Terraform provider, whose `exporter` mode is the peer
#                       of `python -m stacks.adopt` (bench/adopt_cost.py --peer) and whose
#                       resources are the peer of ours in bench/deploy_cost.py
#                       (provider/go.mod pins the release)
#   tofu                OpenTofu, to plan what the exporter wrote and to deploy the bench's
#                       mix with the provider (opentofu/go.mod)
#
# Each is built from the Go module proxy by its wrapper module beside this script, like the
# Databricks CLI (tools/databricks_cli) and the Pulumi engine (tools/engine), and cached
# outside the checkout, keyed by version, so every clone on this machine reuses one build
# (the provider took 7 minutes on 2 cores).
#
#   "$(bench/peer/ensure.sh)" exporter -help
#   "$(bench/peer/ensure.sh tofu)" version
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-provider}" in
    provider)
        module_dir="$here/provider"
        module=github.com/databricks/terraform-provider-databricks
        package="$module"
        name=terraform-provider-databricks
        ;;
    tofu)
        module_dir="$here/opentofu"
        module=github.com/opentofu/opentofu
        package="$module/cmd/tofu"
        name=tofu
        ;;
    *)
        echo "peer: '$1' is neither 'provider' nor 'tofu'" >&2
        exit 2
        ;;
esac
version="$(grep -Eo "${module//./\\.} v[^ ]+" "$module_dir/go.mod" | head -n 1 | cut -d ' ' -f 2)"
[ -n "$version" ] || { echo "peer: no $module version in $module_dir/go.mod" >&2; exit 1; }
cache_root="${WORKSPACE_IAC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workspace-iac}"
bin_dir="$cache_root/$name-$version/bin"
binary="$bin_dir/$name"

log() { echo "peer: $*" >&2; }

if [ -x "$binary" ]; then
    echo "$binary"
    exit 0
fi

command -v go >/dev/null || { log "Go is required to build $name ($version)"; exit 1; }
log "building $name $version from the Go module proxy (first run on this machine; later runs reuse $bin_dir)"
start=$(date +%s)
mkdir -p "$cache_root"
staging="$(mktemp -d "$cache_root/build.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
(
    cd "$module_dir"
    GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$staging/$name" "$package"
)
mkdir -p "$(dirname "$bin_dir")"
rm -rf "$bin_dir"
mv "$staging" "$bin_dir"
trap - EXIT
log "built in $(( $(date +%s) - start ))s"
echo "$binary"
