//go:build tools

// Package engine pins the Pulumi CLI and the Python language host as module
// dependencies so that `go build` can produce both at one version.
package engine

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
	_ "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"
)
