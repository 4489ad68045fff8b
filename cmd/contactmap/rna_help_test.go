package main

import (
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/ssnet"
)

// rna train's --protocol help names every protocol it accepts, each
// with its description.
func TestRNAProtocolHelp(t *testing.T) {
	for _, p := range ssnet.Protocols {
		h := rnaProtocolHelp
		if !strings.HasPrefix(h, p.Name+" (") && !strings.Contains(h, ", "+p.Name+" (") && !strings.Contains(h, " or "+p.Name+" (") {
			t.Errorf("--protocol help lacks %s", p.Name)
		}
	}
}
