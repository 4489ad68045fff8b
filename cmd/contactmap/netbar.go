package main

import (
	"fmt"
	"sync/atomic"

	"github.com/contactmap/contactmap/internal/progress"
)

// networkBarFLOPs is the least work (floating-point operations of the
// network's passes over one target, every member of an ensemble) that
// gets a bar of its own over the network's layers (issue 57.2): about a
// second on two cores, L = 1,400 for one default SCNN, L = 450 for the
// ten-member ensemble. A run over many shorter chains keeps its one bar
// over the chains.
const networkBarFLOPs = 20e9

// networkBarUnits is the count of a network bar: percent of the work.
const networkBarUnits = 100

// networkBarBusy is set while a network bar is shown: chains predicted
// in parallel (--workers) get one bar at a time, the first long one's.
var networkBarBusy atomic.Bool

// networkBar returns the progress function of a target's network
// (predict.Config.OnNetwork): a bar "NAME (L = 5000): network" over the
// share of the work done, in percent, from the first report (the
// network's start: what comes before it, an RNA's fold for its energy
// channels, is not the network's), finished at end; nil for work under
// networkBarFLOPs, or while another target's bar is shown.
func networkBar(name string, l int, flops float64) func(done float64, end bool) {
	if flops < networkBarFLOPs || !networkBarBusy.CompareAndSwap(false, true) {
		return nil
	}
	var bar *progress.Bar // from the first report: the network's start
	shown := 0
	return func(done float64, end bool) {
		if end {
			bar.Finish()
			networkBarBusy.Store(false)
			return
		}
		if bar == nil {
			bar = progress.New(networkBarUnits, fmt.Sprintf("%s (L = %d): network", name, l))
		}
		if n := min(networkBarUnits, int(done*networkBarUnits)); n > shown {
			bar.Add(n - shown)
			shown = n
		}
	}
}

// foldBarMinLen is the shortest molecule whose MFE fold (the energy
// channels of a network) gets a bar: about a second on two cores.
const foldBarMinLen = 1000

// foldBar is the progress of the MFE fold of a network's energy
// channels (ssnet.MethodOptions.OnFold): a bar "NAME (L = N): MFE fold"
// in percent of the fold's work for a molecule of foldBarMinLen bases
// or more; nothing for a shorter one.
func foldBar(name string, l int) (report func(done, total float64), end func()) {
	if l < foldBarMinLen {
		return nil, nil
	}
	bar := progress.New(100, fmt.Sprintf("%s (L = %d): MFE fold", name, l))
	shown := 0
	return func(done, total float64) {
		if pct := int(100 * done / total); pct > shown {
			bar.Add(pct - shown)
			shown = pct
		}
	}, bar.Finish
}
