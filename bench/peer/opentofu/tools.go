//go:build tools

// The wrapper module of OpenTofu: go.mod pins the release that ../ensure.sh builds (it
// plans what the exporter of bench/adopt_cost.py --peer wrote).
package tools

import _ "github.com/opentofu/opentofu/cmd/tofu"
