package progress

import (
	"bytes"
	"testing"

	"github.com/contactmap/contactmap/internal/interrupt"
)

// A target's network gets a bar when its work is large, one at a time; a
// short one keeps the run's bar over the targets alone.
func TestNetworkBar(t *testing.T) {
	if f := NetworkBar("short", 100, NetworkBarFLOPs/2); f != nil {
		t.Error("a bar for work under NetworkBarFLOPs")
	}
	f := NetworkBar("long", 5000, NetworkBarFLOPs)
	if f == nil {
		t.Fatal("no bar for work of NetworkBarFLOPs")
	}
	if g := NetworkBar("other", 5000, 2*NetworkBarFLOPs); g != nil {
		t.Error("two network bars at once")
	}
	for _, d := range []float64{0.2, 0.5, 1} {
		f(d, false)
	}
	f(-1, true)
	g := NetworkBar("next", 5000, 2*NetworkBarFLOPs)
	if g == nil {
		t.Fatal("no bar after the first one ended")
	}
	g(-1, true)
}

// A Count notes what finished after each item (OKOnly: after each that
// succeeded) and finishes its bar after the last.
func TestCount(t *testing.T) {
	defer interrupt.SetFinished("")
	var buf bytes.Buffer
	old := Output
	Output = &buf
	defer func() { Output = old }()
	for _, okOnly := range []bool{false, true} {
		interrupt.SetFinished("")
		c := Count{Label: "chains", Note: "%d of %d written to %s", Out: "out", OKOnly: okOnly}
		c.Start(2)
		c.Add(false)
		want := "x; finished: 0 of 2 written to out"
		if okOnly {
			want = "x; nothing was finished"
		}
		if got := interrupt.Line("x"); got != want {
			t.Errorf("OKOnly %v: %q, want %q", okOnly, got, want)
		}
		c.Add(true)
		if got := interrupt.Line("x"); got != "x; finished: 1 of 2 written to out" {
			t.Errorf("OKOnly %v: %q", okOnly, got)
		}
		if !c.bar.finished {
			t.Errorf("OKOnly %v: the bar is not finished after the last item", okOnly)
		}
		c.Finish()
	}
}
