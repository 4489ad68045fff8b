package main

import "testing"

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
