package usage

import (
	"errors"
	"fmt"
)

// Err marks a usage error: errors.Is(err, Err).
var Err = errors.New("usage")

// Errorf is a usage error with a message: "usage: " and fmt.Sprintf of
// format and a (%w wraps as in fmt.Errorf).
func Errorf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{Err}, a...)...)
}
