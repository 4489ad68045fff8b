package rec

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/treefiles"
)

// recordOf is the tiny model's record as JSON with change applied.
func recordOf(t *testing.T, change func(r, cfg map[string]any)) (*Model, []byte) {
	t.Helper()
	m, rec := tinyRecord(t)
	js, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatal(err)
	}
	change(r, r["config"].(map[string]any))
	return m, recordFile(t, r, m.Params())
}

// A record field this build does not know (a newer build's), at the top
// or inside the configuration, is refused naming the file and the
// field, not dropped.
func TestReadModelUnknownField(t *testing.T) {
	for _, c := range []struct {
		field  string
		change func(r, cfg map[string]any)
	}{
		{"item_features", func(r, _ map[string]any) { r["item_features"] = "genres" }},
		{"heads", func(_, cfg map[string]any) { cfg["heads"] = 4 }},
	} {
		_, data := recordOf(t, c.change)
		_, _, err := ReadModel(bytes.NewReader(data), "runs/new/model.scnn")
		if !errors.Is(err, ErrUnknownField) || errors.Is(err, ErrConfig) {
			t.Fatalf("%s: %v, want ErrUnknownField", c.field, err)
		}
		for _, want := range []string{"runs/new/model.scnn", `"` + c.field + `"`, "newer contactmap"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want it to say %s", c.field, err, want)
			}
		}
	}
}

// recordKeysEver and configKeysEver are every key a model file's record
// and its configuration have carried, from the history of Record,
// Config and storedConfig (commits 77f16bc, a79fddb) and every model
// file ever committed (testdata/legacy-run): none has been dropped or
// renamed, so none is a legacy key the record has lost.
var (
	recordKeysEver = []string{"format", "config", "seed", "epoch", "data", "user_ids", "item_ids", "code_version"}
	configKeysEver = []string{"kind", "users", "items", "l", "d", "blocks", "fc", "dropout"}
)

// Every key a record has carried still loads: removing or renaming a
// field of Record or of the stored configuration would make the files
// that carry it unknown fields, and fails here.
func TestReadModelKnownKeys(t *testing.T) {
	var keys, cfgKeys []string
	_, data := recordOf(t, func(r, cfg map[string]any) {
		r["data"], r["code_version"] = "data/ml-1m", "v1.2.3"
		for k := range r {
			keys = append(keys, k)
		}
		for k := range cfg {
			cfgKeys = append(cfgKeys, k)
		}
	})
	slices.Sort(keys)
	slices.Sort(cfgKeys)
	if want := slices.Sorted(slices.Values(recordKeysEver)); !slices.Equal(keys, want) {
		t.Fatalf("the record holds the keys %v, want every record key %v", keys, want)
	}
	if want := slices.Sorted(slices.Values(configKeysEver)); !slices.Equal(cfgKeys, want) {
		t.Fatalf("the configuration holds the keys %v, want every configuration key %v", cfgKeys, want)
	}
	_, r, err := ReadModel(bytes.NewReader(data), "old.scnn")
	if err != nil {
		t.Fatalf("a record of every key: %v", err)
	}
	if r.Data != "data/ml-1m" || r.Version != "v1.2.3" || r.Config.Kind != SCosRec || r.Epoch != 2 {
		t.Errorf("the record read as %+v", r)
	}
}

// Every recommendation model file in the tree (this package's testdata,
// models/ and experiments/) loads; the other kinds' files are left to
// their loaders, checkpoints to theirs.
func TestCommittedModelsLoad(t *testing.T) {
	n := treefiles.Models(t, []string{"testdata", filepath.Join("..", "models"), filepath.Join("..", "experiments")}, CheckpointFile, func(path string) error {
		_, _, err := Load(path)
		return err
	})
	if n == 0 {
		t.Fatal("no recommendation model file found")
	}
	t.Logf("%d recommendation model files load", n)
}
