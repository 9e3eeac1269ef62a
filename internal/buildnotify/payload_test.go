package buildnotify

import "testing"

func TestRender(t *testing.T) {
	v := Variables{Event: "build:passed", BuildID: 42, ProjectName: `Say "hi"`, ProjectSlug: "hi", VersionName: "v1"}
	got := Render(`{"e": "{{ event }}", "id": {{build.id}}, "n": "{{ project.name }}", "x": "{{ unknown }}", "v": "{{version.name}} {{ version.name }}"}`, v)
	want := `{"e": "build:passed", "id": 42, "n": "Say \"hi\"", "x": "{{ unknown }}", "v": "v1 v1"}`
	if got != want {
		t.Errorf("Render = %s\nwant     %s", got, want)
	}
}

func TestCheckPayload(t *testing.T) {
	for _, c := range []struct {
		payload string
		want    string
	}{
		{DefaultPayload, ""},
		{`{"build": {{ build.id }}}`, ""},
		{`{"name": {{ project.name }}}`, MsgPayloadNotJSON},
		{`["not", "an", "object"]`, MsgPayloadNotJSON},
		{`{"a": 1`, MsgPayloadNotJSON},
	} {
		if got := CheckPayload(c.payload); got != c.want {
			t.Errorf("CheckPayload(%s) = %q, want %q", c.payload, got, c.want)
		}
	}
}
