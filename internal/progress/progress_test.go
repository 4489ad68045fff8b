package progress

import (
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step at each reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

// Off a terminal, a bar writes a line at each tenth of its items with the
// rate and the time left, and a last line with the time taken.
func TestPlainLines(t *testing.T) {
	var w strings.Builder
	b := newPlain(&w, 100, "predict", fakeClock(time.Second))
	for i := 0; i < 100; i++ {
		b.Add(1)
	}
	b.Finish()
	b.Finish() // once
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 9 progress lines and the last:\n%s", len(lines), w.String())
	}
	if want := "predict: 10/100 (10%), 1.0/s, about 1m30s left"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := "predict: 100/100 done in 1m41s"; lines[9] != want {
		t.Errorf("last line %q, want %q", lines[9], want)
	}
}

// A slow stage gets a line at least every LogEvery, between the tenths.
func TestPlainLinesEveryMinute(t *testing.T) {
	var w strings.Builder
	b := newPlain(&w, 1000, "fold", fakeClock(LogEvery))
	b.Add(1)
	b.Add(1)
	if n := strings.Count(w.String(), "\n"); n != 2 {
		t.Fatalf("%d lines after two items a minute apart, want 2:\n%s", n, w.String())
	}
	if !strings.Contains(w.String(), "fold: 1/1000 (0%), 1.0/min") {
		t.Errorf("no rate per minute:\n%s", w.String())
	}
}

// A nil bar and a bar without items are silent, and safe.
func TestNilAndEmpty(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Describe("x")
	b.Finish()
	var w strings.Builder
	e := newPlain(&w, 5, "empty", fakeClock(time.Second))
	e.Finish()
	if w.Len() != 0 {
		t.Errorf("an empty bar wrote %q", w.String())
	}
}

// A stage shorter than Quiet writes nothing, its last line included.
func TestShortStageSilent(t *testing.T) {
	var w strings.Builder
	b := newPlain(&w, 50, "epoch 1", fakeClock(time.Millisecond))
	for i := 0; i < 50; i++ {
		b.Add(1)
	}
	b.Finish()
	if w.Len() != 0 {
		t.Errorf("a 50 ms stage wrote %q", w.String())
	}
}

// A bar finished before its total says where it stopped, not "done".
func TestPlainStopped(t *testing.T) {
	var w strings.Builder
	b := newPlain(&w, 100, "network", fakeClock(time.Second))
	for i := 0; i < 41; i++ {
		b.Add(1)
	}
	b.Finish()
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if last := lines[len(lines)-1]; last != "network: stopped at 41/100 after 42s" {
		t.Errorf("last line %q", last)
	}
}
