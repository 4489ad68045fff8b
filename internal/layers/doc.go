// Package layers holds no code: its test checks the import graph of the
// module against the project's layering (data flows one way, parse ->
// features -> train -> predict; the generic network and training code
// sits below every application that uses it; the shipped-model registry
// and the command sit on top).
package layers
