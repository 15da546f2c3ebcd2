// The wrapper module of the service's Terraform provider: go.mod pins the release that
// ../ensure.sh builds (its exporter is the peer of bench/adopt_cost.py --peer).
module workspace-iac/bench/peer/provider

go 1.24.0

require github.com/databricks/terraform-provider-databricks v1.84.0
