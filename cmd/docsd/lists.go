package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"docsd/graph/scalar"
	"docsd/store"
)

// listCommands are the read-only admin commands; list runs them.
var listCommands = map[string]bool{"user list": true, "project list": true, "build list": true, "build log": true}

// list prints users, projects, a project's builds or one build's log.
func (c *command) list(ctx context.Context, a *app, key string, pos []string) error {
	switch key {
	case "user list":
		return c.listUsers(ctx, a)
	case "project list":
		return c.listProjects(ctx, a)
	case "build list":
		return c.listBuilds(ctx, a, pos[0])
	default:
		return c.buildLog(ctx, a, pos[0])
	}
}

func (c *command) listUsers(ctx context.Context, a *app) error {
	users, err := a.store.FindAllUsers(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "USERNAME\tEMAIL\tACTIVE\tSUPERUSER\tCREATED")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%t\t%t\t%s\n", u.Username, u.Email, u.IsActive, u.IsSuperuser, scalar.FormatTime(u.Created))
	}
	return tw.Flush()
}

func (c *command) listProjects(ctx context.Context, a *app) error {
	projects, _, err := a.store.FindProjects(ctx, store.ProjectFilter{})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SLUG\tNAME\tPRIVACY\tLANGUAGE\tREPOSITORY")
	for _, p := range projects {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Slug, p.Name, p.PrivacyLevel, p.Language, p.Repo)
	}
	return tw.Flush()
}

// listBuilds prints a project's builds, newest first.
func (c *command) listBuilds(ctx context.Context, a *app, slug string) error {
	p, err := a.store.FindProjectBySlug(ctx, slug)
	if err != nil {
		return notFoundAs(err, fmt.Sprintf("project %q does not exist", slug))
	}
	builds, _, err := a.store.FindBuilds(ctx, store.BuildFilter{ProjectID: &p.ID})
	if err != nil {
		return err
	}
	versions, err := a.store.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}})
	if err != nil {
		return err
	}
	slugs := map[int64]string{}
	for _, v := range versions {
		slugs[v.ID] = v.Slug
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tVERSION\tSTATE\tRESULT\tCREATED\tERROR")
	for _, b := range builds {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", b.ID, slugs[b.VersionID], b.State, outcome(b), scalar.FormatTime(b.Created), firstLine(b.Error))
	}
	return tw.Flush()
}

// buildLog prints a build's summary and every recorded command with its
// output (secrets already masked when they were recorded).
func (c *command) buildLog(ctx context.Context, a *app, arg string) error {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return usageError("build ID must be an integer")
	}
	b, err := a.store.FindBuildByID(ctx, id)
	if err != nil {
		return notFoundAs(err, fmt.Sprintf("build %d does not exist", id))
	}
	cmds, err := a.store.FindBuildCommands(ctx, []int64{id})
	if err != nil {
		return err
	}
	w := c.stdout
	fmt.Fprintf(w, "Build %d: %s, %s\n", b.ID, b.State, outcome(b))
	if b.Error != "" {
		fmt.Fprintf(w, "Error: %s\n", b.Error)
	}
	for _, cmd := range cmds {
		exit := "running"
		if cmd.ExitCode != nil {
			exit = "exit " + strconv.Itoa(*cmd.ExitCode)
		}
		fmt.Fprintf(w, "\n$ %s  (%s)\n", cmd.Command, exit)
		if out := strings.TrimRight(cmd.Output, "\n"); out != "" {
			fmt.Fprintln(w, out)
		}
	}
	return nil
}

// outcome is a build's result as the lists show it.
func outcome(b *store.Build) string {
	switch {
	case b.State != "finished":
		return "-"
	case b.Success:
		return "success"
	default:
		return "failure"
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
