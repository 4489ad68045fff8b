package progress

import (
	"strings"
	"testing"
)

// A loss bar draws the mean loss since the last reset and its suffix; a
// bar not started yet counts the mean but draws nothing, and finishing it
// does nothing.
func TestLossBar(t *testing.T) {
	old := Output
	defer func() { Output = old }()
	var w strings.Builder
	Output = &w

	var b LossBar
	b.Step(10) // before Start: counted, not drawn
	b.Finish()
	b.Start(4, "epoch 1")
	b.Suffix = " (last val loss 0.5000)"
	b.Step(1)
	b.Step(3)
	if got, want := b.bar.desc, "loss 2.0000 (last val loss 0.5000)"; got != want {
		t.Errorf("after two steps: %q, want %q", got, want)
	}
	b.Reset()
	b.Step(5)
	if got, want := b.bar.desc, "loss 5.0000 (last val loss 0.5000)"; got != want {
		t.Errorf("after a reset: %q, want %q", got, want)
	}
	if b.bar.done != 3 {
		t.Errorf("%d steps drawn, want 3", b.bar.done)
	}
	b.Finish()
	if w.Len() != 0 { // a stage shorter than Quiet
		t.Errorf("a short run wrote %q", w.String())
	}
}
