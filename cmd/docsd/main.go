// Command docsd is a documentation hosting service compatible with Read the
// Docs' APIs: it imports git repositories, builds their docs and serves them.
//
//	docsd serve                      run the HTTP server (and build workers)
//	docsd migrate                    apply database migrations and exit
//	docsd user create USERNAME       create a user and print an API token
//	docsd token create USERNAME      print a new token for a user
//	…                                see `docsd --help`
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"docsd/internal/errs"
)

const usage = `docsd — documentation hosting compatible with Read the Docs' APIs

Usage: docsd COMMAND [SUBCOMMAND] [arguments] [flags]

Commands:
  serve                                   run the HTTP server (API, GraphQL, docs) and build workers
  worker                                  run build workers only, against the same database
  migrate                                 create or upgrade the database and exit
  user create USERNAME [--email ADDRESS] [--superuser] [--password-stdin]
                                          create a user and print a new API token
  user password USERNAME                  set a user's dashboard password (read from stdin)
  user list                               list users
  user activate|deactivate USERNAME       set whether a user may use the API
  user set-email USERNAME EMAIL           set a user's email, as verified (single sign-on matches people by it)
  token create USERNAME [--name NAME]    print a new API token for a user, named for what it is for
  token list USERNAME                     list a user's tokens (id, created, first 4 characters)
  token revoke TOKEN|ID                   revoke a token
  project list                            list projects
  project privacy SLUG public|protected|private
  project translation SLUG MAIN_SLUG | SLUG --unlink
  project maintainer add|remove SLUG USERNAME
  project set SLUG FIELD=VALUE...         set admin-only fields (skip, enable_pdf_build, …)
  project delete SLUG
  version privacy PROJECT_SLUG VERSION_SLUG public|protected|private
  version set PROJECT_SLUG VERSION_SLUG uploaded=true|false
                                          mark a version as published by uploads (false: built from the repository again)
  redirect status PROJECT_SLUG ID 301|302
  build list PROJECT_SLUG                 list a project's builds, newest first
  build log BUILD_ID                      print a build's commands and their output
  secrets rotate --secret-key NEW [--old-secret-key OLD]
                                          re-encrypt secrets stored in the database
  backup FILE                             copy the SQLite database to FILE while docsd runs
  build cancel ID                         cancel a queued or running build (any worker stops it within seconds)
  search reindex [PROJECT[/VERSION]]      rebuild the search index from published docs
  organization create SLUG --name NAME --owner USERNAME [--email ADDRESS]
                                          create an organization with its owner and default teams
  organization owner add|remove ORG USERNAME
  organization sso-domain add|remove ORG DOMAIN
                                          email domains of the organization's single sign-on
  team create ORG NAME [--access admin|readonly]
  team delete ORG TEAM
  team member add|remove ORG TEAM USERNAME
  team project add|remove ORG TEAM PROJECT
  project organization SLUG ORG | SLUG --none
                                          move a project (with its subprojects and translations)
  audit prune                             delete audit log entries older than --audit-retention-days

  --version                               print docsd's version

Run 'docsd COMMAND --help' (or 'docsd help COMMAND') for a command's flags.
Each flag has an environment variable (--public-url: DOCSD_PUBLIC_URL); a
flag wins over the variable. Commands other than serve, worker and migrate
need an existing database: they refuse a --data-dir that has none. On
SQLite, a docsd serve running on the same database serves what they change
within about a second (it looks for other processes' changes every second);
on PostgreSQL, at once.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit status. It is
// what tests call to run the real program.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWithInput(ctx, args, os.Stdin, stdout, stderr)
}

// runWithInput is run with stdin given (the commands that read a password).
func runWithInput(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[0] == "help" {
		args = append(args[1:], "--help") // docsd help COMMAND
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		return printVersion(stdout)
	}
	cmd := &command{stdin: stdin, stdout: stdout, stderr: stderr}
	err := cmd.dispatch(ctx, args)
	var u usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "docsd: %s\n", u)
		return 2
	default:
		fmt.Fprintf(stderr, "docsd: %s\n", message(err))
		return 1
	}
}

// usageError is a wrong command line.
type usageError string

func (u usageError) Error() string { return string(u) }

// message renders an error for the terminal: classified errors by their
// caller-facing text and field messages.
func message(err error) string {
	var e *errs.Error
	if errors.As(err, &e) && e.Kind != errs.Internal {
		if len(e.Fields) > 0 {
			var parts []string
			for k, msgs := range e.Fields {
				parts = append(parts, k+": "+strings.Join(msgs, " "))
			}
			return strings.Join(parts, "; ")
		}
		return e.Text()
	}
	return err.Error()
}

// command runs one subcommand with its settings.
type command struct {
	stdin          io.Reader // the password of `user password` and `user create --password-stdin`
	stdout, stderr io.Writer
	settings       Settings
	logger         *slog.Logger
	synopsis       string   // the command line's usage, for --help
	shown          []string // the flags --help shows; nil: all
}

// flags returns a flag set for a subcommand with every setting declared.
func (c *command) flags(name, synopsis string) (*flag.FlagSet, *envErrors) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse prints help (stdout) and errors (stderr) itself
	fs.Usage = func() {}
	env := &envErrors{}
	c.settings.register(fs, env)
	c.synopsis = synopsis
	return fs, env
}

// parse parses flags that may appear before, between or after positional
// arguments, resolves the settings and returns the positional arguments.
func (c *command) parse(fs *flag.FlagSet, env *envErrors, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printHelp(c.stdout, fs)
				return nil, err
			}
			if name, ok := undefinedFlag(fs, args); ok {
				return nil, c.unknownFlag(fs, name)
			}
			return nil, usageError(fmt.Sprintf("%s (see docsd %s --help)", err, fs.Name()))
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			positional = append(positional, args[1:]...)
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	if len(*env) > 0 {
		return nil, usageError(strings.Join(*env, "; "))
	}
	if err := c.settings.resolve(); err != nil {
		return nil, usageError(err.Error())
	}
	c.logger = newLogger(c.stderr, c.settings.LogFormat)
	return positional, nil
}

func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(newJSONLog(w))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

func (c *command) dispatch(ctx context.Context, args []string) error {
	name, rest := args[0], args[1:]
	sub := ""
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sub = rest[0]
	}
	switch name {
	case "serve":
		return c.serve(ctx, rest)
	case "worker":
		return c.worker(ctx, rest)
	case "migrate":
		return c.migrate(ctx, rest)
	case "search":
		return c.searchCommand(ctx, sub, rest)
	case "backup":
		return c.backup(ctx, rest)
	case "audit":
		return c.auditCommand(ctx, sub, rest)
	case "user", "token", "project", "version", "redirect", "build", "secrets", "organization", "team":
		if _, ok := allSynopses()[name+" "+sub]; !ok {
			return c.group(name, firstArg(rest))
		}
		if name == "secrets" {
			return c.secrets(ctx, sub, rest)
		}
		return c.admin(ctx, name, sub, rest)
	}
	return usageError(fmt.Sprintf("unknown command %q (see docsd --help)", name))
}
