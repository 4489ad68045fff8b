package modelkind

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Records as the three loaders write them (abridged where the fields do
// not matter), and an old protein record without a format.
var records = map[string]struct {
	rec  string
	want Kind
}{
	"protein":          {`{"format":2,"kind":"scnn","config":"default","n1d":25,"n2d":3,"blocks":[[7,5,3]],"width":8}`, Protein},
	"protein format 1": {`{"kind":"cnn","config":"default","n1d":25,"n2d":3,"blocks":[[3]]}`, Protein},
	"rna":              {`{"format":1,"kind":"scnn","protocol":"default","spec":{"symmetric":true,"in_1d":5},"seed":2}`, RNA},
	"rec":              {`{"format":1,"config":{"kind":"scosrec","users":943,"items":1682},"seed":1,"user_ids":[1],"item_ids":[0,1]}`, Rec},
}

func TestDetect(t *testing.T) {
	for name, c := range records {
		k, ok := Detect([]byte(c.rec))
		if !ok || k != c.want {
			t.Errorf("%s: Detect = %v, %v; want %v", name, k, ok, c.want)
		}
	}
	for _, s := range []string{"", "null", "[]", `"x"`, `{}`, `{"kind":"cnn"}`, `{"kind":"other","n1d":3}`, `{"config":{"kind":"x"}}`, `{"epoch":3,"log":[]}`} {
		if k, ok := Detect([]byte(s)); ok {
			t.Errorf("Detect(%q) = %v, true; want false", s, k)
		}
	}
}

func TestCheck(t *testing.T) {
	rna := []byte(records["rna"].rec)
	if err := Check("m.scnn", rna, RNA); err != nil {
		t.Fatalf("right kind: %v", err)
	}
	if err := Check("m.scnn", []byte("{}"), Protein); err != nil {
		t.Fatalf("unknown record: %v", err)
	}
	err := fmt.Errorf("load: %w", Check("m.scnn", rna, Protein))
	var wk *WrongKindError
	if !errors.As(err, &wk) || wk.Name != "m.scnn" || wk.Holds != RNA || wk.Want != Protein {
		t.Fatalf("errors.As: %v, %+v", err, wk)
	}
	for _, s := range []string{"m.scnn", "an RNA secondary-structure model", "not a protein contact model"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
}

func FuzzDetect(f *testing.F) {
	for _, c := range records {
		f.Add([]byte(c.rec))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		k, ok := Detect(b)
		if ok != (k != Unknown) {
			t.Fatalf("Detect = %v, %v", k, ok)
		}
		if err := Check("f", b, Protein); (err != nil) != (ok && k != Protein) {
			t.Fatalf("Check = %v with Detect %v, %v", err, k, ok)
		}
	})
}
