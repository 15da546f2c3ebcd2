//go:build tools

// Package databrickscli pins the service's official command-line tool as a module
// dependency so that `go build` produces it at the version go.mod names.
package databrickscli

import (
	_ "github.com/databricks/cli"
)
