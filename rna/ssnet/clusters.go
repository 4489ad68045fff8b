package ssnet

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// ErrClusters is wrapped by the errors of a clusters file
// (ReadClusters) and of a protocol's cluster weights.
var ErrClusters = errors.New("clusters")

// Bounds of a clusters file: its bytes, lines, and a name's or a
// cluster's bytes.
const (
	maxClusterBytes = 64 << 20
	maxClusterLines = 1 << 22
	maxClusterField = 256
)

// ReadClusters reads a families clustering: tab-separated lines with a
// header naming the columns, of which "name" (a molecule's name, as its
// set file gives it) and "cluster" (any label) are read, as
// experiments/rna-holdout/clusters.tsv writes them. A name given twice
// with two clusters is an error.
func ReadClusters(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ssnet: %w: %w", ErrClusters, err)
	}
	defer f.Close()
	return readClusters(f, path)
}

func readClusters(r io.Reader, path string) (map[string]string, error) {
	fail := func(line int, format string, a ...any) error {
		return fmt.Errorf("ssnet: %s line %d: %w: %s", path, line, ErrClusters, fmt.Sprintf(format, a...))
	}
	lr := &io.LimitedReader{R: r, N: maxClusterBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	out := map[string]string{}
	nameCol, clusterCol, width := -1, -1, 0
	line := 0
	for sc.Scan() {
		line++
		if line > maxClusterLines {
			return nil, fail(line, "more than %d lines", maxClusterLines)
		}
		f := strings.Split(sc.Text(), "\t")
		if line == 1 {
			nameCol, clusterCol, width = slices.Index(f, "name"), slices.Index(f, "cluster"), len(f)
			if nameCol < 0 || clusterCol < 0 {
				return nil, fail(line, "a header with the columns name and cluster, have %q", sc.Text())
			}
			continue
		}
		if len(f) != width {
			return nil, fail(line, "%d fields, the header has %d", len(f), width)
		}
		name, c := f[nameCol], f[clusterCol]
		if name == "" || c == "" {
			return nil, fail(line, "an empty name or cluster")
		}
		if len(name) > maxClusterField || len(c) > maxClusterField {
			return nil, fail(line, "a name or cluster of more than %d bytes", maxClusterField)
		}
		if old, ok := out[name]; ok && old != c {
			return nil, fail(line, "%s in cluster %s and %s", name, old, c)
		}
		out[name] = c
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ssnet: %s line %d: %w: %w", path, line+1, ErrClusters, err)
	}
	if lr.N <= 0 {
		return nil, fail(line, "more than %d bytes", maxClusterBytes)
	}
	if line == 0 {
		return nil, fail(1, "empty file")
	}
	return out, nil
}

// weighTraining returns a copy of the training molecules as p draws them:
// with ClusterWeights each molecule's Weight is 1/sqrt(n), n the
// molecules of set in its cluster (clusters; a molecule it does not
// name is a cluster of its own); with PoolFiles every molecule in one
// group. It returns too the checksum of the clusters as used (a resumed
// run must draw the same) and a note of the molecules clusters did not
// name.
func weighTraining(set []Molecule, p Protocol, clusters map[string]string, file string) (out []Molecule, sum, note string, err error) {
	out = slices.Clone(set)
	if p.PoolFiles {
		for k := range out {
			out[k].Group = 0
		}
	}
	label := make([]string, len(out))
	for k := range out {
		label[k] = "\x00" + out[k].Name // its own cluster
	}
	missing := len(out)
	if p.ClusterWeights {
		if clusters == nil {
			return nil, "", "", fmt.Errorf("ssnet: protocol %s: %w: weighs the training molecules by cluster, and no clustering is given", p.Name, ErrClusters)
		}
		missing = 0
		size := map[string]int{}
		for k := range out {
			if c, ok := clusters[out[k].Name]; ok {
				label[k] = c
			} else {
				missing++
			}
			size[label[k]]++
		}
		h := sha256.New()
		for k := range out {
			out[k].Weight = 1 / math.Sqrt(float64(size[label[k]]))
			fmt.Fprintf(h, "%s\t%s\n", out[k].Name, label[k])
		}
		sum = hex.EncodeToString(h.Sum(nil)[:16])
		if missing == len(out) {
			return nil, "", "", fmt.Errorf("ssnet: protocol %s: %w: %s names none of the %d training molecules", p.Name, ErrClusters, file, len(out))
		}
	}
	if p.PoolFiles {
		sum += "+pooled"
	}
	// The share of the draws of each cluster: a group uniformly, then a
	// molecule by weight (uniformly without weights).
	groupW, groups := map[int]float64{}, map[int]bool{}
	for k := range out {
		groupW[out[k].Group] += cmp.Or(out[k].Weight, 1)
		groups[out[k].Group] = true
	}
	share := map[string]float64{}
	for k := range out {
		share[label[k]] += cmp.Or(out[k].Weight, 1) / groupW[out[k].Group] / float64(len(groups))
	}
	top, topN := "", 0
	for c, v := range share {
		if top == "" || v > share[top] || v == share[top] && c < top {
			top = c
		}
	}
	for k := range out {
		if label[k] == top {
			topN++
		}
	}
	how := "a file drawn uniformly, then a molecule by its weight 1/sqrt(cluster size)"
	if p.PoolFiles {
		how = "the files pooled, a molecule by its weight 1/sqrt(cluster size)"
	}
	note = fmt.Sprintf("training draws: %s; %d training molecules in %d clusters of %s", how, len(out), len(share), file)
	if missing > 0 {
		note += fmt.Sprintf(" (%d not named there, each a cluster of its own)", missing)
	}
	note += fmt.Sprintf("; the most drawn cluster (%d molecules) gets %.1f%% of the draws", topN, 100*share[top])
	return out, sum, note, nil
}
