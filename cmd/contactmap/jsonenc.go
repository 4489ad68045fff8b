package main

import (
	"encoding/json"
	"io"
	"strconv"
)

// encodeJSON writes v as indented JSON (rna compare's report).
func encodeJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// thousands writes n with commas between groups of three digits (2,741).
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
