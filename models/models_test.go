package models

import (
	"strings"
	"testing"
)

// The embedded models load and record their training lengths.
func TestShippedModels(t *testing.T) {
	for name := range Shipped {
		m, from, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Arch.Kind != name || !strings.Contains(from, "shipped") {
			t.Errorf("%s: kind %s from %s", name, m.Arch.Kind, from)
		}
		if m.Arch.MinLen == 0 || m.Arch.MaxLen == 0 {
			t.Errorf("%s: training lengths not recorded", name)
		}
	}
	if _, _, err := Load("no-such-model.scnn"); err == nil || !strings.Contains(err.Error(), "not a shipped model") {
		t.Errorf("missing file: %v", err)
	}
}
