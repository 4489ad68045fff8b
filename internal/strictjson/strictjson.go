// Package strictjson decodes the JSON records of model files and
// checkpoints refusing any field the target type does not have
// (json.Decoder.DisallowUnknownFields), at any depth: a record written
// by a newer build may carry a field that changes what the network
// computes, and a reader that dropped it would run the model as if it
// were absent.
package strictjson

import (
	"bytes"
	"encoding/json"
)

// Decode decodes the JSON value data into v, refusing a field v's type
// (or that of a value inside it) does not have. The error of such a
// field is encoding/json's, which names it. A type's own UnmarshalJSON
// is not looked into: decode into a type without one to check its keys.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
