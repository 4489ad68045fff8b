package main

import (
	"encoding/json"
	"io"
)

// encodeJSON writes v as indented JSON (rna compare's report).
func encodeJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}
