package rec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/scnn"
)

// tinyRecord is a small model's record with consistent ids.
func tinyRecord(t testing.TB) (*Model, Record) {
	t.Helper()
	cfg := Config{Kind: SCosRec, Users: 2, Items: 3, L: 3, D: 2, Blocks: []int{2}, FC: 2, Dropout: 0.5}
	m, err := NewModel(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m, Record{Format: RecordFormat, Config: cfg, Seed: 1, Epoch: 2, UserRaw: []int64{5, 9}, ItemRaw: []int64{0, 1, 2, 3}}
}

func recordFile(t testing.TB, rec any, params []*scnn.Param) []byte {
	t.Helper()
	js, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, js, params); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A record with absurd sizes is refused before anything is allocated,
// naming the file and the field (1e9 users ran the process out of
// memory); every bound is far above CosRec's ML-1M configuration.
func TestReadModelChecksConfig(t *testing.T) {
	m, rec := tinyRecord(t)
	for _, c := range []struct {
		change func(*Record)
		want   string
	}{
		{func(r *Record) { r.Config.Users = 1e9 }, "users 1000000000 out of bounds"},
		{func(r *Record) { r.Config.Items = 1e9 }, "items 1000000000 out of bounds"},
		{func(r *Record) { r.Config.Users, r.Config.Items, r.Config.D = 1<<24, 1<<24, 1024 }, "parameters out of bounds"},
		{func(r *Record) { r.Config.D = 1e6 }, "d 1000000 out of bounds"},
		{func(r *Record) { r.Config.FC = -1 }, "fc -1 out of bounds"},
		{func(r *Record) { r.Config.L = 1e9 }, "l 1000000000 out of bounds"},
		{func(r *Record) { r.Config.Blocks = []int{2e9} }, "block 1 width 2000000000 out of bounds"},
		{func(r *Record) { r.Config.Blocks = make([]int, 1000) }, "blocks 1000 out of bounds"},
		{func(r *Record) { r.Config.Blocks = []int{2, 2} }, "need l > 4, have 3"},
		{func(r *Record) { r.Config.Dropout = 1 }, "dropout 1"},
		{func(r *Record) { r.Config.Kind, r.Config.kindName = "", "cnn" }, `kind "cnn"`}, // a record naming the kind "cnn" (rec's is "cosrec")
		{func(r *Record) { r.UserRaw = r.UserRaw[:1] }, "1 user ids for 2 users"},
		{func(r *Record) { r.ItemRaw = nil }, "0 item ids for 3 items"},
		{func(r *Record) { r.Format = 2 }, "record format 2"},
	} {
		r := rec
		r.UserRaw, r.ItemRaw = append([]int64(nil), rec.UserRaw...), append([]int64(nil), rec.ItemRaw...)
		c.change(&r)
		_, _, err := ReadModel(bytes.NewReader(recordFile(t, r, m.Params())), "runs/rec/model.scnn")
		if err == nil || !strings.Contains(err.Error(), "runs/rec/model.scnn") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error naming the file and saying %q", err, c.want)
		}
	}
	if _, _, err := ReadModel(bytes.NewReader(recordFile(t, rec, m.Params())), "ok"); err != nil {
		t.Fatalf("the tiny model: %v", err)
	}
	for _, cfg := range []Config{DefaultConfig(CosRec, 138493, 26744), DefaultConfig(SCosRec, 6040, 3706)} {
		if err := cfg.Check(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	// NewModel says what is wrong, not the whole configuration.
	_, err := NewModel(DefaultConfig(SCosRec, 1, 0), 1)
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "items 0 out of bounds") || strings.Contains(err.Error(), "{") {
		t.Errorf("no items: %v", err)
	}
}

// A protein or RNA model given to the rec loader says what it holds (it
// printed a JSON unmarshal error).
func TestLoadWrongKind(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		record string
		holds  modelkind.Kind
	}{
		{`{"format":2,"kind":"scnn","config":"default","n1d":25,"n2d":3,"blocks":[[7,5,3]],"width":8,"head":[3,3]}`, modelkind.Protein},
		{`{"format":1,"kind":"scnn","protocol":"default","spec":{"symmetric":true,"in_1d":5}}`, modelkind.RNA},
	} {
		path := filepath.Join(dir, "m.scnn")
		if err := os.WriteFile(path, recordFile(t, json.RawMessage(c.record), nil), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Load(path)
		var wk *modelkind.WrongKindError
		if !errors.As(err, &wk) || wk.Holds != c.holds || wk.Want != modelkind.Rec || wk.Name != path || !strings.Contains(err.Error(), c.holds.String()) {
			t.Errorf("%s: %v, want a WrongKindError holding %v", c.record, err, c.holds)
		}
	}
}

// A ratings file too small to split says so, counting what it holds (it
// said "bad configuration {Kind:cosrec Users:1 Items:0 ...}").
func TestTooFewRatings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ratings.dat")
	for _, c := range []struct{ data, want string }{
		{"1::7::5::100\n", path + ": 1 rating from 1 user on 1 item: too few to split into training and test"},
		{"1 7 5 100\n2 7 4 101\n3 8 4 102\n", "3 ratings from 3 users on 2 items: too few"},
	} {
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadDataset(path)
		if !errors.Is(err, ErrTooFew) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want ErrTooFew saying %q", c.data, err, c.want)
		}
	}
	// Two ratings of one user split.
	if err := os.WriteFile(path, []byte("1 7 5 100\n1 8 5 101\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := LoadDataset(path); err != nil || d.Items != 1 {
		t.Errorf("two ratings: %v", err)
	}
}

// FuzzReadModelRecord fuzzes the record inside a valid checksummed
// container holding a tiny model's parameters. Whatever loads passes
// Check, and saves and loads back to the same record and parameters;
// every error names the file.
func FuzzReadModelRecord(f *testing.F) {
	m, rec := tinyRecord(f)
	js, _ := json.Marshal(rec)
	f.Add(js)
	f.Add([]byte(`{"format":1,"config":{"kind":"cosrec","users":1000000000,"items":3,"l":3,"d":2,"blocks":[2],"fc":2},"user_ids":[1]}`))
	f.Add([]byte(`{"format":2,"kind":"scnn","config":"default","n1d":25,"blocks":[[3]]}`))
	f.Add([]byte(`{"format":1,"kind":"cnn","protocol":"default","spec":{}}`))
	params := m.Params()
	f.Fuzz(func(t *testing.T, record []byte) {
		var buf bytes.Buffer
		if scnn.WriteParams(&buf, record, params) != nil {
			return // over the container's limit
		}
		const name = "fuzz/rec.scnn"
		got, r, err := ReadModel(&buf, name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := got.Config.Check(); err != nil {
			t.Fatalf("loaded a configuration out of bounds: %v", err)
		}
		path := filepath.Join(t.TempDir(), "m.scnn")
		if err := got.Save(path, *r); err != nil {
			t.Fatal(err)
		}
		back, r2, err := Load(path)
		if err != nil {
			t.Fatalf("a loaded model does not load again: %v", err)
		}
		if !reflect.DeepEqual(r2, r) || !reflect.DeepEqual(back.Config, got.Config) {
			t.Fatalf("record changed: %+v, then %+v", r, r2)
		}
		for i, p := range got.Params() {
			if !reflect.DeepEqual(p.Value, back.Params()[i].Value) {
				t.Fatalf("param %s changed", p.Name)
			}
		}
	})
}
