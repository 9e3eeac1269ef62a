package hosting

import (
	"net/http"

	"docsd/internal/errs"
)

const unavailableHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>503 Service Unavailable</title>
</head>
<body>
<h1>503 Service Unavailable</h1>
<p>The documentation can't be served right now. Please try again in a moment.</p>
</body>
</html>
`

var unavailableFixed = newFixedPage(http.StatusServiceUnavailable, unavailableHTML)

// failurePage answers a request that failed on docsd's side: 503 with
// Retry-After when the database does not answer, else the 500 page.
func failurePage(w http.ResponseWriter, r *http.Request, err error) {
	if errs.Is(err, errs.Unavailable) {
		w.Header().Set("Retry-After", errs.RetryAfterUnavailable)
		writePage(w, r, unavailableFixed)
		return
	}
	serverErrorPage(w, r)
}
