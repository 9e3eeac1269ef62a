package store

import (
	"context"
	"strings"
)

// versionRows are the columns of a Version, on the table aliased v.
var versionRows = newRowType(
	col[Version]{"v.id", func(v *Version) any { return &v.ID }},
	col[Version]{"v.project_id", func(v *Version) any { return &v.ProjectID }},
	col[Version]{"v.slug", func(v *Version) any { return &v.Slug }},
	col[Version]{"v.verbose_name", func(v *Version) any { return &v.VerboseName }},
	col[Version]{"v.identifier", func(v *Version) any { return &v.Identifier }},
	col[Version]{"v.type", func(v *Version) any { return &v.Type }},
	col[Version]{"v.active", func(v *Version) any { return &v.Active }},
	col[Version]{"v.built", func(v *Version) any { return &v.Built }},
	col[Version]{"v.uploaded", func(v *Version) any { return &v.Uploaded }},
	col[Version]{"v.machine", func(v *Version) any { return &v.Machine }},
	col[Version]{"v.privacy_level", func(v *Version) any { return &v.PrivacyLevel }},
	col[Version]{"v.has_pdf", func(v *Version) any { return &v.HasPDF }},
	col[Version]{"v.has_epub", func(v *Version) any { return &v.HasEPUB }},
	col[Version]{"v.has_htmlzip", func(v *Version) any { return &v.HasHTMLZip }},
	col[Version]{"v.created", func(v *Version) any { return &v.Created }},
	col[Version]{"v.hidden", func(v *Version) any { return &v.Hidden }},
)

// VersionFilter selects versions. Nil fields do not filter.
type VersionFilter struct {
	IDs          []int64
	ProjectIDs   []int64
	ProjectSlug  *string
	Slug         *string
	SlugContains *string // icontains
	Active       *bool
	Hidden       *bool
	Built        *bool
	Uploaded     *bool
	VerboseName  *string
	PrivacyLevel *string
	Type         *string
	Identifier   *string
	Internal     bool // leave out external (pull-request) versions
	Visible      *Visibility
	Limit        int
	Offset       int
	// Keyset, when set, pages by cursor instead of Offset.
	Keyset *Keyset
}

// versionOrder is the order of version lists: verbose name descending (code
// point), ties by id.
var versionOrder = []orderKey{{col: "verbose_name", text: true, desc: true}, {col: "id"}}

func (f VersionFilter) where() *where {
	w := &where{}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			w.add("1=0")
		} else {
			w.add("v.id IN (?)", f.IDs)
		}
	}
	if f.ProjectIDs != nil {
		if len(f.ProjectIDs) == 0 {
			w.add("1=0")
		} else {
			w.add("v.project_id IN (?)", f.ProjectIDs)
		}
	}
	if f.ProjectSlug != nil {
		w.addText("p.slug", *f.ProjectSlug)
	}
	if f.Slug != nil {
		w.addText("v.slug", *f.Slug)
	}
	if f.SlugContains != nil {
		w.addSlugContains("v.slug", *f.SlugContains)
	}
	if f.Active != nil {
		w.add("v.active = ?", *f.Active)
	}
	if f.Hidden != nil {
		w.add("v.hidden = ?", *f.Hidden)
	}
	if f.Built != nil {
		w.add("v.built = ?", *f.Built)
	}
	if f.Uploaded != nil {
		w.add("v.uploaded = ?", *f.Uploaded)
	}
	if f.VerboseName != nil {
		w.addText("v.verbose_name", *f.VerboseName)
	}
	if f.PrivacyLevel != nil {
		w.addText("v.privacy_level", *f.PrivacyLevel)
	}
	if f.Type != nil {
		w.addText("v.type", *f.Type)
	}
	if f.Identifier != nil {
		w.addText("v.identifier", *f.Identifier)
	}
	if f.Internal {
		w.add("v.type <> 'external'")
	}
	if f.Visible != nil {
		c, a := f.Visible.versionVisible("v", "p")
		w.add(c, a...)
	}
	return w
}

// FindVersions returns matching versions ordered by verbose_name descending
// (code point), ties by id, and the total count of matches.
func (s *Store) FindVersions(ctx context.Context, f VersionFilter) ([]*Version, int, error) {
	const op = "store.FindVersions"
	w := f.where()
	versions := []*Version{}
	total, err := findPage(ctx, s, &versions, versionRows.next, listRead{cols: versionRows.cols, from: ` FROM versions v JOIN projects p ON p.id = v.project_id`,
		table: "versions", alias: "v", order: versionOrder, w: w, limit: f.Limit, offset: f.Offset, keyset: f.Keyset})
	return versions, total, classify(op, err)
}

// FindAllVersions is FindVersions without the count, for callers that want
// every match (sync, loaders).
func (s *Store) FindAllVersions(ctx context.Context, f VersionFilter) ([]*Version, error) {
	versions, err := findAllVersions(ctx, s.read(), f)
	return versions, classify("store.FindAllVersions", err)
}

// findAllVersions is FindAllVersions on c.
func findAllVersions(ctx context.Context, c conn, f VersionFilter) ([]*Version, error) {
	w := f.where()
	versions := []*Version{}
	err := scanAll(ctx, c, &versions, versionRows.next, `SELECT `+versionRows.cols+` FROM versions v JOIN projects p ON p.id = v.project_id`+
		w.String()+` ORDER BY `+c.s.codepoint("v.verbose_name")+` DESC, v.id`, w.args...)
	return versions, err
}

// FindVersionByID returns the version with that id, whoever can see it.
func (s *Store) FindVersionByID(ctx context.Context, id int64) (*Version, error) {
	var v Version
	err := getRow(ctx, s.read(), versionRows, &v, `SELECT `+versionRows.cols+` FROM versions v WHERE v.id = ?`, id)
	return &v, classify("store.FindVersionByID", err)
}

// FindVersionBySlug returns the project's version with that slug.
func (s *Store) FindVersionBySlug(ctx context.Context, projectID int64, slug string) (*Version, error) {
	if !storable(slug) {
		return nil, errNotStorable("store.FindVersionBySlug")
	}
	var v Version
	err := getRow(ctx, s.read(), versionRows, &v, `SELECT `+versionRows.cols+` FROM versions v WHERE v.project_id = ? AND v.slug = ?`, projectID, slug)
	return &v, classify("store.FindVersionBySlug", err)
}

// FindVersionsByIDs returns the versions with the given ids, in no order.
func (s *Store) FindVersionsByIDs(ctx context.Context, ids []int64) ([]*Version, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var vs []*Version
	err := scanAll(ctx, s.read(), &vs, versionRows.next, `SELECT `+versionRows.cols+` FROM versions v WHERE v.id IN (?)`, ids)
	return vs, classify("store.FindVersionsByIDs", err)
}

// CreateVersion stores v (its ID and Created are set). A taken slug in the
// project is a Conflict.
func (s *Store) CreateVersion(ctx context.Context, v *Version) (*Version, error) {
	var out *Version
	err := s.InTx(ctx, "store.CreateVersion", func(tx *Tx) error {
		var err error
		out, err = tx.createVersion(ctx, v)
		return err
	})
	return out, err
}

// CreateVersion is CreateVersion inside tx.
func (tx *Tx) CreateVersion(ctx context.Context, v *Version) (*Version, error) {
	return tx.createVersion(ctx, v)
}

func (tx *Tx) createVersion(ctx context.Context, v *Version) (*Version, error) {
	out := *v
	if out.Type == "" {
		out.Type = Unknown
	}
	if out.PrivacyLevel == "" {
		out.PrivacyLevel = Public
	}
	out.Created = tx.Now
	id, err := tx.insert(ctx, `INSERT INTO versions (project_id, slug, verbose_name, identifier, type, active, built, uploaded,
		machine, privacy_level, has_pdf, has_epub, has_htmlzip, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		out.ProjectID, out.Slug, out.VerboseName, out.Identifier, out.Type, out.Active, out.Built, out.Uploaded,
		out.Machine, out.PrivacyLevel, out.HasPDF, out.HasEPUB, out.HasHTMLZip, out.Created)
	out.ID = id
	return &out, err
}

// FindVersions is FindAllVersions inside tx (no visibility applied unless asked).
func (tx *Tx) FindVersions(ctx context.Context, f VersionFilter) ([]*Version, error) {
	return findAllVersions(ctx, tx.conn, f)
}

// VersionUpdate lists the fields to change; nil fields stay as they are.
type VersionUpdate struct {
	Active       *bool
	Hidden       *bool
	Built        *bool
	Uploaded     *bool // published by the upload API
	Identifier   *string
	Type         *string
	Machine      *bool
	VerboseName  *string
	PrivacyLevel *string
	HasPDF       *bool
	HasEPUB      *bool
	HasHTMLZip   *bool
}

// UpdateVersion applies upd to the version and returns it.
func (s *Store) UpdateVersion(ctx context.Context, id int64, upd VersionUpdate) (*Version, error) {
	var out *Version
	err := s.InTx(ctx, "store.UpdateVersion", func(tx *Tx) error {
		var err error
		out, err = tx.UpdateVersion(ctx, id, upd)
		return err
	})
	return out, err
}

// UpdateVersion is UpdateVersion inside tx.
func (tx *Tx) UpdateVersion(ctx context.Context, id int64, upd VersionUpdate) (*Version, error) {
	const op = "store.UpdateVersion"
	st := &setter{}
	for _, f := range []struct {
		col string
		v   *bool
	}{{"active", upd.Active}, {"hidden", upd.Hidden}, {"built", upd.Built}, {"uploaded", upd.Uploaded}, {"machine", upd.Machine}, {"has_pdf", upd.HasPDF}, {"has_epub", upd.HasEPUB}, {"has_htmlzip", upd.HasHTMLZip}} {
		if f.v != nil {
			st.set(f.col, *f.v)
		}
	}
	for _, f := range []struct {
		col string
		v   *string
	}{{"identifier", upd.Identifier}, {"type", upd.Type}, {"verbose_name", upd.VerboseName}, {"privacy_level", upd.PrivacyLevel}} {
		if f.v != nil {
			st.set(f.col, *f.v)
		}
	}
	if len(st.cols) > 0 {
		res, err := tx.exec(ctx, `UPDATE versions SET `+strings.Join(st.cols, ", ")+` WHERE id = ?`, append(st.args, id)...)
		if err := mustAffect(op, res, err); err != nil {
			return nil, err
		}
	}
	var v Version
	err := getRow(ctx, tx.conn, versionRows, &v, `SELECT `+versionRows.cols+` FROM versions v WHERE v.id = ?`, id)
	return &v, err
}

// DeleteVersion removes a version with its builds.
func (s *Store) DeleteVersion(ctx context.Context, id int64) error {
	return s.InTx(ctx, "store.DeleteVersion", func(tx *Tx) error { return tx.DeleteVersion(ctx, id) })
}

// DeleteVersion is DeleteVersion inside tx.
func (tx *Tx) DeleteVersion(ctx context.Context, id int64) error {
	res, err := tx.exec(ctx, `DELETE FROM versions WHERE id = ?`, id)
	return mustAffect("store.DeleteVersion", res, err)
}

// VersionHasBuilds reports whether any build of the version exists.
func (tx *Tx) VersionHasBuilds(ctx context.Context, id int64) (bool, error) {
	var n int
	err := tx.get(ctx, &n, `SELECT COUNT(*) FROM builds WHERE version_id = ?`, id)
	return n > 0, err
}

// FindLastBuilds returns, per version id, the version's most recent build
// (by created, then id), for the versions that have one.
func (s *Store) FindLastBuilds(ctx context.Context, versionIDs []int64) (map[int64]*Build, error) {
	return s.findLastBuilds(ctx, "store.FindLastBuilds", versionIDs, "")
}

// FindLastSuccessfulBuilds is FindLastBuilds among the versions' builds that
// finished successfully.
func (s *Store) FindLastSuccessfulBuilds(ctx context.Context, versionIDs []int64) (map[int64]*Build, error) {
	return s.findLastBuilds(ctx, "store.FindLastSuccessfulBuilds", versionIDs, ` AND b2.state = 'finished' AND b2.success`)
}

func (s *Store) findLastBuilds(ctx context.Context, op string, versionIDs []int64, cond string) (map[int64]*Build, error) {
	out := map[int64]*Build{}
	if len(versionIDs) == 0 {
		return out, nil
	}
	var builds []*Build
	err := scanAll(ctx, s.read(), &builds, buildRows.next, `SELECT `+buildRows.cols+` FROM builds b WHERE b.id IN (
		SELECT (SELECT b2.id FROM builds b2 WHERE b2.version_id = v.id`+cond+` ORDER BY b2.created DESC, b2.id DESC LIMIT 1)
		FROM versions v WHERE v.id IN (?))`, versionIDs)
	if err != nil {
		return nil, classify(op, err)
	}
	for _, b := range builds {
		out[b.VersionID] = b
	}
	return out, nil
}

// VersionAlias is the version a machine version stands for (v3's aliases,
// the reader's version listings), nil when there is none or it is not
// active: for `stable`, the version whose slug is stableRef (the slug the
// stable rule picks); for `latest`, the version other than `latest` whose
// verbose_name is latest's identifier (the default branch), the oldest when
// several. versions are the project's internal versions, in any order.
func VersionAlias(v *Version, stableRef string, versions []*Version) *Version {
	var alias *Version
	for _, x := range versions {
		switch {
		case !v.Machine || x.ID == v.ID:
		case v.Slug == Stable && stableRef != "" && x.Slug == stableRef:
			alias = x
		case v.Slug == Latest && x.Slug != Latest && x.VerboseName == v.Identifier && (alias == nil || x.ID < alias.ID):
			alias = x
		}
	}
	if alias == nil || !alias.Active {
		return nil
	}
	return alias
}
