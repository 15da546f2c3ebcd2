//go:build tools

// The wrapper module of the service's Terraform provider: go.mod pins the release that
// ../ensure.sh builds (its exporter is bench/adopt_cost.py's peer).
package tools

import _ "github.com/databricks/terraform-provider-databricks"
