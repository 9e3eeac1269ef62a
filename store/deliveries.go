package store

import (
	"context"
	"time"
)

// RecordWebhookDelivery remembers that the delivery deliveryID (GitHub's
// X-GitHub-Delivery) is being processed for the project. It reports false
// when that delivery was already recorded for the project: the caller then
// answers it as a duplicate and does nothing. Deliveries received more than
// retention ago are forgotten first, which bounds the table; a replay older
// than retention is no longer recognised (GitHub signs no timestamp, so the
// retention is the replay window an operator accepts).
func (s *Store) RecordWebhookDelivery(ctx context.Context, projectID int64, deliveryID string, retention time.Duration) (bool, error) {
	if !storable(deliveryID) {
		return true, nil // never stored, so never a duplicate
	}
	fresh := false
	err := s.InTx(ctx, "store.RecordWebhookDelivery", func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM webhook_deliveries WHERE received < ?`, tx.Now.Add(-retention)); err != nil {
			return err
		}
		res, err := tx.exec(ctx, `INSERT INTO webhook_deliveries (project_id, delivery_id, received) VALUES (?, ?, ?)
			ON CONFLICT (project_id, delivery_id) DO NOTHING`, projectID, deliveryID, tx.Now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		fresh = n == 1
		return err
	})
	return fresh, err
}
