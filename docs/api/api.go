// Package api holds the OpenAPI 3.1 descriptions of docsd's REST APIs,
// openapi-v3.yaml and openapi-v2.yaml: the files the documentation site
// renders beside this package, embedded so that the server answers them at
// /api/v3/openapi.yaml and /api/v2/openapi.yaml. A test of package rest
// keeps them true: every route the REST handler serves is in them, every
// path in them is served, and every golden answer validates against them.
package api

import _ "embed"

// V3 is the OpenAPI description of API v3.
//
//go:embed openapi-v3.yaml
var V3 string

// V2 is the OpenAPI description of API v2.
//
//go:embed openapi-v2.yaml
var V2 string
