package ssnet

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
)

// foldProbes are the lengths of the pseudo-random sequences whose folds
// make FoldFingerprint.
var foldProbes = []int{30, 60, 100, 150}

var (
	fingerprintOnce sync.Once
	fingerprint     string
)

// FoldFingerprint identifies the results of rna/fold's default folding
// (Turner 2004, RNAfold's defaults): a hash of the default parameters'
// options and of the MFE structures, MFE energies, ensemble free
// energies (to 1e-6 kcal/mol) and centroid structures of a few fixed
// pseudo-random sequences (30 to 150 nt; tens of milliseconds, once per
// process). A change of the energy parameters or of the folding code
// that changes any of these results changes it; one that changes none
// of them goes unnoticed, which the tests of a seed (TestFoldSeed)
// guard against on real molecules.
func FoldFingerprint() string {
	fingerprintOnce.Do(func() { fingerprint = fingerprintOf(fold.DefaultParams()) })
	return fingerprint
}

var fingerprints sync.Map // temperature (float64) -> fingerprintOf at it

// fingerprintAt is FoldFingerprint of the default parameters at
// temperature t (degrees Celsius), computed once per temperature.
func fingerprintAt(t float64) string {
	if v, ok := fingerprints.Load(t); ok {
		return v.(string)
	}
	v, _ := fingerprints.LoadOrStore(t, fingerprintOf(fold.DefaultParams().WithTemperature(t)))
	return v.(string)
}

// fingerprintOf is FoldFingerprint's hash of folding with p.
func fingerprintOf(p *fold.Params) string {
	h := sha256.New()
	fmt.Fprintf(h, "T=%g d=%d noLP=%t span=%d\n", p.Temperature(), p.Dangles(), p.NoLP(), p.MaxSpan())
	x := uint64(0x9e3779b97f4a7c15)
	for _, n := range foldProbes {
		b := make([]byte, n)
		for i := range b {
			x = x*6364136223846793005 + 1442695040888963407
			b[i] = "ACGU"[x>>62]
		}
		seq := string(b)
		e, err := p.Partition(seq, 1)
		if err != nil {
			panic("ssnet: fold fingerprint: " + err.Error()) // a valid sequence of a few hundred bases
		}
		c, _ := e.Centroid()
		fmt.Fprintf(h, "%s\n%v %.2f %.6f\n%v\n", seq, e.MFE.Partner, e.MFEEnergy, e.FreeEnergy, c.Partner)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// DefaultCentroidCache is the centroid cache file in the user's cache
// directory, beside DefaultMFECache's, or "" where there is none.
func DefaultCentroidCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "contactmap", "rna-centroid.tsv.gz")
}

// A FoldSeed is a read-only set of MFE, centroid and MEA structures shipped
// beside a data set (data/rna/test/folds.tsv.gz, built by make
// rna-fold-cache), the seed of the user's caches (MFECache.WithSeed), so
// that a fresh machine evaluates the bundled molecules without folding
// them. The file is gzip-compressed text: a first line
// "fingerprint<TAB>F", F the FoldFingerprint of the folds, then lines
// "mfe<TAB>KEY<TAB>PAIRS", "centroid<TAB>KEY<TAB>PAIRS" and
// "mea<TAB>KEY<TAB>PAIRS", KEY and PAIRS as in an MFE or centroid cache
// file.
type FoldSeed struct {
	// Fingerprint is the FoldFingerprint the structures were folded
	// under.
	Fingerprint string
	// Stale is true when Fingerprint is not today's FoldFingerprint:
	// MFE and Centroid are then empty.
	Stale bool
	// MFE, Centroid and MEA hold the structures (empty, never nil, when
	// the file does not exist or is stale; MEA empty in a seed written
	// before it held MEA structures).
	MFE, Centroid, MEA *MFECache
}

// NewFoldSeed is an empty seed of today's fingerprint.
func NewFoldSeed() *FoldSeed {
	return &FoldSeed{Fingerprint: FoldFingerprint(), MFE: NewMFECache(), Centroid: NewCentroidCache(), MEA: NewMEACache()}
}

// ReadFoldSeed reads a seed file; a file that does not exist gives an
// empty seed, one of another fingerprint an empty seed marked Stale.
func ReadFoldSeed(path string) (*FoldSeed, error) {
	s := NewFoldSeed()
	var stale *FoldSeed // set when the first line names another fingerprint
	header := false     // the first line was read
	missing, err := scanGzipLines(path, "fold seed", 1<<22, func(ln int, line string) error {
		if ln == 1 {
			fp, ok := strings.CutPrefix(line, "fingerprint\t")
			if !ok || fp == "" {
				return fmt.Errorf("ssnet: fold seed %s line 1: want fingerprint<TAB>F", path)
			}
			if fp != s.Fingerprint {
				stale = &FoldSeed{Fingerprint: fp, Stale: true, MFE: NewMFECache(), Centroid: NewCentroidCache(), MEA: NewMEACache()}
				return errStopScan
			}
			header = true
			return nil
		}
		kind, rest, _ := strings.Cut(line, "\t")
		var c *MFECache
		switch kind {
		case "mfe":
			c = s.MFE
		case "centroid":
			c = s.Centroid
		case "mea":
			c = s.MEA
		default:
			return fmt.Errorf("ssnet: fold seed %s line %d: want mfe, centroid or mea, a tab, KEY<TAB>PAIRS", path, ln)
		}
		key, pairs, err := parseCacheLine(rest)
		if err != nil {
			return fmt.Errorf("ssnet: fold seed %s line %d: %w", path, ln, err)
		}
		c.m[key] = pairs
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case missing:
		return s, nil
	case stale != nil:
		return stale, nil
	case !header:
		return nil, fmt.Errorf("ssnet: fold seed %s: empty file, want a first line fingerprint<TAB>F", path)
	}
	return s, nil
}

// Write saves the seed atomically: its fingerprint, then its MFE, its
// centroid and its MEA structures, each sorted by key.
func (s *FoldSeed) Write(path string) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(zw)
		fmt.Fprintf(bw, "fingerprint\t%s\n", s.Fingerprint)
		s.MFE.writeLines(bw, "mfe\t")
		s.Centroid.writeLines(bw, "centroid\t")
		s.MEA.writeLines(bw, "mea\t")
		if err := bw.Flush(); err != nil {
			return err
		}
		return zw.Close()
	})
}

// BuildFoldSeed folds every molecule of set (one partition function
// each, which gives its MFE structure, its centroid and its MEA
// structure) on parallel
// goroutines and returns the seed of their structures. progress (may be
// nil) is called after each molecule. When ctx is cancelled no further
// molecule is started and it returns ctx's error.
func BuildFoldSeed(ctx context.Context, set []Molecule, parallel int, progress func()) (*FoldSeed, error) {
	s := NewFoldSeed()
	err := forEachMolecule(len(set), max(parallel, 1), progress, func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := &set[i]
		e, err := fold.DefaultParams().PartitionContext(ctx, m.Seq, 1)
		if err != nil {
			return fmt.Errorf("ssnet: %s: %w", m.Name, err)
		}
		c, _ := e.Centroid()
		mea, _, err := e.MEA(1)
		if err != nil {
			return fmt.Errorf("ssnet: %s: %w", m.Name, err)
		}
		s.MFE.put(mfeKey(m.Seq), e.MFE)
		s.Centroid.put(centroidKey(m.Seq), c)
		s.MEA.put(meaKey(m.Seq), mea)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// put caches structure st under key.
func (c *MFECache) put(key string, st *rna.Structure) {
	var pairs []int32
	for _, p := range st.Pairs() {
		pairs = append(pairs, int32(p[0]), int32(p[1]))
	}
	c.mu.Lock()
	c.m[key], c.changed = pairs, true
	c.mu.Unlock()
}

// CachedCentroidPredictor is CentroidPredictor through cache (a centroid
// cache, NewCentroidCache or ReadCentroidCache, with its seed): a
// molecule whose centroid the cache holds is not folded; the others are
// folded and cached.
func CachedCentroidPredictor(cache *MFECache) Predictor {
	if cache.kind != kindCentroid {
		panic("ssnet: CachedCentroidPredictor: not a centroid cache")
	}
	return cachedStructures(cache)
}

// CachedMEAPredictor is the mea-pf method's structure through cache (an
// MEA cache, NewMEACache, with its seed): a molecule whose MEA structure
// the cache holds is not folded; the others are folded and cached.
func CachedMEAPredictor(cache *MFECache) Predictor {
	if cache.kind != kindMEA {
		panic("ssnet: CachedMEAPredictor: not an MEA cache")
	}
	return cachedStructures(cache)
}

// cachedStructures predicts a molecule's structure of the cache's kind
// through the cache.
func cachedStructures(cache *MFECache) Predictor {
	return func(mol *Molecule) (*rna.Structure, error) {
		p, err := cache.Partners(mol.Seq, 0)
		if err != nil {
			return nil, err
		}
		return partnersStructure(mol.Name, mol.Seq, p)
	}
}

// AttachSeededMFE attaches the MFE partners the cache (or its seed)
// holds to the molecules of set without one, folding nothing, and
// returns how many molecules still have none.
func AttachSeededMFE(set []Molecule, cache *MFECache) int {
	missing := 0
	for k := range set {
		if set[k].MFE != nil {
			continue
		}
		if !cache.has(set[k].Seq) {
			missing++
			continue
		}
		p, err := cache.Partners(set[k].Seq, 1)
		if err != nil {
			missing++ // AttachMFE will fold it and say what is wrong
			continue
		}
		set[k].MFE = p
	}
	return missing
}

// has reports whether the cache or its seed holds seq's structure.
func (c *MFECache) has(seq string) bool {
	key := c.key(seq)
	c.mu.Lock()
	_, ok := c.m[key]
	seed := c.seed
	c.mu.Unlock()
	if !ok && seed != nil {
		seed.mu.Lock()
		_, ok = seed.m[key]
		seed.mu.Unlock()
	}
	return ok
}
