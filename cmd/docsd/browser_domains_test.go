package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"docsd/internal/certs/acmetest"
	"docsd/internal/domains"
)

// TestBrowserCustomDomains: a maintainer adds custom domains on the
// dashboard's Domains page: a bad name gets Read the Docs' message next to
// the field; a domain whose DNS points at docsd becomes served, one that
// does not shows the record to create. The ACME CA does not answer: the
// page says why the certificate is missing, plain HTTP keeps serving the
// domain, and /readyz lists the problem.
func TestBrowserCustomDomains(t *testing.T) {
	ctx := newBrowser(t)
	dns := acmetest.StartDNS(t)
	dataDir := t.TempDir()
	migrated(t, dataDir)
	code, out, errOut := docsdWithInput(t, "alice-password\n", "user", "create", "alice", "--password-stdin", "--data-dir", dataDir)
	if code != 0 {
		t.Fatalf("user create: %d %s", code, errOut)
	}
	addr, tlsAddr := freeAddr(t), freeAddr(t)
	deadCA := "https://" + freeAddr(t) + "/dir" // nothing listens there
	srv := serveAt(t, dataDir, addr, freeAddr(t), "--docs-addr", freeAddr(t), "--build-workers", "0",
		"--tls-addr", tlsAddr, "--tls-acme-email", "ops@acme.test", "--tls-acme-directory", deadCA,
		"--domain-target", "docsd.acme.test,127.0.0.1", "--domain-dns-server", dns.Addr)
	srv.token = strings.TrimSpace(out)
	var imp struct {
		ImportProject struct{ Errors []struct{ Message string } }
	}
	srv.graphql(t, `mutation { importProject(input: {name: "Acme Handbook", repository: {url: "https://github.com/example/handbook", type: git}}) { errors { message } } }`, nil, &imp)
	if len(imp.ImportProject.Errors) > 0 {
		t.Fatal(imp.ImportProject.Errors)
	}
	dns.AddA(t, "docs.acme.test", "127.0.0.1")
	fail := func(name string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-"+name+".png")
		t.Fatalf("%s: %v\n%s", name, err, srv.stderr.String())
	}
	const page = "/projects/acme-handbook/domains/"
	err := chromedp.Run(ctx,
		chromedp.EmulateViewport(1100, 900),
		chromedp.Navigate(srv.url+page),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible("#id_domain", chromedp.ByQuery),
	)
	if err != nil {
		fail("sign-in", err)
	}

	// An address is refused, with the message next to the field.
	var msg string
	err = chromedp.Run(ctx,
		chromedp.SendKeys("#id_domain", "192.0.2.1", chromedp.ByQuery),
		chromedp.Submit("#id_domain", chromedp.ByQuery),
		chromedp.WaitVisible("#id_domain_error", chromedp.ByQuery),
		chromedp.Text("#id_domain_error", &msg, chromedp.ByQuery),
	)
	if err != nil {
		fail("bad-name", err)
	}
	if msg != domains.MsgIPAddress {
		t.Errorf("message next to the field: %q, want %q", msg, domains.MsgIPAddress)
	}
	screenshot(t, ctx, "domains-error.png")

	// Two domains: one pointed at docsd, one not.
	for _, name := range []string{"docs.acme.test", "handbook.acme.test"} {
		err = chromedp.Run(ctx,
			chromedp.Clear("#id_domain", chromedp.ByQuery),
			chromedp.SendKeys("#id_domain", name, chromedp.ByQuery),
		)
		if err == nil && name == "docs.acme.test" {
			err = chromedp.Run(ctx, chromedp.Click("#id_canonical", chromedp.ByQuery))
		}
		if err == nil {
			err = chromedp.Run(ctx, chromedp.Submit("#id_domain", chromedp.ByQuery),
				chromedp.WaitVisible(`a[href="https://`+name+`/"]`, chromedp.ByQuery))
		}
		if err != nil {
			fail("add-"+name, err)
		}
	}
	srv.waitDomainServed(t, "acme-handbook", "docs.acme.test")

	// A handshake for the served domain starts an order, which fails: the
	// CA does not answer. The page says so.
	// (The handshake waits while the order is retried: the client gives
	// up first.)
	impatient := httpsClient(tlsAddr, nil)
	impatient.Timeout = 5 * time.Second
	if _, _, _, err := getHTTPS(t, impatient, "https://docs.acme.test/"); err == nil {
		t.Error("HTTPS answered without a certificate")
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var d struct {
			Project struct {
				Domains []struct{ Domain, SslStatus, SslError string }
			}
		}
		srv.graphql(t, `{ project(slug: "acme-handbook") { domains { domain sslStatus sslError } } }`, nil, &d)
		if len(d.Project.Domains) > 0 && d.Project.Domains[0].SslStatus == "invalid" && d.Project.Domains[0].SslError != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the certificate's state stays %+v", d.Project.Domains)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var text string
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.url+page),
		chromedp.WaitVisible("section.domain", chromedp.ByQuery),
		chromedp.Text("main", &text, chromedp.ByQuery),
	)
	if err != nil {
		fail("list", err)
	}
	screenshot(t, ctx, "domains.png")
	for _, want := range []string{"docs.acme.test", "canonical", "Points at this server", "certificate: invalid",
		"handbook.acme.test", "Not pointing at this server yet", "docsd.acme.test", "127.0.0.1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q:\n%s", want, text)
		}
	}

	// Plain HTTP keeps serving the domain (the docs host answers, here
	// with its redirect to the default version): no redirect to an HTTPS
	// that has no certificate.
	if code, loc, _ := fetch(t, "http://"+addr+"/", "docs.acme.test"); code != http.StatusFound || loc != "https://docs.acme.test/en/latest/" {
		t.Errorf("plain HTTP for a domain without a certificate: %d %q, want the docs host's 302", code, loc)
	}
	if _, _, body := fetch(t, "http://"+addr+"/readyz", ""); !strings.Contains(body, `"certificates":"problems"`) || !strings.Contains(body, "docs.acme.test") {
		t.Errorf("/readyz does not tell of the certificate: %s", body)
	}
}
