package rec

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// The networks are scnn's two kinds under this package's names, in
// flags and messages (KindName, ParseKind) and in model files.
func TestKindNames(t *testing.T) {
	for k, name := range map[scnn.Kind]string{CosRec: "cosrec", SCosRec: "scosrec"} {
		if got := KindName(k); got != name {
			t.Errorf("KindName(%s) = %q, want %q", k, got, name)
		}
		if got, err := ParseKind(name); got != k || err != nil {
			t.Errorf("ParseKind(%q) = %s, %v", name, got, err)
		}
	}
	for _, s := range []string{"cnn", "scnn", "CosRec", ""} {
		if _, err := ParseKind(s); err == nil || err.Error() != fmt.Sprintf("rec: unknown model %q (cosrec or scosrec)", s) {
			t.Errorf("ParseKind(%q): %v", s, err)
		}
	}
}

// oldConfig is Config as it was while rec had a Kind type of its own,
// the string "cosrec" or "scosrec": the JSON and the message text of a
// configuration are those it gave.
type oldConfig struct {
	Kind    string  `json:"kind"`
	Users   int     `json:"users"`
	Items   int     `json:"items"`
	L       int     `json:"l"`
	D       int     `json:"d"`
	Blocks  []int   `json:"blocks"`
	FC      int     `json:"fc"`
	Dropout float64 `json:"dropout"`
}

// A configuration is stored and printed as before the shared kind type:
// the network under rec's name, the fields in order; what a model file
// stores reads back to the same configuration; a record naming another
// network is refused by Check, naming it.
func TestConfigJSON(t *testing.T) {
	for _, c := range []Config{DefaultConfig(CosRec, 943, 1682), DefaultConfig(SCosRec, 6040, 3706), {Kind: SCosRec, Blocks: []int{}}, {}} {
		old := oldConfig{KindName(c.Kind), c.Users, c.Items, c.L, c.D, c.Blocks, c.FC, c.Dropout}
		got, err := json.Marshal(c)
		want, _ := json.Marshal(old)
		if err != nil || string(got) != string(want) {
			t.Errorf("JSON %s (%v), want %s", got, err, want)
		}
		if got, want := c.text(), fmt.Sprintf("%+v", old); got != want {
			t.Errorf("text %s, want %s", got, want)
		}
		var back Config
		if err := json.Unmarshal(got, &back); err != nil || (c.Kind.Valid() && !reflect.DeepEqual(back, c)) {
			t.Errorf("%s read back as %+v (%v)", got, back, err)
		}
	}
	for _, name := range []string{"cnn", "scnn", "rnn", ""} {
		var c Config
		raw := `{"kind":"` + name + `","users":2,"items":3,"l":3,"d":2,"blocks":[2],"fc":2,"dropout":0.5}`
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatal(err)
		}
		err := c.Check()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), fmt.Sprintf("kind %q (want cosrec or scosrec)", name)) {
			t.Errorf("kind %q: %v", name, err)
		}
		if b, _ := json.Marshal(c); string(b) != raw {
			t.Errorf("kind %q written back as %s", name, b)
		}
	}
	// The literal record of a configuration, and its text.
	c0 := DefaultConfig(SCosRec, 943, 1682)
	if b, _ := json.Marshal(c0); string(b) != `{"kind":"scosrec","users":943,"items":1682,"l":5,"d":50,"blocks":[128,256],"fc":150,"dropout":0.5}` {
		t.Errorf("JSON %s", b)
	}
	if s := c0.text(); s != "{Kind:scosrec Users:943 Items:1682 L:5 D:50 Blocks:[128 256] FC:150 Dropout:0.5}" {
		t.Errorf("text %s", s)
	}
	// storedConfig has Config's fields, in order.
	ct, st := reflect.TypeFor[Config](), reflect.TypeFor[storedConfig]()
	var exported []string
	for i := range ct.NumField() {
		if f := ct.Field(i); f.IsExported() {
			exported = append(exported, f.Name)
		}
	}
	for i, name := range exported {
		if i >= st.NumField() || st.Field(i).Name != name || name != "Kind" && st.Field(i).Type != ct.Field(i).Type {
			t.Errorf("storedConfig field %d is not Config's %s", i, name)
		}
	}
	if st.NumField() != len(exported) {
		t.Errorf("storedConfig has %d fields, Config %d", st.NumField(), len(exported))
	}
	// A record field absent keeps the value decoded into, as it did.
	c := DefaultConfig(SCosRec, 5, 6)
	if err := json.Unmarshal([]byte(`{"users":7}`), &c); err != nil || c.Kind != SCosRec || c.Users != 7 || c.Items != 6 {
		t.Errorf("partial record: %+v (%v)", c, err)
	}
}
