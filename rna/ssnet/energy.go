package ssnet

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
)

// EnergyChannels is the width of the thermodynamic part of a network's
// 2D input. For bases i and j of the query (i != j):
//
//	0: 1 where the minimum free energy structure (Turner 2004 with
//	   RNAfold's defaults, package rna/fold) pairs i with j
//	1: 1 where i and j could pair at all: AU, CG or GU with at least
//	   3 bases between them (the pairs the energy model allows)
//
// Both are symmetric in i and j. They give a network the evidence that
// folds any family, the floor of the MFE baseline, where
// the homology template (TemplateChannels) gives none.
const EnergyChannels = 2

// Inputs2D names the 2D input channels of a network: the homology
// template's (TemplateChannels, first when present), the energy
// model's (EnergyChannels, after them) and the ensemble's
// (EnsembleChannels, last), followed by Temps further ensemble channels
// (the ensemble at the temperatures of Record.EnsembleTemps, in their
// order).
type Inputs2D struct {
	Template bool
	Energy   bool
	Ensemble bool
	Temps    int
}

// Width is the number of 2D input channels.
func (c Inputs2D) Width() int {
	w := 0
	if c.Template {
		w += TemplateChannels
	}
	if c.Energy {
		w += EnergyChannels
	}
	if c.Ensemble {
		w += EnsembleChannels * (1 + c.Temps)
	}
	return w
}

// ensembleOffset is the offset of the 37 C ensemble channel in a pixel
// of Width channels; the further ones follow it.
func (c Inputs2D) ensembleOffset() int { return c.Width() - EnsembleChannels*(1+c.Temps) }

// valid reports whether the channels can be told from their width
// (inputs2DOf): the energy and ensemble channels together need the
// template's, since their width alone is the template's.
func (c Inputs2D) valid() bool {
	return !(c.Energy && c.Ensemble && !c.Template) && c.Temps >= 0 && (c.Temps == 0 || c.Ensemble)
}

// inputs2DWith reads the channels from a network's 2D input width and
// its number of further ensemble channels (len(Record.EnsembleTemps)):
// inputs2DOf of the width less them, which must include the ensemble
// channel when there are any.
func inputs2DWith(width, temps int) (c Inputs2D, ok bool) {
	if temps == 0 {
		return inputs2DOf(width)
	}
	if temps < 0 {
		return c, false
	}
	c, ok = inputs2DOf(width - temps*EnsembleChannels)
	if !ok || !c.Ensemble {
		return Inputs2D{}, false
	}
	c.Temps = temps
	return c, true
}

// inputs2DOf reads the channels from a network's 2D input width: 0, 3
// (template), 2 (energy), 5 (both), 1 (ensemble), 4 (template and
// ensemble) or 6 (all three); ok is false for another width.
func inputs2DOf(width int) (c Inputs2D, ok bool) {
	switch width {
	case 0:
		return c, true
	case TemplateChannels:
		return Inputs2D{Template: true}, true
	case EnergyChannels:
		return Inputs2D{Energy: true}, true
	case TemplateChannels + EnergyChannels:
		return Inputs2D{Template: true, Energy: true}, true
	case EnsembleChannels:
		return Inputs2D{Ensemble: true}, true
	case TemplateChannels + EnsembleChannels:
		return Inputs2D{Template: true, Ensemble: true}, true
	case TemplateChannels + EnergyChannels + EnsembleChannels:
		return Inputs2D{Template: true, Energy: true, Ensemble: true}, true
	}
	return c, false
}

// canPair reports whether normalised bases a and b form an AU, CG or GU
// pair.
func canPair(a, b byte) bool {
	switch string([]byte{a, b}) {
	case "AU", "UA", "CG", "GC", "GU", "UG":
		return true
	}
	return false
}

// energyPixels writes the energy channels of the bases idx[0..n) of a
// molecule with sequence seq and MFE partners mfe (window position k is
// molecule base idx[k]) into dst, a row-major n' x n' x c map (n' =
// stride >= n) whose energy channels start at offset off.
func energyPixels(dst []float32, stride, c, off int, seq string, mfe []int, idx []int) {
	for a, i := range idx {
		for b, j := range idx {
			if b == a {
				continue
			}
			px := dst[(a*stride+b)*c+off:]
			if mfe[i] == j {
				px[0] = 1
			}
			if (j-i > 3 || i-j > 3) && canPair(seq[i], seq[j]) {
				px[1] = 1
			}
		}
	}
}

// MFECache keeps minimum free energy structures by sequence, so that a
// set folded once (a 16S rRNA takes seconds) is not folded again, or,
// made by NewCentroidCache or ReadCentroidCache (NewMEACache), the
// centroid (MEA, gamma 1) structures of the Turner 2004 ensembles
// (CentroidPredictor's; a partition function takes several times an MFE
// fold). Safe for concurrent use.
// The file format is gzip-compressed text, one line per sequence: the
// first 16 bytes of a SHA-256 in hex, a tab, the structure's pairs as
// "i-j" (0-based) separated by commas. An MFE cache hashes the sequence;
// a centroid or MEA cache hashes it with FoldFingerprint, so that a change of
// the energy parameters or of the partition function's results leaves
// the old entries unused. A cache may have a read-only seed (WithSeed),
// looked up after its own entries and never written.
type MFECache struct {
	mu      sync.Mutex
	m       map[string][]int32 // key -> pairs i0, j0, i1, j1, ...
	changed bool
	kind    structKind // the structures it holds
	seed    *MFECache  // read-only, looked up after m; nil: none
}

// NewMFECache is an empty cache.
func NewMFECache() *MFECache { return &MFECache{m: map[string][]int32{}} }

// structKind is the kind of structure an MFECache holds.
type structKind uint8

const (
	kindMFE      structKind = iota // minimum free energy structures
	kindCentroid                   // centroids of the Turner 2004 ensembles
	kindMEA                        // their MEA structures (gamma 1)
)

// NewCentroidCache is an empty cache of centroid structures.
func NewCentroidCache() *MFECache { return &MFECache{m: map[string][]int32{}, kind: kindCentroid} }

// NewMEACache is an empty cache of the ensembles' maximum expected
// accuracy structures (gamma 1, RNAfold --MEA's; the mea-pf method's).
func NewMEACache() *MFECache { return &MFECache{m: map[string][]int32{}, kind: kindMEA} }

func mfeKey(seq string) string {
	h := sha256.Sum256([]byte(seq))
	return hex.EncodeToString(h[:16])
}

// centroidKey is a centroid cache's key of seq: the hash of the fold
// fingerprint and the sequence.
func centroidKey(seq string) string {
	h := sha256.Sum256([]byte("centroid\x00" + FoldFingerprint() + "\x00" + seq))
	return hex.EncodeToString(h[:16])
}

// meaKey is an MEA cache's key of seq, as centroidKey's.
func meaKey(seq string) string {
	h := sha256.Sum256([]byte("mea\x00" + FoldFingerprint() + "\x00" + seq))
	return hex.EncodeToString(h[:16])
}

func (c *MFECache) key(seq string) string {
	switch c.kind {
	case kindCentroid:
		return centroidKey(seq)
	case kindMEA:
		return meaKey(seq)
	}
	return mfeKey(seq)
}

func (c *MFECache) what() string {
	switch c.kind {
	case kindCentroid:
		return "centroid cache"
	case kindMEA:
		return "MEA cache"
	}
	return "MFE cache"
}

// WithSeed makes seed (nil: none) the cache's read-only seed: a
// structure missing from the cache is looked up there before it is
// folded, and is not added to the cache (Changed stays false). seed
// must hold the same kind of structures. It returns c.
func (c *MFECache) WithSeed(seed *MFECache) *MFECache {
	if seed != nil && seed.kind != c.kind {
		panic("ssnet: WithSeed: a seed of another kind of structures")
	}
	c.mu.Lock()
	c.seed = seed
	c.mu.Unlock()
	return c
}

// maxCachePairs bounds a cache line's pairs (a structure of 100,000
// bases at most).
const maxCachePairs = 50000

// ReadMFECache reads a cache file; a file that does not exist gives an
// empty cache.
func ReadMFECache(path string) (*MFECache, error) { return readCache(path, NewMFECache()) }

// ReadCentroidCache reads a centroid cache file (ReadMFECache's format);
// a file that does not exist gives an empty cache.
func ReadCentroidCache(path string) (*MFECache, error) { return readCache(path, NewCentroidCache()) }

func readCache(path string, c *MFECache) (*MFECache, error) {
	_, err := scanGzipLines(path, c.what(), 1<<22, func(ln int, line string) error {
		key, pairs, err := parseCacheLine(line)
		if err != nil {
			return fmt.Errorf("ssnet: %s %s line %d: %w", c.what(), path, ln, err)
		}
		c.m[key] = pairs
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// parseCacheLine reads a cache line, KEY<TAB>PAIRS.
func parseCacheLine(line string) (string, []int32, error) {
	key, list, ok := strings.Cut(line, "\t")
	if !ok || len(key) != 32 {
		return "", nil, errors.New("want KEY<TAB>PAIRS with a 32-digit key")
	}
	var pairs []int32
	if list != "" {
		fs := strings.Split(list, ",")
		if len(fs) > maxCachePairs {
			return "", nil, fmt.Errorf("%d pairs (at most %d)", len(fs), maxCachePairs)
		}
		pairs = make([]int32, 0, 2*len(fs))
		for _, p := range fs {
			var i, j int32
			if _, err := fmt.Sscanf(p, "%d-%d", &i, &j); err != nil || i < 0 || j <= i {
				return "", nil, fmt.Errorf("bad pair %q", p)
			}
			pairs = append(pairs, i, j)
		}
	}
	return key, pairs, nil
}

// Write saves the cache atomically, its lines sorted by key; its seed
// is not written.
func (c *MFECache) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("ssnet: %s: %w", c.what(), err)
	}
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		zw := gzip.NewWriter(w)
		bw := bufio.NewWriter(zw)
		c.writeLines(bw, "")
		if err := bw.Flush(); err != nil {
			return err
		}
		return zw.Close()
	})
}

// writeLines writes the cache's lines, sorted by key, each after prefix.
func (c *MFECache) writeLines(bw *bufio.Writer, prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		bw.WriteString(prefix)
		bw.WriteString(k)
		bw.WriteByte('\t')
		p := c.m[k]
		for n := 0; n < len(p); n += 2 {
			if n > 0 {
				bw.WriteByte(',')
			}
			fmt.Fprintf(bw, "%d-%d", p[n], p[n+1])
		}
		bw.WriteByte('\n')
	}
}

// Changed reports whether structures were added since the cache was read.
func (c *MFECache) Changed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Len is the number of cached structures.
func (c *MFECache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Partners returns the MFE partner of every base of seq (-1: unpaired),
// or a centroid (MEA) cache's centroid (MEA) partners, from the cache, its seed, or
// folded (and then cached) with fold's defaults on workers goroutines.
func (c *MFECache) Partners(seq string, workers int) ([]int, error) {
	key := c.key(seq)
	c.mu.Lock()
	pairs, ok := c.m[key]
	seed := c.seed
	c.mu.Unlock()
	if !ok && seed != nil {
		seed.mu.Lock()
		pairs, ok = seed.m[key]
		seed.mu.Unlock()
	}
	if !ok {
		var s *rna.Structure
		if c.kind != kindMFE {
			e, err := fold.DefaultParams().Partition(seq, workers)
			if err != nil {
				return nil, err
			}
			if c.kind == kindCentroid {
				s, _ = e.Centroid()
			} else if s, _, err = e.MEA(1); err != nil {
				return nil, err
			}
		} else {
			var err error
			if s, _, err = fold.DefaultParams().Fold(seq, workers); err != nil {
				return nil, err
			}
		}
		for _, p := range s.Pairs() {
			pairs = append(pairs, int32(p[0]), int32(p[1]))
		}
		c.mu.Lock()
		c.m[key], c.changed = pairs, true
		c.mu.Unlock()
	}
	out := make([]int, len(seq))
	for i := range out {
		out[i] = -1
	}
	for n := 0; n < len(pairs); n += 2 {
		i, j := int(pairs[n]), int(pairs[n+1])
		if j >= len(seq) {
			return nil, fmt.Errorf("ssnet: %s: a pair (%d, %d) beyond a sequence of %d bases (a key collision or a corrupt cache)", c.what(), i, j, len(seq))
		}
		out[i], out[j] = j, i
	}
	return out, nil
}

// MFEPartnersProgress is MFEPartners stopped by ctx, with progress (may
// be nil) called as the fold goes (fold.Params.FoldProgress): the energy
// channels of a long molecule, folded before its network runs. The
// partners are MFEPartners'.
func MFEPartnersProgress(ctx context.Context, seq string, workers int, progress func(done, total float64)) ([]int, error) {
	s, _, err := fold.DefaultParams().FoldProgress(ctx, seq, workers, progress)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(seq))
	for i := range out {
		out[i] = -1
	}
	for _, p := range s.Pairs() {
		out[p[0]], out[p[1]] = p[1], p[0]
	}
	return out, nil
}

// MFEPartners folds seq (fold's defaults) and returns every base's
// partner (-1: unpaired).
func MFEPartners(seq string, workers int) ([]int, error) {
	return NewMFECache().Partners(seq, workers)
}

// AttachMFE attaches every molecule's MFE partners (Molecule.MFE) from
// cache (nil: fold each), folding the missing ones on parallel
// goroutines, one molecule each. progress (may be nil) is called after
// each molecule. When ctx is cancelled no further molecule is started:
// it waits for the folds under way (they enter the cache) and returns
// ctx's error.
func AttachMFE(ctx context.Context, set []Molecule, cache *MFECache, parallel int, progress func()) error {
	if cache == nil {
		cache = NewMFECache()
	}
	parallel = max(parallel, 1)
	jobs := make(chan int)
	errs := make([]error, len(set))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				p, err := cache.Partners(set[k].Seq, 1)
				if err != nil {
					errs[k] = fmt.Errorf("ssnet: %s: MFE: %w", set[k].Name, err)
				} else {
					set[k].MFE = p
				}
				if progress != nil {
					mu.Lock()
					progress()
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for k := range set {
		if set[k].MFE != nil {
			continue
		}
		// Looked at first: a select with both cases ready picks one at
		// random, and would hand out further molecules after a cancel.
		if ctx.Err() != nil {
			break
		}
		select {
		case jobs <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// checkMFE checks that a molecule's attached MFE partners fit it.
func checkMFE(m *Molecule) error {
	if m.MFE == nil {
		return fmt.Errorf("ssnet: %s: no MFE structure attached", m.Name)
	}
	if len(m.MFE) != len(m.Seq) {
		return fmt.Errorf("ssnet: %s: an MFE structure of %d bases for %d", m.Name, len(m.MFE), len(m.Seq))
	}
	return nil
}
