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
	"strconv"
	"strings"
	"sync"

	"github.com/contactmap/contactmap/internal/memavail"
	"github.com/contactmap/contactmap/rna/fold"
)

// EnsembleChannels is the width of the ensemble part of a network's 2D
// input. For bases i and j of the query (i != j):
//
//	0: the probability of the pair (i, j) in the equilibrium ensemble of
//	   the Turner 2004 energy model (McCaskill's partition function,
//	   rna/fold's defaults as RNAfold -p), pairs under EnsembleCut and
//	   pairs of span j-i+1 over EnsembleSpan counted 0
//
// The channel is symmetric in i and j. Where the energy channels
// (EnergyChannels) give one structure, the MFE, this one gives the whole
// ensemble's evidence: the centroid's pairs are those above 0.5, and the
// alternatives a single structure hides are there with their weight.
//
// A network may take further ensemble channels after it, each the same
// channel at another temperature (Record.EnsembleTemps: Turner 2004's
// free energies at that temperature from its enthalpies, as RNAfold -T).
const EnsembleChannels = 1

// EnsembleSpan is the largest base-pair span j-i+1 of the ensemble
// channel's partition function (RNAfold --maxBPspan): molecules of at
// most EnsembleSpan bases fold globally, longer ones in the band, so
// that a 16S rRNA (1,500 nt) takes seconds, not a minute.
const EnsembleSpan = 200

// EnsembleCut is the least pair probability the ensemble channel keeps
// (below it the channel is 0), which keeps the cached ensembles sparse.
const EnsembleCut = 0.01

// PairProb is a base pair (0-based, I < J) and its probability.
type PairProb struct {
	I, J int32
	P    float32
}

// EnsembleFold is the rule of the ensemble channel's partition
// function for a molecule of n bases: molecules of at most Global bases
// fold globally (no span limit), longer ones in the EnsembleSpan band
// (RNAfold --maxBPspan). The zero value is the rule of the first
// ensemble networks, Global EnsembleSpan: a molecule of 201 bases or
// more folds in the band, so that its long-range pairs (a tmRNA's or an
// RNase P's closing helices) are missing from the channel. A network's
// record names its rule (Record.EnsembleGlobal).
//
// Temperature is the temperature of the energies in degrees Celsius
// (fold.Params.WithTemperature, as RNAfold -T), 0 meaning 37, the
// channel's own: a network's further ensemble channels are its ensemble
// at other temperatures (Record.EnsembleTemps), each under the record's
// Global.
type EnsembleFold struct {
	Global      int
	Temperature float64
}

// MinEnsembleTemp and MaxEnsembleTemp bound a further ensemble
// channel's temperature (a record's, a protocol's, ValidEnsembleTemp),
// in degrees Celsius: RNA in liquid water, the range over which Turner's
// enthalpies extrapolate sensibly. The lower bound is exclusive, since
// EnsembleFold.Temperature 0 means 37.
const (
	MinEnsembleTemp = 0
	MaxEnsembleTemp = 100
)

// ValidEnsembleTemp reports whether t (degrees Celsius) is a temperature
// of an ensemble channel: in (MinEnsembleTemp, MaxEnsembleTemp].
func ValidEnsembleTemp(t float64) bool { return t > MinEnsembleTemp && t <= MaxEnsembleTemp }

// DefaultEnsembleTemp is the temperature of the ensemble channel, as
// RNAfold's default (EnsembleFold.Temperature 0).
const DefaultEnsembleTemp = 37.0

// temperature is the rule's temperature, 37 for 0.
func (f EnsembleFold) temperature() float64 {
	if f.Temperature == 0 {
		return DefaultEnsembleTemp
	}
	return f.Temperature
}

// At is the rule at temperature t (degrees Celsius).
func (f EnsembleFold) At(t float64) EnsembleFold {
	f.Temperature = t
	if t == DefaultEnsembleTemp {
		f.Temperature = 0
	}
	return f
}

// TemperatureC is the rule's temperature in degrees Celsius.
func (f EnsembleFold) TemperatureC() float64 { return f.temperature() }

// Stage names the attaching of the rule's channels in a progress bar.
func (f EnsembleFold) Stage() string {
	if t := f.temperature(); t != DefaultEnsembleTemp {
		return fmt.Sprintf("ensemble channels at %g C (pair probabilities)", t)
	}
	return "ensemble channels (pair probabilities)"
}

// MaxEnsembleGlobal bounds EnsembleFold.Global (a record's, a
// protocol's): a global partition function of 4,000 bases takes minutes
// and gigabytes.
const MaxEnsembleGlobal = 4000

// HasEnsemble reports whether the molecule's ensemble channel is
// attached under the rule f (or one the same as f).
func (m *Molecule) HasEnsemble(f EnsembleFold) bool { return m.EnsembleUnder(f) != nil }

// RuleEnsemble is an ensemble channel's pairs and the rule they were
// computed under.
type RuleEnsemble struct {
	Rule  EnsembleFold
	Pairs []PairProb
}

// EnsembleUnder is the molecule's ensemble channel attached under the
// rule f (or one the same as f): Ensemble at 37 C, else the one of
// EnsembleAt at f's temperature; nil if none is.
func (m *Molecule) EnsembleUnder(f EnsembleFold) []PairProb {
	if f.temperature() == DefaultEnsembleTemp {
		if m.Ensemble != nil && m.EnsembleRule.Same(f) {
			return m.Ensemble
		}
		return nil
	}
	for _, e := range m.EnsembleAt {
		if e.Pairs != nil && e.Rule.Same(f) {
			return e.Pairs
		}
	}
	return nil
}

// SetEnsemble attaches ps as the molecule's channel under the rule f:
// Ensemble and EnsembleRule at 37 C, else the entry of EnsembleAt at
// f's temperature, replacing one there under another rule. EnsembleAt
// is rebuilt, not changed in place, so that a copy of the molecule
// keeps its own.
func (m *Molecule) SetEnsemble(f EnsembleFold, ps []PairProb) {
	if f.temperature() == DefaultEnsembleTemp {
		m.Ensemble, m.EnsembleRule = ps, f
		return
	}
	at := make([]RuleEnsemble, 0, len(m.EnsembleAt)+1)
	for _, e := range m.EnsembleAt {
		if e.Rule.temperature() != f.temperature() {
			at = append(at, e)
		}
	}
	m.EnsembleAt = append(at, RuleEnsemble{Rule: f, Pairs: ps})
}

// Same reports whether two rules give every molecule the same channel
// (the zero value is Global EnsembleSpan).
func (f EnsembleFold) Same(g EnsembleFold) bool {
	return f.global() == g.global() && f.temperature() == g.temperature()
}

// GlobalLen is the longest molecule the rule folds globally.
func (f EnsembleFold) GlobalLen() int { return f.global() }

func (f EnsembleFold) global() int {
	if f.Global <= 0 {
		return EnsembleSpan
	}
	return f.Global
}

// Span is the largest base-pair span of the partition function of a
// molecule of n bases (0: none).
func (f EnsembleFold) Span(n int) int {
	if n > f.global() {
		return EnsembleSpan
	}
	return 0
}

// keySpan is the span a cache key names: the band for every molecule
// the band leaves unchanged (n at most EnsembleSpan) as for the banded
// ones, so that the entries of the zero rule keep their keys.
func (f EnsembleFold) keySpan(n int) int {
	if n <= EnsembleSpan || f.Span(n) != 0 {
		return EnsembleSpan
	}
	return 0
}

// params are the energy model and span for a sequence of n bases.
func (f EnsembleFold) params(n int) *fold.Params {
	p := fold.DefaultParams()
	if t := f.temperature(); t != DefaultEnsembleTemp {
		p = p.WithTemperature(t)
	}
	if s := f.Span(n); s > 0 {
		p = p.WithMaxSpan(s)
	}
	return p
}

// EnsemblePairs computes the ensemble channel's pairs of seq under the
// zero rule (EnsembleFold{}.Pairs).
func EnsemblePairs(ctx context.Context, seq string, workers int) ([]PairProb, error) {
	return EnsembleFold{}.Pairs(ctx, seq, workers)
}

// Pairs computes the ensemble channel's pairs of seq: the pair
// probabilities of its partition function (the rule's span,
// EnsembleCut), by I then J, each probability to 3 significant digits,
// on workers goroutines (0: GOMAXPROCS), stopped by ctx.
func (f EnsembleFold) Pairs(ctx context.Context, seq string, workers int) ([]PairProb, error) {
	e, err := f.params(len(seq)).PartitionContext(ctx, seq, workers)
	if err != nil {
		return nil, err
	}
	ps := e.Pairs(EnsembleCut)
	out := make([]PairProb, len(ps))
	for k, p := range ps {
		out[k] = PairProb{I: int32(p.I), J: int32(p.J), P: RoundProb(p.P)}
	}
	return out, nil
}

// RoundProb is p to 3 significant digits, as the cache file writes it
// (the probabilities of an entry given to EnsembleCache.Put should be
// rounded from float64 by it: a float32 rounds again the same, but one
// converted first may land on the other side of a digit),
// so that a channel read from the cache equals one computed.
func RoundProb(p float64) float32 {
	q, _ := strconv.ParseFloat(strconv.FormatFloat(p, 'g', 3, 64), 32)
	return float32(q)
}

// EnsembleBytes is the memory EnsemblePairs takes for a sequence of n
// bases (fold's partition function under the zero rule).
func EnsembleBytes(n int) int64 { return EnsembleFold{}.Bytes(n) }

// Bytes is the memory Pairs takes for a sequence of n bases.
func (f EnsembleFold) Bytes(n int) int64 {
	return fold.MemoryEstimate(fold.MethodPartition, n, f.Span(n))
}

// ensemblePixels writes the ensemble channel of the bases idx[0..n) of
// a molecule of length m with pairs ps into dst, a row-major n' x n' x c
// map (n' = stride >= n) whose channel is at offset off.
func ensemblePixels(dst []float32, stride, c, off, m int, ps []PairProb, idx []int) {
	pos := make([]int32, m)
	for i := range pos {
		pos[i] = -1
	}
	for k, i := range idx {
		pos[i] = int32(k)
	}
	for _, p := range ps {
		a, b := pos[p.I], pos[p.J]
		if a < 0 || b < 0 {
			continue
		}
		dst[(int(a)*stride+int(b))*c+off] = p.P
		dst[(int(b)*stride+int(a))*c+off] = p.P
	}
}

// checkEnsemble checks that a molecule's attached ensemble fits it.
func checkEnsemble(m *Molecule) error {
	if m.Ensemble == nil {
		return fmt.Errorf("ssnet: %s: no ensemble attached", m.Name)
	}
	return checkPairs(m, m.Ensemble)
}

// checkPairs checks that an ensemble channel's pairs fit the molecule.
func checkPairs(m *Molecule, ps []PairProb) error {
	n := int32(len(m.Seq))
	for _, p := range ps {
		if p.I < 0 || p.J <= p.I || p.J >= n {
			return fmt.Errorf("ssnet: %s: an ensemble pair (%d, %d) for a sequence of %d bases", m.Name, p.I, p.J, n)
		}
	}
	return nil
}

// EnsembleCache keeps the ensemble channel's pairs by sequence, under
// the fold fingerprint (FoldFingerprint) and the channel's settings, so
// that a change of the energy model or of the partition function leaves
// old entries unused. Safe for concurrent use.
//
// The file is gzip-compressed text, one line per sequence: the first 16
// bytes of a SHA-256 of the key in hex, a tab, the pairs as "i-j:p"
// (0-based, p with 3 significant digits) separated by commas. Append
// writes the entries added since the last write as a further gzip
// member, so that a long attach can be stopped and resumed without
// losing what it folded (gzip readers read the members as one stream).
type EnsembleCache struct {
	mu      sync.Mutex
	m       map[string][]PairProb
	pending []string // keys added since the last Append, in order
}

// NewEnsembleCache is an empty cache.
func NewEnsembleCache() *EnsembleCache { return &EnsembleCache{m: map[string][]PairProb{}} }

// ensembleKey is the cache key of seq's channel under f: the fold
// fingerprint of f's temperature (FoldFingerprint at 37, so that the
// entries written before temperatures keep their keys), the span f gives
// seq, the cut and the sequence.
func ensembleKey(f EnsembleFold, seq string) string {
	fp := FoldFingerprint()
	if t := f.temperature(); t != DefaultEnsembleTemp {
		fp = fingerprintAt(t)
	}
	h := sha256.Sum256([]byte("ensemble\x00" + fp + "\x00" + strconv.Itoa(f.keySpan(len(seq))) + "\x00" + strconv.FormatFloat(EnsembleCut, 'g', -1, 64) + "\x00" + seq))
	return hex.EncodeToString(h[:16])
}

// Len is the number of cached sequences.
func (c *EnsembleCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Pairs returns the ensemble channel's pairs of seq under the zero rule,
// from the cache or computed (EnsemblePairs, then cached).
func (c *EnsembleCache) Pairs(ctx context.Context, seq string, workers int) ([]PairProb, error) {
	return c.FoldPairs(ctx, EnsembleFold{}, seq, workers)
}

// FoldPairs is Pairs under the rule f (f.Pairs, then cached). The key
// names the span f gives seq, so that one file holds the entries of
// several rules.
func (c *EnsembleCache) FoldPairs(ctx context.Context, f EnsembleFold, seq string, workers int) ([]PairProb, error) {
	key := ensembleKey(f, seq)
	c.mu.Lock()
	ps, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		for _, p := range ps {
			if int(p.J) >= len(seq) {
				return nil, fmt.Errorf("ssnet: ensemble cache: a pair (%d, %d) beyond a sequence of %d bases (a key collision or a corrupt cache)", p.I, p.J, len(seq))
			}
		}
		return ps, nil
	}
	ps, err := f.Pairs(ctx, seq, workers)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if _, ok := c.m[key]; !ok {
		c.m[key] = ps
		c.pending = append(c.pending, key)
	}
	c.mu.Unlock()
	return ps, nil
}

// Has reports whether the cache holds seq's entry under the rule f (a
// nil cache holds none).
func (c *EnsembleCache) Has(f EnsembleFold, seq string) bool { return c.has(f, seq) }

// Put stores ps as seq's entry under the rule f, replacing any entry
// there, to be written by the next Append. It lets an experiment put
// another model's pair probabilities in the ensemble channel's place
// (experiments/rna-loglinear); a network trained or scored on such a
// cache reads them as the channel, and its record still names the
// Turner 2004 ensemble. The pairs must be by I then J with 0 <= I < J <
// len(seq) and 0 < P <= 1; the cache keeps a copy, each probability
// rounded to 3 significant digits as the file writes it.
func (c *EnsembleCache) Put(f EnsembleFold, seq string, ps []PairProb) error {
	for k, p := range ps {
		if p.I < 0 || p.J <= p.I || int(p.J) >= len(seq) || !(p.P > 0 && p.P <= 1) {
			return fmt.Errorf("ssnet: ensemble cache: pair %d (%d, %d, %v) out of range for %d bases", k, p.I, p.J, p.P, len(seq))
		}
		if k > 0 && (p.I < ps[k-1].I || p.I == ps[k-1].I && p.J <= ps[k-1].J) {
			return fmt.Errorf("ssnet: ensemble cache: pair %d (%d, %d) out of order", k, p.I, p.J)
		}
	}
	// A copy, each probability rounded as the file writes it, so that
	// the entry used now is the one read back later.
	own := make([]PairProb, len(ps))
	for k, p := range ps {
		own[k] = PairProb{I: p.I, J: p.J, P: RoundProb(float64(p.P))}
	}
	key := ensembleKey(f, seq)
	c.mu.Lock()
	c.m[key] = own
	c.pending = append(c.pending, key)
	c.mu.Unlock()
	return nil
}

// maxEnsemblePairs bounds a cache line's pairs.
const maxEnsemblePairs = 1 << 22

// ReadEnsembleCache reads a cache file; a file that does not exist gives
// an empty cache.
func ReadEnsembleCache(path string) (*EnsembleCache, error) {
	c := NewEnsembleCache()
	_, err := scanGzipLines(path, "ensemble cache", 1<<26, func(ln int, line string) error {
		key, ps, err := parseEnsembleLine(line)
		if err != nil {
			return fmt.Errorf("ssnet: ensemble cache %s line %d: %w", path, ln, err)
		}
		c.m[key] = ps
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func parseEnsembleLine(line string) (string, []PairProb, error) {
	key, rest, ok := strings.Cut(line, "\t")
	if !ok || len(key) != 32 {
		return "", nil, fmt.Errorf("want a 32-digit key, a tab and the pairs")
	}
	if _, err := hex.DecodeString(key); err != nil {
		return "", nil, fmt.Errorf("key %q: %w", key, err)
	}
	ps := []PairProb{}
	if rest == "" {
		return key, ps, nil
	}
	fields := strings.Split(rest, ",")
	if len(fields) > maxEnsemblePairs {
		return "", nil, fmt.Errorf("%d pairs, at most %d", len(fields), maxEnsemblePairs)
	}
	for _, f := range fields {
		ij, pv, ok := strings.Cut(f, ":")
		is, js, ok2 := strings.Cut(ij, "-")
		if !ok || !ok2 {
			return "", nil, fmt.Errorf("pair %q: want i-j:p", f)
		}
		i, err1 := strconv.ParseInt(is, 10, 32)
		j, err2 := strconv.ParseInt(js, 10, 32)
		p, err3 := strconv.ParseFloat(pv, 32)
		if err := errors.Join(err1, err2, err3); err != nil {
			return "", nil, fmt.Errorf("pair %q: %w", f, err)
		}
		if i < 0 || j <= i || !(p > 0 && p <= 1) {
			return "", nil, fmt.Errorf("pair %q: want 0 <= i < j and 0 < p <= 1", f)
		}
		ps = append(ps, PairProb{I: int32(i), J: int32(j), P: float32(p)})
	}
	return key, ps, nil
}

// Append writes the entries added since the last Append (or since the
// cache was made or read) to path as one more gzip member, creating the
// file if need be; nothing new writes nothing.
func (c *EnsembleCache) Append(path string) error {
	c.mu.Lock()
	keys := c.pending
	c.pending = nil
	lines := make([]string, len(keys))
	for k, key := range keys {
		lines[k] = formatEnsembleLine(key, c.m[key])
	}
	c.mu.Unlock()
	if len(lines) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("ssnet: ensemble cache: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("ssnet: ensemble cache: %w", err)
	}
	if err := writeEnsembleMember(f, lines); err != nil {
		f.Close()
		return fmt.Errorf("ssnet: ensemble cache %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("ssnet: ensemble cache %s: %w", path, err)
	}
	return nil
}

func writeEnsembleMember(w io.Writer, lines []string) error {
	zw := gzip.NewWriter(w)
	bw := bufio.NewWriter(zw)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

func formatEnsembleLine(key string, ps []PairProb) string {
	var b strings.Builder
	b.WriteString(key)
	b.WriteByte('\t')
	for k, p := range ps {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p.I)))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(int(p.J)))
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(float64(p.P), 'g', 3, 32))
	}
	return b.String()
}

// AttachEnsemble attaches every molecule's ensemble channel pairs
// (Molecule.Ensemble), under the zero rule (EnsembleFold), from cache (nil: compute each), computing the
// missing ones on parallel goroutines, one molecule each, longest first
// (so that the long molecules do not come last on one goroutine). When
// path is not "", the new entries are appended to it (Append) every
// appendEvery molecules and at the end, so that a stopped attach resumes
// where it was. progress (may be nil) is called after each molecule.
// When ctx is cancelled no further molecule is started: it waits for the
// ones under way, appends them, and returns ctx's error.
func AttachEnsemble(ctx context.Context, set []Molecule, cache *EnsembleCache, path string, parallel int, progress func()) error {
	return AttachEnsembleFold(ctx, EnsembleFold{}, set, cache, path, parallel, progress)
}

// AttachEnsembleFold is AttachEnsemble under the rule f (a network's
// Record.EnsembleFold): a molecule whose channel was attached under
// another rule gets f's.
func AttachEnsembleFold(ctx context.Context, f EnsembleFold, set []Molecule, cache *EnsembleCache, path string, parallel int, progress func()) error {
	if cache == nil {
		cache = NewEnsembleCache()
	}
	const appendEvery = 200
	parallel = max(parallel, 1)
	order := make([]int, 0, len(set))
	for k := range set {
		if !set[k].HasEnsemble(f) {
			order = append(order, k)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return len(set[order[a]].Seq) > len(set[order[b]].Seq) })
	if need, longest := f.AttachBytes(set, cache, parallel); need > 0 {
		if lim, err := memavail.Available(); err == nil && need > lim.Bytes {
			return fmt.Errorf("ssnet: the ensemble channels (molecules of at most %d bases folded globally, the longest of %d bases not cached) need about %d MB at once on %d goroutines; %s leaves %d MB", max(f.Global, EnsembleSpan), longest, need>>20, parallel, lim.Source, lim.Bytes>>20)
		}
	}
	jobs := make(chan int)
	errs := make([]error, len(set))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	var appendErr error
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				ps, err := cache.FoldPairs(ctx, f, set[k].Seq, 1)
				if err != nil {
					errs[k] = fmt.Errorf("ssnet: %s: ensemble: %w", set[k].Name, err)
				} else {
					set[k].SetEnsemble(f, ps)
				}
				mu.Lock()
				done++
				if path != "" && done%appendEvery == 0 && appendErr == nil {
					appendErr = cache.Append(path)
				}
				if progress != nil {
					progress()
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, k := range order {
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
	if path != "" && appendErr == nil {
		appendErr = cache.Append(path)
	}
	if err := ctx.Err(); err != nil {
		return errors.Join(err, appendErr)
	}
	return errors.Join(append(errs, appendErr)...)
}

// AttachBytes is the most memory AttachEnsembleFold(f, set, cache,
// parallel) takes at once for its partition functions (Bytes): those of
// the parallel longest molecules of set whose channel under f is neither
// attached nor in cache (nil: none cached), which it folds first; and the
// longest such molecule's length (0: none to fold).
func (f EnsembleFold) AttachBytes(set []Molecule, cache *EnsembleCache, parallel int) (need int64, longest int) {
	var lens []int
	for k := range set {
		if set[k].HasEnsemble(f) || cache.has(f, set[k].Seq) {
			continue
		}
		lens = append(lens, len(set[k].Seq))
	}
	sort.Sort(sort.Reverse(sort.IntSlice(lens)))
	for k, n := range lens {
		if k == max(parallel, 1) {
			break
		}
		need += f.Bytes(n)
	}
	if len(lens) > 0 {
		longest = lens[0]
	}
	return need, longest
}

// has reports whether the cache holds seq's channel under f; a nil
// cache holds none.
func (c *EnsembleCache) has(f EnsembleFold, seq string) bool {
	if c == nil {
		return false
	}
	key := ensembleKey(f, seq) // outside the lock: a new temperature's fingerprint folds
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[key]
	return ok
}

// DefaultEnsembleCache is the user's ensemble cache file
// (os.UserCacheDir()/contactmap/rna-ensemble.tsv.gz), or "" when there
// is no cache directory.
func DefaultEnsembleCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "contactmap", "rna-ensemble.tsv.gz")
}
