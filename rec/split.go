package rec

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Split names a part of every user's sequence.
type Split int

const (
	// Validation is the 10% after the training part: models are selected
	// on it, with the training part as the known history.
	Validation Split = iota
	// Test is the last 20%: read once at the end, with the training and
	// validation parts as the known history.
	Test
)

func (s Split) String() string {
	if s == Test {
		return "test"
	}
	return "validation"
}

// ParseSplit reads "validation" or "test".
func ParseSplit(s string) (Split, error) {
	switch s {
	case "validation", "valid":
		return Validation, nil
	case "test":
		return Test, nil
	}
	return 0, fmt.Errorf("rec: unknown split %q (validation or test)", s)
}

// Fractions of each user's sequence, as in Caser and CosRec.
const (
	TrainFraction = 0.7
	ValidFraction = 0.1
)

// Unknown marks an item of a validation or test part that never occurs in
// any training part: it has no embedding and cannot be recommended.
const Unknown int32 = -1

// Dataset is every user's interactions in time order, split per user into
// training, validation and test parts. Users are numbered 0..Users-1 and
// items 1..Items (0 is the padding of short sequences), both in order of
// their raw ids; items are those of the training parts.
type Dataset struct {
	Users, Items int
	UserRaw      []int64 // raw id of each user
	ItemRaw      []int64 // raw id of each item; ItemRaw[0] = 0 (padding)
	// Train, Valid and Test hold each user's items in time order; Valid
	// and Test may hold Unknown.
	Train, Valid, Test [][]int32
	userOf             map[int64]int32
	itemOf             map[int64]int32
}

// NewDataset orders each user's ratings by time (ties keep file order),
// splits them 70/10/20 (the training part is the first floor(0.7 n)
// interactions, validation up to floor(0.8 n), test the rest), and numbers
// the items of the training parts.
//
// Ratings none of whose users has two (so that no training part holds an
// item) give an error wrapping ErrTooFew that counts them.
func NewDataset(ratings []Rating) (*Dataset, error) {
	return newDataset(ratings, "")
}

// LoadDataset reads a ratings file (ReadRatingsFile) and splits it
// (NewDataset); errors name the file.
func LoadDataset(path string) (*Dataset, error) {
	rs, err := ReadRatingsFile(path)
	if err != nil {
		return nil, err
	}
	return newDataset(rs, path)
}

// ErrTooFew marks ratings too few to split into training and test parts.
var ErrTooFew = errors.New("too few to split into training and test")

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// newDataset is NewDataset with the name of the ratings' file for errors
// ("" for none).
func newDataset(ratings []Rating, name string) (*Dataset, error) {
	prefix := "rec: "
	if name != "" {
		prefix += name + ": "
	}
	if len(ratings) == 0 {
		return nil, fmt.Errorf("%s%w", prefix, ErrEmpty)
	}
	byUser := map[int64][]int{}
	for i, r := range ratings {
		byUser[r.User] = append(byUser[r.User], i)
	}
	d := &Dataset{userOf: map[int64]int32{}, itemOf: map[int64]int32{}}
	for u := range byUser {
		d.UserRaw = append(d.UserRaw, u)
	}
	slices.Sort(d.UserRaw)
	type parts struct{ train, valid, test []int64 }
	split := make([]parts, len(d.UserRaw))
	trainItems := map[int64]bool{}
	for k, u := range d.UserRaw {
		d.userOf[u] = int32(k)
		idx := byUser[u]
		sort.SliceStable(idx, func(a, b int) bool { return ratings[idx[a]].Time < ratings[idx[b]].Time })
		n := len(idx)
		nt, nv := int(TrainFraction*float64(n)), int((TrainFraction+ValidFraction)*float64(n))
		items := make([]int64, n)
		for i, j := range idx {
			items[i] = ratings[j].Item
		}
		split[k] = parts{items[:nt], items[nt:nv], items[nv:]}
		for _, it := range items[:nt] {
			trainItems[it] = true
		}
	}
	d.ItemRaw = []int64{0}
	for it := range trainItems {
		d.ItemRaw = append(d.ItemRaw, it)
	}
	slices.Sort(d.ItemRaw[1:])
	for k, it := range d.ItemRaw[1:] {
		d.itemOf[it] = int32(k + 1)
	}
	d.Users, d.Items = len(d.UserRaw), len(d.ItemRaw)-1
	if d.Items == 0 {
		items := map[int64]bool{}
		for _, r := range ratings {
			items[r.Item] = true
		}
		return nil, fmt.Errorf("%s%s from %s on %s: %w (a user needs at least 2 ratings for one to go to training)",
			prefix, plural(len(ratings), "rating"), plural(d.Users, "user"), plural(len(items), "item"), ErrTooFew)
	}
	dense := func(raw []int64) []int32 {
		out := make([]int32, len(raw))
		for i, it := range raw {
			if k, ok := d.itemOf[it]; ok {
				out[i] = k
			} else {
				out[i] = Unknown
			}
		}
		return out
	}
	for _, p := range split {
		d.Train = append(d.Train, dense(p.train))
		d.Valid = append(d.Valid, dense(p.valid))
		d.Test = append(d.Test, dense(p.test))
	}
	return d, nil
}

// UserIndex returns the dense number of a raw user id.
func (d *Dataset) UserIndex(raw int64) (int32, bool) {
	u, ok := d.userOf[raw]
	return u, ok
}

// History returns a user's known items before a split: the training part
// for Validation, training and validation parts for Test.
func (d *Dataset) History(u int, s Split) []int32 {
	if s == Test {
		return append(slices.Clone(d.Train[u]), d.Valid[u]...)
	}
	return d.Train[u]
}

// Targets returns a user's held-out items of a split.
func (d *Dataset) Targets(u int, s Split) []int32 {
	if s == Test {
		return d.Test[u]
	}
	return d.Valid[u]
}

// LastItems returns the last l items of a history, left-padded with 0;
// Unknown items become 0 too (no embedding).
func LastItems(history []int32, l int) []int32 {
	out := make([]int32, l)
	for i := 0; i < l && i < len(history); i++ {
		it := history[len(history)-1-i]
		if it == Unknown {
			it = 0
		}
		out[l-1-i] = it
	}
	return out
}

// Windows are the training instances: for every user, each window of
// L+T consecutive training items gives a sequence (the first L) and the
// targets (the last T); a user with fewer than L+T training items gives
// one window, left-padded with 0 (as CosRec's to_sequence).
type Windows struct {
	L, T  int
	User  []int32 // per window
	Seq   []int32 // L per window
	Items []int32 // T targets per window
}

// Len is the number of windows.
func (w *Windows) Len() int { return len(w.User) }

// TrainingWindows returns the windows of every user's training part.
func (d *Dataset) TrainingWindows(l, t int) *Windows {
	w := &Windows{L: l, T: t}
	m := l + t
	for u, items := range d.Train {
		if len(items) == 0 {
			continue
		}
		if len(items) < m {
			pad := LastItems(items, m)
			w.User = append(w.User, int32(u))
			w.Seq = append(w.Seq, pad[:l]...)
			w.Items = append(w.Items, pad[l:]...)
			continue
		}
		for end := len(items); end >= m; end-- {
			win := items[end-m : end]
			w.User = append(w.User, int32(u))
			w.Seq = append(w.Seq, win[:l]...)
			w.Items = append(w.Items, win[l:]...)
		}
	}
	return w
}

// Stats summarises the dataset for reports.
type Stats struct {
	Users, Items              int
	Train, Valid, Test        int // interactions
	UnknownValid, UnknownTest int // held-out interactions with an item never trained on
}

// String is the counts as rec train prints them: "943 users, 1682
// items; interactions ... train, ... validation (... unknown items), ...
// test (... unknown items)".
func (s Stats) String() string {
	return fmt.Sprintf("%d users, %d items; interactions %d train, %d validation (%d unknown items), %d test (%d unknown items)",
		s.Users, s.Items, s.Train, s.Valid, s.UnknownValid, s.Test, s.UnknownTest)
}

// Stats counts the parts.
func (d *Dataset) Stats() Stats {
	s := Stats{Users: d.Users, Items: d.Items}
	for u := range d.Train {
		s.Train += len(d.Train[u])
		s.Valid += len(d.Valid[u])
		s.Test += len(d.Test[u])
		for _, it := range d.Valid[u] {
			if it == Unknown {
				s.UnknownValid++
			}
		}
		for _, it := range d.Test[u] {
			if it == Unknown {
				s.UnknownTest++
			}
		}
	}
	return s
}
