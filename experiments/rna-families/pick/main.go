// Command pick applies the rule of experiments/rna-families/README.md,
// fixed before any result, to the validation evaluations of the
// candidates: each candidate's score is the mean of two means of F1 (exact
// pairs), over the 28 16S validation molecules and over the 1,300 VL0
// molecules, under its best decoder (greedy, mea, mea-pk: the decoder
// whose score is highest); the highest score ships as rna-scnn with that
// decoder as rna predict's default, ties to the earlier candidate (the
// lower seed). The VL0-best candidate (its best decoder's VL0 F1) is
// printed too, for --model bprna.
//
// Each candidate is NAME=16S.json,VL0.json: the JSON outputs of
// `contactmap rna eval --split validation` on the two sets (the
// network's rows are the first ones, one per decoder, named "..., DECODER";
// baseline rows are ignored).
//
//	go run ./experiments/rna-families/pick \
//	    template-seed1=experiments/rna-template/...json,experiments/rna-families/valid-vl0-template-scnn-seed1.json \
//	    families-seed1=experiments/rna-families/valid-16s-scnn-seed1.json,experiments/rna-families/valid-vl0-scnn-seed1.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type means struct {
	F1 float64 `json:"f1"`
}

type summary struct {
	Group string `json:"group"`
	N     int    `json:"molecules"`
	Exact means  `json:"exact"`
}

type row struct {
	Name      string    `json:"name"`
	Summaries []summary `json:"all_test"`
}

type eval struct {
	Set  string `json:"set"`
	Rows []row  `json:"rows"`
}

// decoders are the network's decoders, in the rule's order.
var decoders = []string{"greedy", "mea", "mea-pk"}

// f1ByDecoder reads an evaluation and returns the mean F1 over all its
// molecules of the network's row for each decoder, and the molecule count.
func f1ByDecoder(path string) (map[string]float64, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var e eval
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]float64{}
	n := 0
	for _, r := range e.Rows {
		if strings.HasPrefix(r.Name, "baseline") {
			continue
		}
		i := strings.LastIndex(r.Name, ", ")
		if i < 0 {
			continue
		}
		d := r.Name[i+2:]
		for _, s := range r.Summaries {
			if s.Group == "all" {
				if _, dup := out[d]; dup {
					return nil, 0, fmt.Errorf("%s: two network rows with decoder %s", path, d)
				}
				out[d], n = s.Exact.F1, s.N
			}
		}
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("%s: no network rows", path)
	}
	return out, n, nil
}

type candidate struct {
	name         string
	s16, vl0     map[string]float64
	n16, nvl0    int
	best         string
	score        float64
	vl0Best      string
	vl0BestScore float64
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pick NAME=16S.json,VL0.json ...")
		os.Exit(2)
	}
	var cs []candidate
	for _, arg := range os.Args[1:] {
		name, files, ok := strings.Cut(arg, "=")
		paths := strings.Split(files, ",")
		if !ok || len(paths) != 2 {
			fmt.Fprintf(os.Stderr, "pick: %q: want NAME=16S.json,VL0.json\n", arg)
			os.Exit(2)
		}
		c := candidate{name: name, score: -1, vl0BestScore: -1}
		var err error
		if c.s16, c.n16, err = f1ByDecoder(paths[0]); err == nil {
			c.vl0, c.nvl0, err = f1ByDecoder(paths[1])
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "pick: %v\n", err)
			os.Exit(1)
		}
		for _, d := range decoders {
			a, ok1 := c.s16[d]
			b, ok2 := c.vl0[d]
			if !ok1 || !ok2 {
				continue
			}
			if s := (a + b) / 2; s > c.score {
				c.best, c.score = d, s
			}
			if b > c.vl0BestScore {
				c.vl0Best, c.vl0BestScore = d, b
			}
		}
		if c.best == "" {
			fmt.Fprintf(os.Stderr, "pick: %s: no decoder evaluated on both sets\n", name)
			os.Exit(1)
		}
		cs = append(cs, c)
	}
	fmt.Println("| candidate | decoder | 16S validation F1 | VL0 F1 | rule score (mean) |")
	fmt.Println("|---|---|---:|---:|---:|")
	pick, vl0 := 0, 0
	for i, c := range cs {
		for _, d := range decoders {
			a, ok1 := c.s16[d]
			b, ok2 := c.vl0[d]
			if !ok1 || !ok2 {
				continue
			}
			mark := ""
			if d == c.best {
				mark = " (best)"
			}
			fmt.Printf("| %s | %s%s | %.4f (%d) | %.4f (%d) | %.4f |\n", c.name, d, mark, a, c.n16, b, c.nvl0, (a+b)/2)
		}
		if c.score > cs[pick].score {
			pick = i
		}
		if c.vl0BestScore > cs[vl0].vl0BestScore {
			vl0 = i
		}
	}
	p := cs[pick]
	fmt.Printf("\nPick (highest rule score, ties to the earlier candidate): %s with decoder %s, score %.4f.\n", p.name, p.best, p.score)
	v := cs[vl0]
	fmt.Printf("VL0-best: %s with decoder %s, VL0 F1 %.4f.\n", v.name, v.vl0Best, v.vl0BestScore)
}
