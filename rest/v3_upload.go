package rest

// v3UploadRoutes returns the upload API's routes (api-2026.md §A4.5).
func (s *Server) v3UploadRoutes() []*v3Route { return nil }
