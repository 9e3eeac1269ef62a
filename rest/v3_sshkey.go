package rest

import (
	"encoding/json"
	"net/http"

	"docsd/graph"
	"docsd/internal/errs"
)

// The project's SSH deploy key (`/api/v3/projects/{p}/ssh-key/`): GET
// shows its public part and the project's known hosts, POST makes it
// (`{"rotate": true}` replaces one), DELETE removes it. Maintainers only;
// the private key is never part of an answer.

// v3SSHKeyRoute is the route of the project's deploy key.
func (s *Server) v3SSHKeyRoute() *v3Route {
	type h = map[string]func(q *v3Req)
	return &v3Route{path: "/api/v3/projects/{project:[^/.]+}/ssh-key/", name: "SSH Key",
		desc: "The project's SSH deploy key; POST makes one (rotate replaces it), DELETE removes it.", rule: v3Maintainers,
		methods: h{"GET": s.v3SSHKeyDetail, "POST": s.v3SSHKeyCreate, "DELETE": s.v3SSHKeyDelete}}
}

// v3SSHKeyFields are the Project fields the answer shows.
const v3SSHKeyFields = `sshKey { type publicKey fingerprint created } sshKnownHosts { host keyType fingerprint learned }`

// v3SSHKeyProject is a Project read with v3SSHKeyFields.
type v3SSHKeyProject struct {
	SSHKey *struct {
		Type, PublicKey, Fingerprint, Created string
	}
	SSHKnownHosts []struct {
		Host, KeyType, Fingerprint string
		Learned                    bool
	}
}

// writeSSHKey answers status with the key op reads: the operation's one
// top-level field `r` is the project, or (mutations) a payload whose
// `project` is. A project without a key is 404.
func (q *v3Req) writeSSHKey(status int, op string, vars map[string]any) {
	resp := q.s.exec.Run(q.ctx, op, vars)
	if err := graph.ResponseError(resp); err != nil {
		q.fail(err)
		return
	}
	var a struct {
		R *struct {
			v3SSHKeyProject
			Project *v3SSHKeyProject
		}
	}
	if err := json.Unmarshal(resp.Data, &a); err != nil {
		q.fail(errs.Wrap(errs.Internal, "rest.v3", err))
		return
	}
	var p *v3SSHKeyProject
	if a.R != nil {
		p = &a.R.v3SSHKeyProject
		if a.R.Project != nil {
			p = a.R.Project
		}
	}
	if p == nil || p.SSHKey == nil {
		writeNotFound(q.w, q.r)
		return
	}
	k := p.SSHKey
	hosts := make([]map[string]any, 0, len(p.SSHKnownHosts))
	for _, h := range p.SSHKnownHosts {
		hosts = append(hosts, map[string]any{"fingerprint": h.Fingerprint, "host": h.Host, "key_type": h.KeyType, "learned": h.Learned})
	}
	links := q.ctxFor(q.project()).links + "/api/v3/projects/" + q.project() + "/"
	writeJSON(q.w, q.r, status, map[string]any{
		"_links":  map[string]any{"_self": links + "ssh-key/", "project": links},
		"created": k.Created, "fingerprint": k.Fingerprint, "known_hosts": hosts, "public_key": k.PublicKey, "type": k.Type,
	})
}

func (s *Server) v3SSHKeyDetail(q *v3Req) {
	q.writeSSHKey(http.StatusOK, `query($slug: String!) { r: project(slug: $slug) { `+v3SSHKeyFields+` } }`, map[string]any{"slug": q.project()})
}

func (s *Server) v3SSHKeyCreate(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	in := v3NewInput(body)
	in.boolean("rotate", "rotate")
	if len(in.failed) > 0 {
		q.fail(in.failed.Err("rest.v3"))
		return
	}
	in.input["slug"] = q.project()
	q.writeSSHKey(http.StatusCreated, `mutation($input: CreateSshKeyInput!) { r: createSshKey(input: $input) { `+
		graph.PayloadErrors+` project { `+v3SSHKeyFields+` } } }`, map[string]any{"input": in.input})
}

func (s *Server) v3SSHKeyDelete(q *v3Req) {
	q.remove(`mutation($input: DeleteSshKeyInput!) { deleteSshKey(input: $input) { project { slug } `+graph.PayloadErrors+` } }`,
		map[string]any{"slug": q.project()})
}
