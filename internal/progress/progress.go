// Package progress shows a progress bar on a terminal and nothing
// otherwise (pipes, files, cluster job logs).
package progress

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar counts completed items of a long stage.
type Bar struct{ pb *progressbar.ProgressBar }

// New returns a bar over total items, drawn on standard error when it is a
// terminal.
func New(total int, desc string) *Bar {
	var w io.Writer = io.Discard
	if term.IsTerminal(int(os.Stderr.Fd())) {
		w = os.Stderr
	}
	return &Bar{pb: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)}
}

// Add advances the bar by n.
func (b *Bar) Add(n int) { b.pb.Add(n) }

// Describe changes the text before the bar.
func (b *Bar) Describe(s string) { b.pb.Describe(s) }

// Finish completes and clears the bar.
func (b *Bar) Finish() { b.pb.Finish() }
