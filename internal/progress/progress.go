// Package progress reports the progress of a long stage: a bar with the
// count, rate and time left on a terminal, and otherwise (pipes, files,
// cluster job logs) a plain line every tenth of the items and at least
// every minute once the stage has run for Quiet, so that a log shows how
// far a run got and how fast, and a short stage stays silent. A LossBar
// is the bar of a training loop, with the mean loss since the epoch or
// the last validation; a Count, the bar over a run's items with the note
// of what an interrupted run finished (internal/interrupt); NetworkBar
// and FoldBar, the bars of one long target's network and MFE fold.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar counts completed items of a long stage. Its methods are safe on a
// nil *Bar (they do nothing) and for concurrent use.
type Bar struct {
	pb *progressbar.ProgressBar // on a terminal

	// plain lines, elsewhere
	mu       sync.Mutex
	w        io.Writer
	desc     string
	total    int
	done     int
	start    time.Time
	last     time.Time // of the last line
	nextLine int       // the count at which the next line is written
	step     int
	finished bool
	printed  bool // a progress line was written
	now      func() time.Time
}

// Quiet is how long a stage runs before its plain lines start: a stage
// shorter than that writes nothing.
const Quiet = 2 * time.Second

// LogEvery is the longest time between two plain lines while items
// complete.
const LogEvery = time.Minute

// Output is where bars are drawn: standard error unless a test sets it.
var Output io.Writer = os.Stderr

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// New returns a bar over total items: drawn on standard error when it is
// a terminal, else written there as plain lines.
func New(total int, desc string) *Bar {
	if isTerminal(Output) {
		return &Bar{pb: progressbar.NewOptions(total,
			progressbar.OptionSetWriter(Output),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100_000_000),
			progressbar.OptionClearOnFinish(),
		)}
	}
	return newPlain(Output, total, desc, time.Now)
}

func newPlain(w io.Writer, total int, desc string, now func() time.Time) *Bar {
	t := now()
	step := max(1, total/10)
	return &Bar{w: w, desc: desc, total: total, start: t, last: t, step: step, nextLine: step, now: now}
}

// Add advances the bar by n.
func (b *Bar) Add(n int) {
	if b == nil {
		return
	}
	if b.pb != nil {
		b.pb.Add(n)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	t := b.now()
	if b.done >= b.nextLine || t.Sub(b.last) >= LogEvery {
		for b.nextLine <= b.done {
			b.nextLine += b.step
		}
		if b.done < b.total && t.Sub(b.start) >= Quiet { // the last line is Finish's
			b.line(t)
		}
	}
}

// line writes "desc: 30/100 (30%), 2.5/s, about 28s left".
func (b *Bar) line(t time.Time) {
	b.last, b.printed = t, true
	el := t.Sub(b.start).Seconds()
	rate := ""
	left := ""
	if el > 0 && b.done > 0 {
		r := float64(b.done) / el
		rate = ", " + perSecond(r)
		if b.total > b.done {
			left = fmt.Sprintf(", about %s left", roundDuration(time.Duration(float64(b.total-b.done)/r*float64(time.Second))))
		}
	}
	pct := ""
	if b.total > 0 {
		pct = fmt.Sprintf(" (%d%%)", 100*b.done/b.total)
	}
	fmt.Fprintf(b.w, "%s: %d/%d%s%s%s\n", b.desc, b.done, b.total, pct, rate, left)
}

func perSecond(r float64) string {
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f/s", r)
	case r >= 1:
		return fmt.Sprintf("%.1f/s", r)
	case r*60 >= 1:
		return fmt.Sprintf("%.1f/min", r*60)
	}
	return fmt.Sprintf("%.2f/h", r*3600)
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute)
	case d >= time.Minute:
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// Describe changes the text before the bar.
func (b *Bar) Describe(s string) {
	if b == nil {
		return
	}
	if b.pb != nil {
		b.pb.Describe(s)
		return
	}
	b.mu.Lock()
	b.desc = s
	b.mu.Unlock()
}

// Finish completes and clears the bar; a plain bar writes its last line
// (the count and the time taken, or where it stopped) once, if any item
// was counted.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	if b.pb != nil {
		b.pb.Finish()
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.now()
	if b.finished || b.done == 0 || !b.printed && t.Sub(b.start) < Quiet {
		b.finished = true
		return
	}
	b.finished = true
	if b.done < b.total { // cut short: an interrupt, a failure
		fmt.Fprintf(b.w, "%s: stopped at %d/%d after %s\n", b.desc, b.done, b.total, roundDuration(t.Sub(b.start)))
		return
	}
	fmt.Fprintf(b.w, "%s: %d/%d done in %s\n", b.desc, b.done, b.total, roundDuration(t.Sub(b.start)))
}
