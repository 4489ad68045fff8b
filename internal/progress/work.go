package progress

import (
	"fmt"
	"sync/atomic"

	"github.com/contactmap/contactmap/internal/interrupt"
)

// NetworkBarFLOPs is the least work (floating-point operations of the
// network's passes over one target, every member of an ensemble) that
// gets a bar of its own over the network's layers: about a second on two
// cores, L = 1,400 for one default SCNN, L = 450 for the ten-member
// ensemble. A run over many shorter targets keeps its one bar over the
// targets.
const NetworkBarFLOPs = 20e9

// networkBarUnits is the count of a network bar: percent of the work.
const networkBarUnits = 100

// networkBarBusy is set while a network bar is shown: targets predicted
// in parallel get one bar at a time, the first long one's.
var networkBarBusy atomic.Bool

// NetworkBar returns the progress function of a target's network (the
// OnNetwork hook of pipeline/predict and rna/predict): a bar "NAME (L =
// 5000): network" over the share of the work done, in percent, from the
// first report (the network's start: what comes before it, an RNA's fold
// for its energy channels, is not the network's), finished at end; nil
// for work under NetworkBarFLOPs, or while another target's bar is
// shown.
func NetworkBar(name string, l int, flops float64) func(done float64, end bool) {
	if flops < NetworkBarFLOPs || !networkBarBusy.CompareAndSwap(false, true) {
		return nil
	}
	var bar *Bar // from the first report: the network's start
	shown := 0
	return func(done float64, end bool) {
		if end {
			bar.Finish()
			networkBarBusy.Store(false)
			return
		}
		if bar == nil {
			bar = New(networkBarUnits, fmt.Sprintf("%s (L = %d): network", name, l))
		}
		if n := min(networkBarUnits, int(done*networkBarUnits)); n > shown {
			bar.Add(n - shown)
			shown = n
		}
	}
}

// FoldBarMinLen is the shortest molecule whose MFE fold (the energy
// channels of a network) gets a bar: about a second on two cores.
const FoldBarMinLen = 1000

// FoldBar is the progress of the MFE fold of a network's energy channels
// (the OnFold hook of rna/predict): a bar "NAME (L = N): MFE fold" in
// percent of the fold's work for a molecule of FoldBarMinLen bases or
// more; nothing for a shorter one.
func FoldBar(name string, l int) (report func(done, total float64), end func()) {
	if l < FoldBarMinLen {
		return nil, nil
	}
	bar := New(100, fmt.Sprintf("%s (L = %d): MFE fold", name, l))
	shown := 0
	return func(done, total float64) {
		if pct := int(100 * done / total); pct > shown {
			bar.Add(pct - shown)
			shown = pct
		}
	}, bar.Finish
}

// Ticker is a bar over total items as a pair of functions, one item
// done and the end (the Progress hook of rna/predict.EvalConfig and
// rna/ssnet.CompareConfig).
func Ticker(total int, name string) (tick, end func()) {
	bar := New(total, name)
	return func() { bar.Add(1) }, bar.Finish
}

// Count is the bar over the items of a run (chains, molecules, queries)
// and the note of what the run finished, for the message of an
// interrupted run (interrupt.SetFinished): Note's verbs take the items
// done, the total and Out ("%d of %d chains' outputs written to %s").
// Its zero value with Label and Note set is ready; it is not safe for
// concurrent use.
type Count struct {
	Label, Note, Out string
	// OKOnly leaves the note as it was after an item that failed (a
	// failure finishes nothing).
	OKOnly bool

	bar                *Bar
	done, calls, total int
}

// Start starts the bar over n items.
func (c *Count) Start(n int) {
	c.bar, c.total = New(n, c.Label), n
}

// Add counts an item finished, ok or not, on the bar and in the note;
// the last item finishes the bar.
func (c *Count) Add(ok bool) {
	c.bar.Add(1)
	c.calls++
	if ok {
		c.done++
	}
	if ok || !c.OKOnly {
		interrupt.SetFinished(c.Note, c.done, c.total, c.Out)
	}
	if c.calls == c.total {
		c.bar.Finish()
	}
}

// Finish finishes the bar, where a run stopped before its last item.
func (c *Count) Finish() { c.bar.Finish() }
