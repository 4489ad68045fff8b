package main

import (
	"context"
	"errors"
	"testing"
)

// Issue 57.2: a target's network gets a bar when its work is large, one
// at a time; a short one keeps the run's bar over the chains alone.
func TestNetworkBar(t *testing.T) {
	if f := networkBar("short", 100, networkBarFLOPs/2); f != nil {
		t.Error("a bar for work under networkBarFLOPs")
	}
	f := networkBar("long", 5000, networkBarFLOPs)
	if f == nil {
		t.Fatal("no bar for work of networkBarFLOPs")
	}
	if g := networkBar("other", 5000, 2*networkBarFLOPs); g != nil {
		t.Error("two network bars at once")
	}
	for _, d := range []float64{0.2, 0.5, 1} {
		f(d, false)
	}
	f(-1, true)
	g := networkBar("next", 5000, 2*networkBarFLOPs)
	if g == nil {
		t.Fatal("no bar after the first one ended")
	}
	g(-1, true)
}

// membersAfter gives the share of an ensemble's work done, weighting each
// member by its work, 1 after the last layer of the last member, and
// stops with the context's error.
func TestMembersAfter(t *testing.T) {
	works := []float64{100, 300}
	var got []float64
	report := func(d float64, end bool) { got = append(got, d) }
	ctx := context.Background()
	for i, w := range works {
		after := membersAfter(ctx, report, works, i)
		for _, done := range []float64{w / 2, w} {
			if err := after(done, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []float64{0.125, 0.25, 0.625, 1}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("shares %v, want %v", got, want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := membersAfter(cancelled, nil, works, 0)(1, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}
