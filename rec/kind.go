package rec

import (
	"encoding/json"
	"fmt"

	"github.com/contactmap/contactmap/scnn"
)

// The networks of this package, by the names of their papers: CosRec is
// the CNN (scnn.CNN), SCosRec its symmetry-structured variant
// (scnn.SCNN).
const (
	CosRec  = scnn.CNN
	SCosRec = scnn.SCNN
)

// KindName is a network's name in this package, "cosrec" (CosRec) or
// "scosrec" (SCosRec): the name model files, checkpoints, run
// directories, flags and messages use. Another value is named by its
// string.
func KindName(k scnn.Kind) string {
	switch k {
	case CosRec:
		return "cosrec"
	case SCosRec:
		return "scosrec"
	}
	return string(k)
}

// ParseKind reads "cosrec" or "scosrec" (KindName).
func ParseKind(s string) (scnn.Kind, error) {
	for _, k := range []scnn.Kind{CosRec, SCosRec} {
		if s == KindName(k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("rec: unknown model %q (cosrec or scosrec)", s)
}

// name is the configuration's network under this package's name
// (KindName), or the name a record gave that is none (Check refuses
// it).
func (c Config) name() string {
	if c.kindName != "" {
		return c.kindName
	}
	return KindName(c.Kind)
}

// storedConfig is a Config as model files and checkpoints store it and
// messages print it: the network under this package's name. Its fields
// are Config's, in order (TestConfigJSON checks).
type storedConfig struct {
	Kind    string  `json:"kind"`
	Users   int     `json:"users"`
	Items   int     `json:"items"`
	L       int     `json:"l"`
	D       int     `json:"d"`
	Blocks  []int   `json:"blocks"`
	FC      int     `json:"fc"`
	Dropout float64 `json:"dropout"`
}

func (c Config) stored() storedConfig {
	return storedConfig{c.name(), c.Users, c.Items, c.L, c.D, c.Blocks, c.FC, c.Dropout}
}

// MarshalJSON writes the configuration as model files and checkpoints
// store it (storedConfig): "kind" is "cosrec" or "scosrec".
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.stored()) }

// UnmarshalJSON reads what MarshalJSON writes; a field the record leaves
// out keeps its value. A network name other than "cosrec" and "scosrec"
// is kept for Check to refuse, naming it.
func (c *Config) UnmarshalJSON(b []byte) error {
	s := c.stored()
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*c = Config{Users: s.Users, Items: s.Items, L: s.L, D: s.D, Blocks: s.Blocks, FC: s.FC, Dropout: s.Dropout}
	if k, err := ParseKind(s.Kind); err == nil {
		c.Kind = k
	} else {
		c.kindName = s.Kind
	}
	return nil
}

// text prints the configuration for messages, the network under this
// package's name: {Kind:scosrec Users:943 Items:1682 L:5 D:50
// Blocks:[128 256] FC:150 Dropout:0.5}.
func (c Config) text() string { return fmt.Sprintf("%+v", c.stored()) }
