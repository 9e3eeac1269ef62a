package main

import (
	"context"

	"docsd/graph"
	"docsd/internal/mail"
)

// invitationMail is the graph's invitation sender: nil without a mail
// relay (--smtp-addr), so that inviters are shown the link instead. The
// relay's configuration is read at each send.
func (a *app) invitationMail() (graph.InvitationMail, error) {
	m, err := mail.New(a.settings.mailConfig())
	if err != nil || !m.Enabled() {
		return nil, err
	}
	return func(ctx context.Context, to, subject, text string) error {
		m, err := mail.New(a.settings.mailConfig())
		if err != nil {
			return err
		}
		return m.Send(ctx, mail.Message{To: to, Subject: subject, Text: text})
	}, nil
}
