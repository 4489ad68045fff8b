package model

import "github.com/contactmap/contactmap/internal/buildinfo"

// CodeVersion names the code a model came from: the VCS revision the
// binary was built from (with "+dirty" for uncommitted changes), or
// "unknown" (e.g. under go test).
func CodeVersion() string { return buildinfo.Revision() }
