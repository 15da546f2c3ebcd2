// The wrapper module of OpenTofu: go.mod pins the release that ../ensure.sh builds (it plans
// what the exporter of bench/adopt_cost.py --peer wrote).
module workspace-iac/bench/peer/opentofu

go 1.26.6

require github.com/opentofu/opentofu v1.12.6

// OpenTofu's own go.mod replaces HCL with its fork; a wrapper module must say so itself.
replace github.com/hashicorp/hcl/v2 v2.20.1 => github.com/opentofu/hcl/v2 v2.20.2-0.20251021132045-587d123c2828
