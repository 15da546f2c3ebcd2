//go:build tools

// Package modern pins the newest Pulumi CLI the module proxy serves in full, for the modern
// test leg (WORKSPACE_IAC_ENGINE=modern). No Python language host: from v3.80.0 on it is a
// module the proxy does not serve, and Automation API inline programs do not need one.
package modern

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
