package progress

import "fmt"

// LossBar is a bar of training steps that shows the mean loss since the
// last Reset (an epoch, a validation) and a suffix: the hook a training
// loop's step callback feeds (Step), with Start at the start of an epoch
// or a run and Finish at its end. Its zero value has no bar yet; it is
// not safe for concurrent use.
type LossBar struct {
	bar    *Bar
	sum    float64
	n      int
	Suffix string // drawn after the mean loss, e.g. the last validation's
}

// Start replaces the bar by one of total steps and resets the mean.
func (b *LossBar) Start(total int, desc string) {
	b.bar = New(total, desc)
	b.Reset()
}

// Reset starts a new mean.
func (b *LossBar) Reset() { b.sum, b.n = 0, 0 }

// Step counts one step of the given loss (drawn once Start made a bar).
func (b *LossBar) Step(loss float64) {
	b.sum += loss
	b.n++
	if b.bar == nil {
		return
	}
	b.bar.Describe(fmt.Sprintf("loss %.4f%s", b.sum/float64(b.n), b.Suffix))
	b.bar.Add(1)
}

// Finish completes the bar; without one (no Start: a validation before
// any step, at a budget's stop) it does nothing.
func (b *LossBar) Finish() {
	if b.bar != nil {
		b.bar.Finish()
	}
}
