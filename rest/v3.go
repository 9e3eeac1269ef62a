package rest

import "net/http"

// v3Handler serves /api/v3/ (behavior.md §1, §3, §4).
func (s *Server) v3Handler() http.Handler {
	return http.HandlerFunc(writeNotFound)
}
