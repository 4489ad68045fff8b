package loop

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Settings checks the settings of a resumed run against those its
// checkpoint records, one call of Keep or Change a setting. A setting
// asked as its zero value is not given: the run takes the checkpoint's.
// A setting the checkpoint does not record (one written before it was)
// is taken as asked, with a note that it could not be checked.
type Settings struct {
	notes []string
	errs  []string
}

// Keep checks a setting the run's results depend on: a value other than
// the checkpoint's is refused (Err), naming the setting and both values.
// name is how the user gives it ("--lr"); known says whether the
// checkpoint records it. It returns the value the run takes.
func Keep[T comparable](s *Settings, name string, asked, recorded T, known bool) T {
	var zero T
	switch {
	case asked == zero && known:
		return recorded
	case asked == zero:
	case !known:
		s.Note("%s %v: the checkpoint (an older one) does not record it; not checked", name, asked)
	case asked != recorded:
		s.Refuse("%s %v differs from the checkpoint's %v", name, asked, recorded)
	}
	return asked
}

// Change checks a setting a resumed run may change (a budget, a
// patience, a number of rounds): a value other than the checkpoint's is
// taken, with a note naming both.
func Change[T comparable](s *Settings, name string, asked, recorded T, known bool) T {
	var zero T
	switch {
	case asked == zero && known:
		return recorded
	case asked == zero:
	case known && asked != recorded:
		s.Note("%s %v: the checkpoint's run had %v; the run goes on with %v", name, asked, recorded, asked)
	}
	return asked
}

// Note adds a note (printed before the run resumes).
func (s *Settings) Note(format string, a ...any) {
	s.notes = append(s.notes, fmt.Sprintf(format, a...))
}

// Refuse adds a refusal: what differs from the checkpoint.
func (s *Settings) Refuse(format string, a ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, a...))
}

// Notes are the notes, in the order of the checks.
func (s *Settings) Notes() []string { return s.notes }

// Err is nil, or the refusals in one error that says how to go on.
func (s *Settings) Err() error {
	if len(s.errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(s.errs, "; ") + ": resume with the checkpoint's values (or leave those flags out), or start over with --force")
}

// Budget is Change for a time budget: asked 0 is not given (the
// checkpoint's), a negative one is none; recorded 0 is none. The result
// is the budget of the session, 0 or negative for none.
func Budget(s *Settings, asked, recorded time.Duration, known bool) time.Duration {
	show := func(d time.Duration) string {
		if d <= 0 {
			return "none"
		}
		return d.String()
	}
	switch {
	case asked == 0 && known:
		return recorded
	case known && max(asked, 0) != recorded:
		s.Note("--budget %s: the checkpoint's run had %s; the run goes on with %s", show(asked), show(recorded), show(asked))
	}
	return asked
}
