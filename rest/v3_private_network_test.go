package rest

import (
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestV3ImportRefusesPrivateNetworkHosts: a repository URL whose host is
// this machine (in any form libc reads) is a 400 on repository.url naming
// the setting that allows it.
func TestV3ImportRefusesPrivateNetworkHosts(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		for _, url := range []string{"http://2130706433:5432/r.git", "https://localhost/r.git", "git://[::1]/r.git"} {
			e.check(t, v3Case{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "Y", "repository": {"url": "`+url+`", "type": "git"}}`),
				400, "import_private_network_url"})
		}
	})
}
