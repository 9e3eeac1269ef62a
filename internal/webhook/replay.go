package webhook

import (
	"net/http"
)

// duplicateDelivery answers a signed GitHub delivery whose X-GitHub-Delivery
// id was already processed for the project: nothing is done again.
var duplicateDelivery = fail(http.StatusOK, "This webhook delivery was already processed.")

// firstDelivery records the GitHub delivery id of an authentic request and
// answers duplicateDelivery when the project already processed it. A
// request without the header is processed (GitHub always sends it; other
// clients imitating GitHub may not), so only deliveries that carry an id
// are protected against replay.
func (h *Handler) firstDelivery(req *request) *answer {
	id := req.r.Header.Get("X-GitHub-Delivery")
	if id == "" {
		return nil
	}
	retention := h.DeliveryRetention
	if retention <= 0 {
		retention = DefaultDeliveryRetention
	}
	fresh, err := h.Store.RecordWebhookDelivery(req.r.Context(), req.project.ID, id, retention)
	if err != nil {
		return h.internal(err)
	}
	if !fresh {
		return duplicateDelivery
	}
	return nil
}
