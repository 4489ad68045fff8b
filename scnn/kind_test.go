package scnn

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// ParseKind reads the two kinds and nothing else; a Kind prints and is
// stored (JSON) as its string, so the model files of every system read
// as before.
func TestKind(t *testing.T) {
	for _, k := range []Kind{CNN, SCNN} {
		if got, err := ParseKind(string(k)); got != k || err != nil || !k.Valid() {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, s := range []string{"rnn", "", "CNN", "cosrec"} {
		if _, err := ParseKind(s); !errors.Is(err, ErrKind) || Kind(s).Valid() {
			t.Errorf("ParseKind(%q): %v, want ErrKind", s, err)
		}
	}
	if s := fmt.Sprintf("%s %v %q", CNN, SCNN, SCNN); s != `cnn scnn "scnn"` {
		t.Errorf("printed %s", s)
	}
	b, err := json.Marshal(struct{ Kind Kind }{SCNN})
	if err != nil || string(b) != `{"Kind":"scnn"}` {
		t.Errorf("JSON %s (%v)", b, err)
	}
}
