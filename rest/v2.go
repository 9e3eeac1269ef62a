package rest

import "net/http"

// v2Handler serves /api/v2/ (behavior.md §5), except the webhooks.
func (s *Server) v2Handler() http.Handler {
	return http.HandlerFunc(writeNotFound)
}
