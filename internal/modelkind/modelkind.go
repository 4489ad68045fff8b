// Package modelkind tells the project's kinds of model file apart: a
// protein contact model (package pipeline/model), an RNA secondary-structure
// model (rna/ssnet) and a recommendation model (rec). All three are scnn
// parameter files whose architecture record is JSON; Detect sniffs that
// record, and each loader returns a *WrongKindError when given a file of
// another kind, so that a caller can say which kind the file holds (and,
// in a command-line program, which command takes it):
//
//	var wk *modelkind.WrongKindError
//	if errors.As(err, &wk) {
//		// wk.Name holds a wk.Holds model; the loader wanted wk.Want
//	}
package modelkind

import (
	"encoding/json"
	"fmt"
)

// Kind is a kind of model file.
type Kind int

// The kinds of model file. Unknown is the zero value.
const (
	Unknown Kind = iota
	Protein      // protein contact model (pipeline/model)
	RNA          // RNA secondary-structure model (rna/ssnet)
	Rec          // recommendation model (rec)
)

// String names the kind as a user reads it: "protein contact model",
// "RNA secondary-structure model", "recommendation model".
func (k Kind) String() string {
	switch k {
	case Protein:
		return "protein contact model"
	case RNA:
		return "RNA secondary-structure model"
	case Rec:
		return "recommendation model"
	}
	return "unknown kind of model"
}

// Detect reports which kind of model an architecture record (the JSON
// record of the checksummed scnn container) describes, and false when it
// cannot tell (not a JSON object, or none of the kinds' marks):
//
//   - RNA: an object "spec" (the pair network) and a string "protocol";
//   - recommendation: an object "config" whose "kind" is "cosrec" or
//     "scosrec", or the arrays "user_ids"/"item_ids";
//   - protein: a "kind" of "cnn" or "scnn" with "n1d" or "blocks" at the
//     top level (format 1 and 2 records alike).
//
// Detect reads only the record's shape, not whether its values are valid:
// the kind's own loader checks those.
func Detect(record []byte) (Kind, bool) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(record, &top); err != nil || top == nil {
		return Unknown, false
	}
	isObject := func(key string) bool {
		v, ok := top[key]
		return ok && len(v) > 0 && v[0] == '{'
	}
	str := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return s
	}
	if _, ok := top["protocol"]; ok && isObject("spec") {
		return RNA, true
	}
	if isObject("config") {
		var c struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(top["config"], &c) == nil && (c.Kind == "cosrec" || c.Kind == "scosrec") {
			return Rec, true
		}
	}
	if _, ok := top["user_ids"]; ok {
		return Rec, true
	}
	if _, ok := top["item_ids"]; ok {
		return Rec, true
	}
	if k := str(top["kind"]); k == "cnn" || k == "scnn" {
		_, n1d := top["n1d"]
		_, blocks := top["blocks"]
		if n1d || blocks {
			return Protein, true
		}
	}
	return Unknown, false
}

// WrongKindError is a model file of one kind given to the loader of
// another. Name is the file (as the caller named it), Holds what it holds,
// Want what the loader reads.
type WrongKindError struct {
	Name        string
	Holds, Want Kind
}

func (e *WrongKindError) Error() string {
	return fmt.Sprintf("%s holds %s, not %s", e.Name, e.Holds.article(), e.Want.article())
}

// article is the kind's name with its indefinite article.
func (k Kind) article() string {
	if k == RNA || k == Unknown {
		return "an " + k.String()
	}
	return "a " + k.String()
}

// Check returns a *WrongKindError when record is detected as a kind other
// than want, and nil when it is want or cannot be told (the loader's own
// checks then speak).
func Check(name string, record []byte, want Kind) error {
	if k, ok := Detect(record); ok && k != want {
		return &WrongKindError{Name: name, Holds: k, Want: want}
	}
	return nil
}
