package store_test

import (
	"reflect"
	"testing"

	"docsd/store"
)

// TestConfigSettings: every setting the configuration reader takes comes
// from the project field of the same name.
func TestConfigSettings(t *testing.T) {
	yamlPath, requirements := "docs/.readthedocs.yaml", "docs/requirements.txt"
	p := &store.Project{
		ReadthedocsYamlPath: &yamlPath,
		ConfPyFile:          "docs/conf.py",
		DocumentationType:   "mkdocs",
		PythonInterpreter:   "python2",
		RequirementsFile:    &requirements,
		InstallProject:      true,
		UseSystemPackages:   true,
		EnablePDFBuild:      true,
		EnableEPUBBuild:     true,
	}
	got := reflect.ValueOf(p.ConfigSettings())
	project := reflect.ValueOf(p).Elem()
	for i := range got.NumField() {
		name := got.Type().Field(i).Name
		want := project.FieldByName(name)
		if !want.IsValid() {
			t.Errorf("store.Project has no field %s", name)
			continue
		}
		if got.Field(i).IsZero() || !reflect.DeepEqual(got.Field(i).Interface(), want.Interface()) {
			t.Errorf("%s = %v, want %v", name, got.Field(i).Interface(), want.Interface())
		}
	}
}
