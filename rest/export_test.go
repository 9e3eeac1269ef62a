package rest

import "flag"

// updateGoldens is -update: `go test ./rest/ -update` rewrites the golden
// files under testdata/ (review the diff).
var updateGoldens = flag.Bool("update", false, "rewrite the golden files under testdata/")

// UpdateGoldens lets the external test package (rest_test) read -update.
var UpdateGoldens = updateGoldens

// RecordGolden lets the external test package record its golden requests.
var RecordGolden = recordGolden
