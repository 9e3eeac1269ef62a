package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/mail"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"docsd/graph"
	"docsd/graph/scalar"
	"docsd/internal/access"
	"docsd/internal/accounts"
	"docsd/internal/choices"
	"docsd/internal/errs"
	"docsd/internal/hosting"
	"docsd/store"
)

// admin runs the administrative commands: users, tokens, and what Read the
// Docs' admins set that the API does not. Project and version changes go
// through the graph's mutations as the system viewer, so they are validated
// exactly like API writes.
func (c *command) admin(ctx context.Context, group, sub string, args []string) (err error) {
	key := group + " " + sub
	synopsis, ok := adminSynopses[key]
	if !ok {
		return usageError(fmt.Sprintf("unknown command %q (see docsd --help)", strings.TrimSpace(key)))
	}
	fs, env := c.flags(key, synopsis)
	opt := c.adminOptions(fs, key)
	pos, err := c.parse(fs, env, args[1:])
	if err != nil {
		return err
	}
	want := adminArity[key]
	unlinking := key == "project translation" && *opt.unlink && len(pos) == 1 // MAIN_SLUG is not needed to unlink
	if ((want >= 0 && len(pos) != want) || (want < 0 && len(pos) < -want)) && !unlinking {
		return usageError("usage: docsd " + synopsis)
	}
	a, err := c.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.close()
	if a.store.Dialect() == store.SQLite {
		// No signal of this process reaches a running server on SQLite:
		// it finds other processes' commits by looking every
		// otherProcessesEvery (watchOtherProcesses). Say so rather than
		// let a reader be served the old privacy for that long unawares.
		var served atomic.Bool
		a.store.OnCommit(func(_ context.Context, tables []string) {
			if hosting.Serves(tables) {
				served.Store(true)
			}
		})
		defer func() {
			if err == nil && served.Load() {
				fmt.Fprintln(c.stderr, servedSoonNote)
			}
		}()
	}
	if listCommands[key] {
		return c.list(ctx, a, key, pos)
	}
	if group == "user" || group == "token" {
		return c.adminUsers(ctx, a, key, pos, opt)
	}
	sys := access.WithSystem(ctx)
	switch key {
	case "project privacy":
		if err := adminChoice("privacy_level", pos[1], choices.PrivacyLevels); err != nil {
			return err
		}
		return a.mutate(sys, "setProjectPrivacy", map[string]any{"slug": pos[0], "privacyLevel": pos[1]})
	case "project translation":
		var main any
		if !*opt.unlink {
			main = pos[1]
		}
		return a.mutate(sys, "setTranslationOf", map[string]any{"slug": pos[0], "main": main})
	case "project maintainer":
		op := "addMaintainer"
		switch pos[0] {
		case "add":
		case "remove":
			op = "removeMaintainer"
		default:
			return usageError("usage: docsd " + synopsis)
		}
		return a.mutate(sys, op, map[string]any{"slug": pos[1], "username": pos[2]})
	case "project set":
		input, err := adminFields(pos[1:])
		if err != nil {
			return err
		}
		input["slug"] = pos[0]
		return a.mutate(sys, "setProjectAdminFields", input)
	case "project delete":
		return a.mutate(sys, "deleteProject", map[string]any{"slug": pos[0]})
	case "version privacy":
		if err := adminChoice("privacy_level", pos[2], choices.PrivacyLevels); err != nil {
			return err
		}
		return a.mutate(sys, "setVersionPrivacy", map[string]any{"project": pos[0], "version": pos[1], "privacyLevel": pos[2]})
	case "version set":
		uploaded, err := strconv.ParseBool(strings.TrimPrefix(pos[2], "uploaded="))
		if err != nil || !strings.HasPrefix(pos[2], "uploaded=") {
			return usageError("usage: docsd " + synopsis)
		}
		return a.mutate(sys, "setVersionUploaded", map[string]any{"project": pos[0], "version": pos[1], "uploaded": uploaded})
	case "redirect status":
		p, err := a.store.FindProjectBySlug(ctx, pos[0])
		if err != nil {
			return notFoundAs(err, fmt.Sprintf("project %q does not exist", pos[0]))
		}
		id, err := strconv.ParseInt(pos[1], 10, 64)
		if err != nil {
			return usageError("redirect ID must be an integer")
		}
		status, err := strconv.Atoi(pos[2])
		if err != nil || (status != 301 && status != 302) {
			return errs.FieldError("admin", "http_status", errs.BadChoice(pos[2]))
		}
		return notFoundAs(a.store.SetRedirectStatus(ctx, p.ID, id, status), fmt.Sprintf("project %q has no redirect %d", pos[0], id))
	case "build cancel":
		return c.cancelBuild(ctx, a, pos[0])
	}
	return c.adminOrganizations(ctx, a, key, pos, opt, synopsis)
}

// adminOrganizations runs the organization and team commands, through the
// graph's mutations as the system viewer: they act at once (no
// invitations).
func (c *command) adminOrganizations(ctx context.Context, a *app, key string, pos []string, opt adminOpts, synopsis string) error {
	sys := access.WithSystem(ctx)
	addRemove := func(verb, add, remove string) (string, error) {
		switch verb {
		case "add":
			return add, nil
		case "remove":
			return remove, nil
		}
		return "", usageError("usage: docsd " + synopsis)
	}
	switch key {
	case "organization create":
		if strings.TrimSpace(*opt.owner) == "" {
			return usageError("usage: docsd " + synopsis)
		}
		owner, err := a.store.FindUserByUsername(ctx, *opt.owner)
		if err != nil {
			return notFoundAs(err, fmt.Sprintf("User %s does not exist", *opt.owner))
		}
		// The system acts, with the owner as the creator who becomes the
		// only owner.
		asOwner := access.WithViewer(ctx, access.Viewer{System: true, User: owner})
		return a.mutate(asOwner, "createOrganization", map[string]any{"slug": pos[0], "name": *opt.orgName, "email": *opt.email})
	case "organization owner":
		op, err := addRemove(pos[0], "addOrganizationOwner", "removeOrganizationOwner")
		if err != nil {
			return err
		}
		return a.mutate(sys, op, map[string]any{"organization": pos[1], "username": pos[2]})
	case "organization sso-domain":
		verb, err := addRemove(pos[0], "add", "remove")
		if err != nil {
			return err
		}
		return c.changeSSODomain(ctx, a, pos[1], pos[2], verb == "add")
	case "team create":
		if *opt.access != "admin" && *opt.access != "readonly" {
			return errs.FieldError("admin", "access", errs.BadChoice(*opt.access))
		}
		return a.mutate(sys, "createTeam", map[string]any{"organization": pos[0], "name": pos[1], "access": *opt.access})
	case "team delete":
		return a.mutate(sys, "deleteTeam", map[string]any{"organization": pos[0], "slug": pos[1]})
	case "team member":
		op, err := addRemove(pos[0], "addTeamMember", "removeTeamMember")
		if err != nil {
			return err
		}
		input := map[string]any{"organization": pos[1], "team": pos[2], "username": pos[3]}
		if op == "addTeamMember" {
			input = map[string]any{"organization": pos[1], "team": pos[2], "usernameOrEmail": pos[3]}
		}
		return a.mutate(sys, op, input)
	case "team project":
		op, err := addRemove(pos[0], "addTeamProject", "removeTeamProject")
		if err != nil {
			return err
		}
		return a.mutate(sys, op, map[string]any{"organization": pos[1], "team": pos[2], "project": pos[3]})
	case "project organization":
		var org any
		switch {
		case *opt.none && len(pos) == 1:
		case !*opt.none && len(pos) == 2:
			org = pos[1]
		default:
			return usageError("usage: docsd " + synopsis)
		}
		return a.mutate(sys, "setProjectOrganization", map[string]any{"slug": pos[0], "organization": org})
	}
	return nil
}

// changeSSODomain adds domain to (or removes it from) the SSO domains of
// organization orgSlug, through setOrganizationSsoDomains as the system.
// Adding a domain the organization has already is no error; removing one
// it does not have is NotFound.
func (c *command) changeSSODomain(ctx context.Context, a *app, orgSlug, domain string, add bool) error {
	o, err := a.store.FindOrganizationBySlug(ctx, orgSlug)
	if err != nil {
		return err
	}
	byOrg, err := a.store.FindOrganizationSSODomains(ctx, []int64{o.ID})
	if err != nil {
		return err
	}
	domains := byOrg[o.ID]
	if add {
		domains = append(domains, domain)
	} else {
		name, msg := graph.CleanSSODomain(domain)
		i := slices.Index(domains, name)
		if msg != "" || i < 0 {
			return errs.E(errs.NotFound, "admin", fmt.Sprintf("The organization %s has no SSO domain %s.", o.Slug, strings.TrimSpace(domain)))
		}
		domains = slices.Delete(domains, i, i+1)
	}
	return a.mutate(access.WithSystem(ctx), "setOrganizationSsoDomains", map[string]any{"organization": o.Slug, "domains": append([]string{}, domains...)})
}

// adminUsers runs the user and token commands.
func (c *command) adminUsers(ctx context.Context, a *app, key string, pos []string, opt adminOpts) error {
	switch key {
	case "user create":
		var password string
		if *opt.passwordStdin {
			var err error
			if password, err = c.readPassword(); err != nil {
				return err
			}
		}
		u, err := a.store.CreateUser(ctx, pos[0], *opt.email, *opt.superuser)
		if err != nil {
			return err
		}
		if *opt.passwordStdin {
			if err := accounts.New(a.store).SetPassword(ctx, u.Username, password); err != nil {
				return err
			}
		}
		token, _, err := a.store.CreateToken(ctx, u.ID)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, token)
	case "user password":
		password, err := c.readPassword()
		if err != nil {
			return err
		}
		return notFoundAs(accounts.New(a.store).SetPassword(ctx, pos[0], password), fmt.Sprintf("user %q does not exist", pos[0]))
	case "user activate", "user deactivate":
		return a.store.SetUserActive(ctx, pos[0], key == "user activate")
	case "user set-email":
		if addr, err := mail.ParseAddress(pos[1]); err != nil || addr.Address != pos[1] || addr.Name != "" {
			return errs.FieldError("admin", "email", "Enter a valid email address.")
		}
		return notFoundAs(a.store.SetUserEmail(ctx, pos[0], pos[1]), fmt.Sprintf("user %q does not exist", pos[0]))
	case "token create":
		name := ""
		if opt.tokenName.set {
			var err error
			if name, err = graph.CheckAPITokenName(opt.tokenName.value); err != nil {
				return err
			}
		}
		u, err := a.store.FindUserByUsername(ctx, pos[0])
		if err != nil {
			return notFoundAs(err, fmt.Sprintf("user %q does not exist", pos[0]))
		}
		token, _, err := a.store.CreateNamedToken(ctx, u.ID, name)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, token)
	case "token list":
		u, err := a.store.FindUserByUsername(ctx, pos[0])
		if err != nil {
			return notFoundAs(err, fmt.Sprintf("user %q does not exist", pos[0]))
		}
		tokens, err := a.store.FindTokens(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, t := range tokens {
			fmt.Fprintf(c.stdout, "%d\t%s\t%s…\t%s\n", t.ID, scalar.FormatTime(t.Created), t.Prefix, tokenName(t.Name))
		}
	case "token revoke":
		return notFoundAs(a.store.RevokeToken(ctx, pos[0]), "no such token")
	}
	return nil
}

// adminOpts are the flags of the admin commands that have flags of their own.
type adminOpts struct {
	email                            *string
	superuser, unlink, passwordStdin *bool
	tokenName                        *givenString
	orgName, owner, access           *string
	none                             *bool
}

// givenString is a string flag that knows whether it was given, so that
// `--name ""` is refused as blank rather than taken for no name.
type givenString struct {
	value string
	set   bool
}

func (g *givenString) String() string {
	if g == nil {
		return ""
	}
	return g.value
}

func (g *givenString) Set(v string) error { g.value, g.set = v, true; return nil }

func (g *givenString) Get() any { return g.value }

// adminOptions declares the flags of command key (each command only its
// own) and which flags its help shows.
func (c *command) adminOptions(fs *flag.FlagSet, key string) adminOpts {
	var o adminOpts
	c.shown = adminFlags
	switch key {
	case "user create":
		o.email = fs.String("email", "", "the user's e-mail address")
		o.superuser = fs.Bool("superuser", false, "make the user a superuser")
		o.passwordStdin = fs.Bool("password-stdin", false, "read the user's dashboard password from the first line of stdin")
		c.shown = append(slices.Clip(adminFlags), "email", "superuser", "password-stdin")
	case "project translation":
		o.unlink = fs.Bool("unlink", false, "remove the translation link")
		c.shown = append(slices.Clip(adminFlags), "unlink")
	case "organization create":
		o.orgName = fs.String("name", "", "the organization's display name")
		o.owner = fs.String("owner", "", "the username of its first owner")
		o.email = fs.String("email", "", "the organization's contact address")
		c.shown = append(slices.Clip(adminFlags), "name", "owner", "email")
	case "team create":
		o.access = fs.String("access", "readonly", "what the team's members may do with its projects: admin or readonly")
		c.shown = append(slices.Clip(adminFlags), "access")
	case "project organization":
		o.none = fs.Bool("none", false, "take the project out of its organization")
		c.shown = append(slices.Clip(adminFlags), "none")
	case "token create":
		o.tokenName = &givenString{}
		fs.Var(o.tokenName, "name", "what the token is for, shown in token list and on the dashboard's API tokens page (at most 100 characters)")
		c.shown = append(slices.Clip(adminFlags), "name")
	}
	return o
}

// readPassword reads a password from the first line of stdin (without its
// line ending); it is never echoed or logged. A password shorter than the
// minimum is refused by accounts.SetPassword.
func (c *command) readPassword() (string, error) {
	in := c.stdin
	if in == nil {
		in = os.Stdin
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", usageError("no password on stdin (e.g. printf '%s\\n' \"$PASSWORD\" | docsd user password NAME)")
	}
	return line, nil
}

// mutate runs mutation field with input (of type <Field>Input, as every
// mutation takes) and returns its first error, top-level or from its
// payload's errors.
func (a *app) mutate(ctx context.Context, field string, input map[string]any) error {
	query := "mutation($input: " + strings.ToUpper(field[:1]) + field[1:] + "Input!) { " + field +
		"(input: $input) { " + graph.PayloadErrors + " } }"
	return a.executor.Do(ctx, query, map[string]any{"input": input}, nil)
}

// notFoundAs replaces the text of a NotFound error with msg.
func notFoundAs(err error, msg string) error {
	if errs.Is(err, errs.NotFound) {
		return errs.E(errs.NotFound, "admin", msg)
	}
	return err
}

// servedSoonNote is what an administrative command that changed served
// rows on SQLite says when it is done.
const servedSoonNote = "A docsd serve running on this database serves this change within about a second."

var adminSynopses = map[string]string{
	"user create":         "user create USERNAME [--email ADDRESS] [--superuser] [--password-stdin]",
	"user password":       "user password USERNAME  (reads the password from stdin)",
	"user list":           "user list",
	"project list":        "project list",
	"build list":          "build list PROJECT_SLUG",
	"build log":           "build log BUILD_ID",
	"user activate":       "user activate USERNAME",
	"user deactivate":     "user deactivate USERNAME",
	"user set-email":      "user set-email USERNAME EMAIL  (the email counts as verified)",
	"token create":        "token create USERNAME [--name NAME]",
	"token list":          "token list USERNAME",
	"token revoke":        "token revoke TOKEN|ID",
	"project privacy":     "project privacy SLUG public|protected|private",
	"project translation": "project translation SLUG MAIN_SLUG | SLUG --unlink",
	"project maintainer":  "project maintainer add|remove SLUG USERNAME",
	"project set":         "project set SLUG FIELD=VALUE...",
	"project delete":      "project delete SLUG",
	"version privacy":     "version privacy PROJECT_SLUG VERSION_SLUG public|protected|private",
	"version set":         "version set PROJECT_SLUG VERSION_SLUG uploaded=true|false",
	"redirect status":     "redirect status PROJECT_SLUG ID 301|302",
	"build cancel":        "build cancel ID",
	// Organizations and teams.
	"organization create":     "organization create SLUG --name NAME --owner USERNAME [--email ADDRESS]",
	"organization owner":      "organization owner add|remove ORG USERNAME",
	"organization sso-domain": "organization sso-domain add|remove ORG DOMAIN",
	"team create":             "team create ORG NAME [--access admin|readonly]",
	"team delete":             "team delete ORG TEAM",
	"team member":             "team member add|remove ORG TEAM USERNAME",
	"team project":            "team project add|remove ORG TEAM PROJECT",
	"project organization":    "project organization SLUG ORG | SLUG --none",
}

// adminArity is the number of positional arguments after the subcommand; a
// negative number is a minimum.
var adminArity = map[string]int{
	"user create": 1, "user password": 1, "user activate": 1, "user deactivate": 1, "user set-email": 2,
	"user list": 0, "project list": 0, "build list": 1, "build log": 1,
	"token create": 1, "token list": 1, "token revoke": 1,
	"project privacy": 2, "project translation": 2, "project maintainer": 3,
	"project set": -2, "project delete": 1, "version privacy": 3, "version set": 3, "redirect status": 3,
	"build cancel":        1,
	"organization create": 1, "organization owner": 3, "organization sso-domain": 3, "team create": 2, "team delete": 2,
	"team member": 4, "team project": 4, "project organization": -1,
}

// adminChoice checks a value the commands send to a GraphQL enum against
// its choices table, with the API's message: GraphQL would refuse a value
// outside the enum as a malformed operation rather than as a field error.
func adminChoice(field, value string, t choices.Table) error {
	if t.Has(value) {
		return nil
	}
	return errs.FieldError("admin", field, errs.BadChoice(value))
}

// adminFieldTypes maps `project set` field names (the admin-only project
// fields) to the GraphQL input field and its type; a "choice" is one of
// table's codes.
var adminFieldTypes = map[string]struct {
	name, kind string
	table      choices.Table
}{
	"skip":                    {"skip", "bool", nil},
	"enable_pdf_build":        {"enablePdfBuild", "bool", nil},
	"enable_epub_build":       {"enableEpubBuild", "bool", nil},
	"requirements_file":       {"requirementsFile", "string", nil},
	"conf_py_file":            {"confPyFile", "string", nil},
	"install_project":         {"installProject", "bool", nil},
	"python_interpreter":      {"pythonInterpreter", "choice", choices.PythonInterpreters},
	"use_system_packages":     {"useSystemPackages", "bool", nil},
	"external_builds_enabled": {"externalBuildsEnabled", "bool", nil},
	"build_time_limit":        {"buildTimeLimit", "int", nil},
	"version_privacy_level":   {"versionPrivacyLevel", "choice", choices.PrivacyLevels},
	"description":             {"description", "string", nil},
	"documentation_type":      {"documentationType", "choice", choices.DocumentationTypes},
	"tags":                    {"tags", "list", nil},
	"addons_enabled":          {"addonsEnabled", "bool", nil},
}

// adminFields parses FIELD=VALUE arguments into a ProjectAdminInput.
func adminFields(args []string) (map[string]any, error) {
	input := map[string]any{}
	fields := errs.Fields{}
	for _, arg := range args {
		name, value, ok := strings.Cut(arg, "=")
		ft, known := adminFieldTypes[name]
		if !ok || !known {
			names := make([]string, 0, len(adminFieldTypes))
			for n := range adminFieldTypes {
				names = append(names, n)
			}
			return nil, usageError(fmt.Sprintf("%q: want FIELD=VALUE with FIELD one of %s", arg, strings.Join(slices.Sorted(slices.Values(names)), ", ")))
		}
		switch ft.kind {
		case "bool":
			b, err := strconv.ParseBool(value)
			if err != nil {
				fields.Add(name, errs.MsgNotBoolean)
				continue
			}
			input[ft.name] = b
		case "int":
			n, err := strconv.Atoi(value)
			if err != nil {
				fields.Add(name, "A valid integer is required.")
				continue
			}
			input[ft.name] = n
		case "choice":
			if !ft.table.Has(value) {
				fields.Add(name, errs.BadChoice(value))
				continue
			}
			input[ft.name] = value
		case "list":
			tags := []string{}
			for _, t := range strings.Split(value, ",") {
				if t = strings.TrimSpace(t); t != "" {
					tags = append(tags, t)
				}
			}
			input[ft.name] = tags
		default:
			input[ft.name] = value
		}
	}
	if err := fields.Err("admin.projectSet"); err != nil {
		return nil, err
	}
	return input, nil
}

// tokenName is how `docsd token list` shows a key's name: "(unnamed)" for
// the keys `docsd user create` and `docsd token create` without --name
// make, and control characters as "?" so that a name keeps to its line
// and column.
func tokenName(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, name)
}
