package pdb

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by ParseError.
var (
	ErrRecord     = errors.New("malformed record")
	ErrCoordinate = errors.New("bad coordinate")
	ErrNumber     = errors.New("bad number")
	ErrNoAtoms    = errors.New("no atoms")
	ErrCIF        = errors.New("malformed mmCIF")
	ErrNotFound   = errors.New("entry not found")
	ErrNoChain    = errors.New("chain not found")
)

// ParseError locates a problem in a structure file.
type ParseError struct {
	Path string
	Line int // 1-based; 0 if not about one line
	Err  error
}

func (e *ParseError) Error() string {
	path := e.Path
	if path == "" {
		path = "<input>"
	}
	if e.Line > 0 {
		return fmt.Sprintf("pdb: %s line %d: %v", path, e.Line, e.Err)
	}
	return fmt.Sprintf("pdb: %s: %v", path, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }
