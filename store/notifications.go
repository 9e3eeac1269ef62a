package store

import (
	"context"
	"strings"
	"time"

	"docsd/internal/errs"
)

// The events a build sends notifications for (Read the Docs' WebHookEvent
// names). Email notifications are sent for BuildFailed only.
const (
	EventBuildTriggered = "build:triggered"
	EventBuildPassed    = "build:passed"
	EventBuildFailed    = "build:failed"
)

// BuildEvents are the webhook events in the order forms list them.
var BuildEvents = []string{EventBuildTriggered, EventBuildPassed, EventBuildFailed}

// States of a notification delivery.
const (
	DeliveryQueued    = "queued"    // waiting for its next attempt
	DeliveryDelivered = "delivered" // the receiver accepted it
	DeliveryFailed    = "failed"    // given up: an answer that is not retried, or no attempts left
)

// aadWebhookSecret binds sealed webhook secrets to their column.
const aadWebhookSecret = "webhooks.secret"

// Webhook is an outgoing webhook of a project: a JSON POST to URL for each
// of its events, signed with Secret.
type Webhook struct {
	ID        int64     `db:"id"`
	ProjectID int64     `db:"project_id"`
	URL       string    `db:"url"`
	Secret    string    `db:"secret"`
	EventList string    `db:"events"` // space-separated, sorted
	Payload   string    `db:"payload"`
	Created   time.Time `db:"created"`
	Modified  time.Time `db:"modified"`
}

// Events are the events the webhook is sent for.
func (w *Webhook) Events() []string { return strings.Fields(w.EventList) }

// EmailHook is an address mailed when a build of the project fails.
type EmailHook struct {
	ID        int64     `db:"id"`
	ProjectID int64     `db:"project_id"`
	Email     string    `db:"email"`
	Created   time.Time `db:"created"`
}

// Delivery is one notification of one event to one receiver (a webhook or
// an email address): queued, then attempted until delivered or given up.
type Delivery struct {
	ID             int64      `db:"id"`
	ProjectID      int64      `db:"project_id"`
	WebhookID      *int64     `db:"webhook_id"`
	EmailHookID    *int64     `db:"email_hook_id"`
	BuildID        int64      `db:"build_id"`
	Event          string     `db:"event"`
	State          string     `db:"state"`
	Attempts       int        `db:"attempts"`
	NextAttempt    time.Time  `db:"next_attempt"`
	LeaseOwner     *string    `db:"lease_owner"`
	LeaseExpires   *time.Time `db:"lease_expires"`
	Created        time.Time  `db:"created"`
	Finished       *time.Time `db:"finished"`
	RequestHeaders string     `db:"request_headers"`
	RequestBody    string     `db:"request_body"`
	Error          string     `db:"error"`
	// AttemptList holds the delivery's attempts when a reader loaded them
	// with it (nil when not loaded).
	AttemptList []*DeliveryAttempt `db:"-"`
}

// DeliveryAttempt is one try at sending a delivery.
type DeliveryAttempt struct {
	ID             int64     `db:"id"`
	DeliveryID     int64     `db:"delivery_id"`
	Started        time.Time `db:"started"`
	DurationMS     int64     `db:"duration_ms"`
	ResponseStatus *int      `db:"response_status"`
	ResponseBody   string    `db:"response_body"`
	Error          string    `db:"error"`
}

// WebhookUpdate holds the fields of a webhook to change; nil keeps one.
type WebhookUpdate struct {
	URL     *string
	Events  []string // nil keeps them
	Payload *string
	Secret  *string
}

const webhookColumns = `id, project_id, url, secret, events, payload, created, modified`

// webhookOrder is the order of a project's webhooks: oldest first.
var webhookOrder = []orderKey{{col: "id"}}

func (s *Store) openWebhook(w *Webhook) error {
	plain, err := s.sealer.open(w.Secret, aadWebhookSecret)
	w.Secret = plain
	return err
}

// FindWebhooks returns a project's webhooks, oldest first, the window pg
// of them and their total count.
func (s *Store) FindWebhooks(ctx context.Context, projectID int64, pg Page) ([]*Webhook, int, error) {
	ws := []*Webhook{}
	total, err := s.findProjectPage(ctx, "store.FindWebhooks", &ws, "webhooks", webhookColumns, webhookOrder, projectID, pg)
	if err != nil {
		return nil, 0, err
	}
	for _, w := range ws {
		if err := s.openWebhook(w); err != nil {
			return nil, 0, err
		}
	}
	return ws, total, nil
}

// findProjectPage reads the window pg of the rows of table that belong to
// a project, in order, into dest (a pointer to a slice), and returns their
// total count.
func (s *Store) findProjectPage(ctx context.Context, op string, dest any, table, columns string, order []orderKey, projectID int64, pg Page) (int, error) {
	var total int
	if err := s.read().get(ctx, &total, `SELECT COUNT(*) FROM `+table+` WHERE project_id = ?`, projectID); err != nil {
		return 0, classify(op, err)
	}
	if total == 0 || pg.Offset >= total {
		return total, nil
	}
	w := &where{}
	w.add("t.project_id = ?", projectID)
	if err := s.addKeyset(ctx, w, ` FROM `+table+` t`, table, "t", order, pg.Keyset); err != nil {
		return 0, err
	}
	err := s.read().sel(ctx, dest, s.page(`SELECT `+prefixColumns("t", columns)+` FROM `+table+` t`+w.String()+
		` ORDER BY `+s.orderBy("t", order, backward(pg.Keyset)), pg.Limit, pg.Offset), w.args...)
	if err != nil {
		return 0, classify(op, err)
	}
	return total, nil
}

// prefixColumns qualifies each of a comma-separated column list with alias.
func prefixColumns(alias, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// FindWebhook returns the project's webhook with that id.
func (s *Store) FindWebhook(ctx context.Context, projectID, id int64) (*Webhook, error) {
	var w Webhook
	err := s.read().get(ctx, &w, `SELECT `+webhookColumns+` FROM webhooks WHERE project_id = ? AND id = ?`, projectID, id)
	if err != nil {
		return nil, classify("store.FindWebhook", err)
	}
	return &w, s.openWebhook(&w)
}

// findWebhookByID returns a webhook whatever its project (for senders).
func (s *Store) findWebhookByID(ctx context.Context, id int64) (*Webhook, error) {
	var w Webhook
	if err := s.read().get(ctx, &w, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, id); err != nil {
		return nil, classify("store.FindWebhook", err)
	}
	return &w, s.openWebhook(&w)
}

// joinEvents is the stored form of a set of events: sorted, each once.
func joinEvents(events []string) string {
	var out []string
	for _, e := range BuildEvents {
		for _, g := range events {
			if g == e {
				out = append(out, e)
				break
			}
		}
	}
	return strings.Join(out, " ")
}

// CreateWebhook stores a validated webhook; an empty Secret gets a fresh
// one, as every webhook signs its payloads.
func (s *Store) CreateWebhook(ctx context.Context, w Webhook, events []string) (*Webhook, error) {
	if w.Secret == "" {
		var err error
		if w.Secret, err = NewSecret(); err != nil {
			return nil, err
		}
	}
	w.EventList = joinEvents(events)
	sealed, err := s.sealer.seal(w.Secret, aadWebhookSecret)
	if err != nil {
		return nil, err
	}
	err = s.InTx(ctx, "store.CreateWebhook", func(tx *Tx) error {
		w.Created, w.Modified = tx.Now, tx.Now
		id, err := tx.insert(ctx, `INSERT INTO webhooks (project_id, url, secret, events, payload, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			w.ProjectID, w.URL, sealed, w.EventList, w.Payload, w.Created, w.Modified)
		w.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// UpdateWebhook changes the fields upd gives of the project's webhook.
func (s *Store) UpdateWebhook(ctx context.Context, projectID, id int64, upd WebhookUpdate) (*Webhook, error) {
	const op = "store.UpdateWebhook"
	w, err := s.FindWebhook(ctx, projectID, id)
	if err != nil {
		return nil, err
	}
	if upd.URL != nil {
		w.URL = *upd.URL
	}
	if upd.Events != nil {
		w.EventList = joinEvents(upd.Events)
	}
	if upd.Payload != nil {
		w.Payload = *upd.Payload
	}
	if upd.Secret != nil {
		w.Secret = *upd.Secret
	}
	sealed, err := s.sealer.seal(w.Secret, aadWebhookSecret)
	if err != nil {
		return nil, err
	}
	err = s.InTx(ctx, op, func(tx *Tx) error {
		w.Modified = tx.Now
		res, err := tx.exec(ctx, `UPDATE webhooks SET url = ?, secret = ?, events = ?, payload = ?, modified = ? WHERE id = ? AND project_id = ?`,
			w.URL, sealed, w.EventList, w.Payload, w.Modified, id, projectID)
		return mustAffect(op, res, err)
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// DeleteWebhook removes the project's webhook with that id and its deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteWebhook"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM webhooks WHERE id = ? AND project_id = ?`, id, projectID)
		return mustAffect(op, res, err)
	})
}

const emailHookColumns = `id, project_id, email, created`

// FindEmailHooks returns the addresses mailed when a build of the project
// fails, in the order they were added.
func (s *Store) FindEmailHooks(ctx context.Context, projectID int64) ([]*EmailHook, error) {
	hs := []*EmailHook{}
	err := s.read().sel(ctx, &hs, `SELECT `+emailHookColumns+` FROM email_hooks WHERE project_id = ? ORDER BY id`, projectID)
	return hs, classify("store.FindEmailHooks", err)
}

// CreateEmailHook adds an address to a project's email notifications; an
// address it already has is a Conflict.
func (s *Store) CreateEmailHook(ctx context.Context, projectID int64, email string) (*EmailHook, error) {
	h := &EmailHook{ProjectID: projectID, Email: email}
	err := s.InTx(ctx, "store.CreateEmailHook", func(tx *Tx) error {
		h.Created = tx.Now
		id, err := tx.insert(ctx, `INSERT INTO email_hooks (project_id, email, created) VALUES (?, ?, ?)`, projectID, email, h.Created)
		h.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// DeleteEmailHook removes the project's email notification with that id.
func (s *Store) DeleteEmailHook(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteEmailHook"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM email_hooks WHERE id = ? AND project_id = ?`, id, projectID)
		return mustAffect(op, res, err)
	})
}

// queueBuildNotifications queues a delivery of event for every webhook of
// the build's project that subscribes to it and, for build:failed, every
// email address; pull-request builds notify nobody (as Read the Docs). It
// runs in the transaction that changed the build, so a build never changes
// state without its notifications being queued.
func (tx *Tx) queueBuildNotifications(ctx context.Context, buildID int64, event string) error {
	_, err := tx.exec(ctx, `INSERT INTO notification_deliveries (project_id, webhook_id, build_id, event, state, next_attempt, created)
		SELECT w.project_id, w.id, b.id, ?, ?, ?, ? FROM webhooks w JOIN builds b ON b.project_id = w.project_id
		WHERE b.id = ? AND b.version_type <> ? AND (' ' || w.events || ' ') LIKE ?`,
		event, DeliveryQueued, tx.Now, tx.Now, buildID, External, "% "+event+" %")
	if err != nil || event != EventBuildFailed {
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO notification_deliveries (project_id, email_hook_id, build_id, event, state, next_attempt, created)
		SELECT h.project_id, h.id, b.id, ?, ?, ?, ? FROM email_hooks h JOIN builds b ON b.project_id = h.project_id
		WHERE b.id = ? AND b.version_type <> ?`,
		event, DeliveryQueued, tx.Now, tx.Now, buildID, External)
	return err
}

const deliveryColumns = `id, project_id, webhook_id, email_hook_id, build_id, event, state, attempts, next_attempt, lease_owner,
	lease_expires, created, finished, request_headers, request_body, error`

// ClaimDelivery hands the queued delivery due longest ago to owner, with a
// lease until now+lease, and counts the attempt. Two claimers never get the
// same delivery (FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite's single
// writer serialises); a delivery whose lease expired (its sender died) is
// due again. It returns NotFound when nothing is due.
func (s *Store) ClaimDelivery(ctx context.Context, owner string, lease time.Duration) (*Delivery, error) {
	const op = "store.ClaimDelivery"
	// Most polls find nothing: ask the reader pool before taking the writer.
	var due []int64
	now := s.Now()
	if err := s.read().sel(ctx, &due, `SELECT id FROM notification_deliveries WHERE state = ? AND next_attempt <= ?
		AND (lease_expires IS NULL OR lease_expires < ?) LIMIT 1`, DeliveryQueued, now, now); err != nil {
		return nil, classify(op, err)
	}
	if len(due) == 0 {
		return nil, &errs.Error{Kind: errs.NotFound, Op: op, Message: "nothing to claim"}
	}
	var d Delivery
	err := s.InTx(ctx, op, func(tx *Tx) error {
		pick := `SELECT id FROM notification_deliveries WHERE state = ? AND next_attempt <= ?
			AND (lease_expires IS NULL OR lease_expires < ?) ORDER BY next_attempt, id LIMIT 1`
		if s.dialect == Postgres {
			pick += ` FOR UPDATE SKIP LOCKED`
		}
		var ids []int64
		if err := tx.sel(ctx, &ids, pick, DeliveryQueued, tx.Now, tx.Now); err != nil {
			return err
		}
		if len(ids) == 0 {
			return &errs.Error{Kind: errs.NotFound, Op: op, Message: "nothing to claim"}
		}
		if _, err := tx.exec(ctx, `UPDATE notification_deliveries SET lease_owner = ?, lease_expires = ?, attempts = attempts + 1 WHERE id = ?`,
			owner, tx.Now.Add(lease), ids[0]); err != nil {
			return err
		}
		return tx.get(ctx, &d, `SELECT `+deliveryColumns+` FROM notification_deliveries WHERE id = ?`, ids[0])
	})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// SetDeliveryRequest records what a delivery sends (it is rendered once,
// at its first attempt, and sent again as it is on retries).
func (s *Store) SetDeliveryRequest(ctx context.Context, id int64, headers, body string) error {
	return s.InTx(ctx, "store.SetDeliveryRequest", func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE notification_deliveries SET request_headers = ?, request_body = ? WHERE id = ?`, headers, body, id)
		return err
	})
}

// DeliveryOutcome is what became of one attempt at a delivery.
type DeliveryOutcome struct {
	Attempt DeliveryAttempt
	// State is the delivery's state after the attempt: DeliveryDelivered,
	// DeliveryFailed, or DeliveryQueued with RetryAt.
	State   string
	RetryAt time.Time
	Error   string // why it failed (empty when delivered)
}

// RecordDeliveryAttempt stores an attempt held by owner and moves the
// delivery on (delivered, given up, or queued again for RetryAt), releasing
// the lease; it keeps the 50 most recent deliveries of the receiver. A lease
// owner lost (the lease expired and someone else claimed it) is a
// Conflict, and nothing is written.
func (s *Store) RecordDeliveryAttempt(ctx context.Context, id int64, owner string, o DeliveryOutcome) error {
	const op = "store.RecordDeliveryAttempt"
	return s.InTx(ctx, op, func(tx *Tx) error {
		var finished *time.Time
		next := tx.Now
		if o.State == DeliveryQueued {
			next = o.RetryAt.UTC().Truncate(time.Microsecond)
		} else {
			finished = &tx.Now
		}
		res, err := tx.exec(ctx, `UPDATE notification_deliveries SET state = ?, next_attempt = ?, finished = ?, error = ?, lease_owner = NULL,
			lease_expires = NULL WHERE id = ? AND lease_owner = ?`, o.State, next, finished, o.Error, id, owner)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.E(errs.Conflict, op, "delivery lease lost")
		}
		a := o.Attempt
		if _, err := tx.exec(ctx, `INSERT INTO notification_attempts (delivery_id, started, duration_ms, response_status, response_body, error)
			VALUES (?, ?, ?, ?, ?, ?)`, id, a.Started.UTC().Truncate(time.Microsecond), a.DurationMS, a.ResponseStatus, a.ResponseBody, a.Error); err != nil {
			return err
		}
		if o.State == DeliveryQueued {
			return nil
		}
		// Keep the receiver's 50 most recent finished deliveries.
		skip := `LIMIT -1 OFFSET 50`
		if tx.s.dialect == Postgres {
			skip = `OFFSET 50`
		}
		_, err = tx.exec(ctx, `DELETE FROM notification_deliveries WHERE state <> ? AND id IN (
			SELECT o.id FROM notification_deliveries o JOIN notification_deliveries d ON d.id = ?
			WHERE (o.webhook_id = d.webhook_id OR o.email_hook_id = d.email_hook_id) AND o.state <> ?
			ORDER BY o.id DESC `+skip+`)`, DeliveryQueued, id, DeliveryQueued)
		return err
	})
}

// deliveryOrder is the order of deliveries: newest first.
var deliveryOrder = []orderKey{{col: "id", desc: true}}

// FindWebhookDeliveries returns a webhook's deliveries, newest first, the
// window pg of them and their total count.
func (s *Store) FindWebhookDeliveries(ctx context.Context, webhookID int64, pg Page) ([]*Delivery, int, error) {
	const op = "store.FindWebhookDeliveries"
	var total int
	if err := s.read().get(ctx, &total, `SELECT COUNT(*) FROM notification_deliveries WHERE webhook_id = ?`, webhookID); err != nil {
		return nil, 0, classify(op, err)
	}
	ds := []*Delivery{}
	if total == 0 || pg.Offset >= total {
		return ds, total, nil
	}
	w := &where{}
	w.add("t.webhook_id = ?", webhookID)
	if err := s.addKeyset(ctx, w, ` FROM notification_deliveries t`, "notification_deliveries", "t", deliveryOrder, pg.Keyset); err != nil {
		return nil, 0, err
	}
	err := s.read().sel(ctx, &ds, s.page(`SELECT `+prefixColumns("t", deliveryColumns)+` FROM notification_deliveries t`+w.String()+
		` ORDER BY `+s.orderBy("t", deliveryOrder, backward(pg.Keyset)), pg.Limit, pg.Offset), w.args...)
	if err != nil {
		return nil, 0, classify(op, err)
	}
	inOrder(pg.Keyset, ds)
	return ds, total, nil
}

// FindDeliveryByID returns a delivery.
func (s *Store) FindDeliveryByID(ctx context.Context, id int64) (*Delivery, error) {
	var d Delivery
	err := s.read().get(ctx, &d, `SELECT `+deliveryColumns+` FROM notification_deliveries WHERE id = ?`, id)
	return &d, classify("store.FindDeliveryByID", err)
}

// FindDeliveryAttempts returns the attempts of the deliveries, oldest first.
func (s *Store) FindDeliveryAttempts(ctx context.Context, deliveryIDs []int64) ([]*DeliveryAttempt, error) {
	as := []*DeliveryAttempt{}
	if len(deliveryIDs) == 0 {
		return as, nil
	}
	err := s.read().selIn(ctx, &as, `SELECT id, delivery_id, started, duration_ms, response_status, response_body, error
		FROM notification_attempts WHERE delivery_id IN (?) ORDER BY id`, deliveryIDs)
	return as, classify("store.FindDeliveryAttempts", err)
}

// DeliveryTarget is what a sender needs of a delivery's receiver.
type DeliveryTarget struct {
	Webhook   *Webhook   // nil for an email
	EmailHook *EmailHook // nil for a webhook
}

// FindDeliveryTarget returns the receiver of a delivery.
func (s *Store) FindDeliveryTarget(ctx context.Context, d *Delivery) (DeliveryTarget, error) {
	const op = "store.FindDeliveryTarget"
	switch {
	case d.WebhookID != nil:
		w, err := s.findWebhookByID(ctx, *d.WebhookID)
		return DeliveryTarget{Webhook: w}, err
	case d.EmailHookID != nil:
		var h EmailHook
		err := s.read().get(ctx, &h, `SELECT `+emailHookColumns+` FROM email_hooks WHERE id = ?`, *d.EmailHookID)
		return DeliveryTarget{EmailHook: &h}, classify(op, err)
	}
	return DeliveryTarget{}, errs.Internalf(op, "delivery %d has no receiver", d.ID)
}
