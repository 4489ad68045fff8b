package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/contactmap/contactmap/pdb"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

func TestConvFLOPs(t *testing.T) {
	// Default: blocks (7,5,3) on 86 channels, (5,3) on 24, (3) on 16, then
	// 8+50+6 = 64 channels into head 3x3 -> 8 and 3x3 -> 1.
	macs := 86*8*(49+25+9) + 24*8*(25+9) + 16*8*9 + 64*8*9 + 8*1*9
	want := 2 * float64(macs) * 10 * 100 * 100
	for _, kind := range []Kind{CNN, SCNN} {
		if got := DefaultArch(kind).ConvFLOPs(10, 100); got != want {
			t.Errorf("%s default: %g FLOPs, want %g", kind, got, want)
		}
	}
	// Paper: every conv is a k x k x Cin x Cout kernel, so the count per
	// pixel is the CNN's trainable conv weights (bias excluded).
	m, err := NewModel(PaperArch(CNN), 1)
	if err != nil {
		t.Fatal(err)
	}
	w := 0
	for _, p := range m.Params() {
		if len(p.Shape) == 4 {
			w += len(p.Value)
		}
	}
	if got, want := PaperArch(CNN).ConvFLOPs(1, 7), 2*float64(w)*49; got != want {
		t.Errorf("paper: %g FLOPs, want %g", got, want)
	}
}

// separationMap: log(1+d)/log(101), d < 6, d >= 24 at valid pairs, zero
// at padding; the packed map is the dense one's upper triangle.
func TestSeparationMap(t *testing.T) {
	for _, packed := range []bool{false, true} {
		b := &Batch{L: 30, Lengths: []int{30, 20}}
		if packed {
			b.X2 = scnn.NewPacked(2, 30, 3)
		} else {
			b.X2 = scnn.New(2, 30, 30, 3)
		}
		m := separationMap(b, 3)
		for s, ls := range b.Lengths {
			for i := 0; i < 30; i++ {
				for j := 0; j < 30; j++ {
					d := j - i
					if d < 0 {
						d = -d
					}
					want := [3]float32{float32(math.Log1p(float64(d)) / math.Log(101)), 0, 0}
					if d < 6 {
						want[1] = 1
					}
					if d >= 24 {
						want[2] = 1
					}
					if i >= ls || j >= ls {
						want = [3]float32{}
					}
					for c := 0; c < 3; c++ {
						if got := m.At(s, i, j, c); got != want[c] {
							t.Fatalf("packed=%v sample %d (%d,%d) channel %d: %v, want %v", packed, s, i, j, c, got, want[c])
						}
					}
				}
			}
		}
	}
}

// A model file of another format is refused with a message naming its
// version; the current format round-trips.
func TestModelFileFormat(t *testing.T) {
	a := DefaultArch(SCNN)
	m, err := NewModel(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.scnn")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(path)
	if err != nil || back.Arch.Format != Format || back.Arch.Labels != pdb.DefaultContactDef {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	var old bytes.Buffer
	record := []byte(`{"kind":"scnn","config":"default","feature_mode":"seq"}`)
	if err := scnn.WriteParams(&old, record, m.Params()); err != nil {
		t.Fatal(err)
	}
	_, err = ReadModel(&old, "old.scnn")
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "model file format 1, this build reads format 2") {
		t.Errorf("format 1 file: %v", err)
	}
}

// ArchByName takes the two kinds and nothing else (scnn.ParseKind's
// test is scnn.TestKind), saying so in this package's words; a Kind is
// stored as its string, so model files read as before.
func TestKind(t *testing.T) {
	for _, k := range []Kind{CNN, SCNN} {
		if a, err := ArchByName(k, "default"); a.Kind != k || err != nil {
			t.Errorf("ArchByName(%q) = %q, %v", k, a.Kind, err)
		}
	}
	if _, err := ArchByName("rnn", "default"); err == nil || err.Error() != `model: kind "rnn": want cnn or scnn` {
		t.Errorf("ArchByName(rnn): %v", err)
	}
	b, err := json.Marshal(Arch{Kind: SCNN})
	if err != nil || !bytes.Contains(b, []byte(`"kind":"scnn"`)) {
		t.Errorf("Arch JSON %s (%v)", b, err)
	}
	var a Arch
	if err := json.Unmarshal([]byte(`{"kind":"cnn"}`), &a); err != nil || a.Kind != CNN {
		t.Errorf("read kind %q (%v)", a.Kind, err)
	}
}
