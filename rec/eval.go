package rec

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Ks are the cut-offs of Precision@k and Recall@k, in the order of AtK's
// fields.
var Ks = [3]int{1, 5, 10}

// AtK is a ranking metric at the cut-offs Ks: Precision@k or Recall@k.
// Its JSON is the array [@1, @5, @10].
type AtK struct {
	At1, At5, At10 float64
}

// Values returns the metric at the cut-offs Ks, in order.
func (a AtK) Values() [len(Ks)]float64 { return [...]float64{a.At1, a.At5, a.At10} }

// at returns the field of the i-th cut-off, Ks[i].
func (a *AtK) at(i int) *float64 { return [...]*float64{&a.At1, &a.At5, &a.At10}[i] }

// MarshalJSON writes the array of Values.
func (a AtK) MarshalJSON() ([]byte, error) { return json.Marshal(a.Values()) }

// UnmarshalJSON reads the array MarshalJSON writes.
func (a *AtK) UnmarshalJSON(b []byte) error {
	var v [len(Ks)]float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*a = AtK{v[0], v[1], v[2]}
	return nil
}

// UserMetrics are one user's ranking scores for one split.
type UserMetrics struct {
	User int64 `json:"user"` // raw id
	// AP is the average precision over the full ranking: the mean, over
	// the user's targets, of the precision at the rank of each target hit
	// (a target never ranked, such as an Unknown item, adds 0).
	AP     float64 `json:"ap"`
	Prec   AtK     `json:"precision"`
	Recall AtK     `json:"recall"`
}

// Summary is the mean over users.
type Summary struct {
	Users  int     `json:"users"`
	MAP    float64 `json:"map"`
	Prec   AtK     `json:"precision"`
	Recall AtK     `json:"recall"`
}

// Summarize averages user metrics.
func Summarize(us []UserMetrics) Summary {
	s := Summary{Users: len(us)}
	for _, u := range us {
		s.MAP += u.AP
		for k := range Ks {
			*s.Prec.at(k) += *u.Prec.at(k)
			*s.Recall.at(k) += *u.Recall.at(k)
		}
	}
	if n := float64(len(us)); n > 0 {
		s.MAP /= n
		for k := range Ks {
			*s.Prec.at(k) /= n
			*s.Recall.at(k) /= n
		}
	}
	return s
}

// Scorer gives scores for items 0..Items of each of a batch of users (row
// u of the result for users[u]) from the given split's known history.
// Item 0 (padding) is never ranked.
type Scorer func(users []int, s Split) ([][]float32, error)

// Evaluate ranks, for every user with held-out items in split s, every
// item 1..Items not in the user's history by decreasing score (ties by
// increasing item number), and scores the ranking against the held-out
// items (as a set).
func Evaluate(d *Dataset, s Split, score Scorer, batch int) ([]UserMetrics, error) {
	var users []int
	for u := 0; u < d.Users; u++ {
		if len(d.Targets(u, s)) > 0 {
			users = append(users, u)
		}
	}
	out := make([]UserMetrics, 0, len(users))
	for lo := 0; lo < len(users); lo += batch {
		part := users[lo:min(lo+batch, len(users))]
		scores, err := score(part, s)
		if err != nil {
			return nil, err
		}
		if len(scores) != len(part) {
			return nil, fmt.Errorf("rec: scorer returned %d rows for %d users", len(scores), len(part))
		}
		for i, u := range part {
			if len(scores[i]) != d.Items+1 {
				return nil, fmt.Errorf("rec: scorer returned %d scores for %d items", len(scores[i]), d.Items+1)
			}
			m := RankMetrics(Rank(scores[i], d.History(u, s)), d.Targets(u, s))
			m.User = d.UserRaw[u]
			out = append(out, m)
		}
	}
	return out, nil
}

// Rank returns the items 1..len(scores)-1 not in exclude, by decreasing
// score, ties by increasing item.
func Rank(scores []float32, exclude []int32) []int32 {
	skip := make([]bool, len(scores))
	skip[0] = true
	for _, it := range exclude {
		if it > 0 && int(it) < len(skip) {
			skip[it] = true
		}
	}
	items := make([]int32, 0, len(scores))
	for it := range scores {
		if !skip[it] {
			items = append(items, int32(it))
		}
	}
	slices.SortStableFunc(items, func(a, b int32) int {
		switch sa, sb := scores[a], scores[b]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return int(a - b)
	})
	return items
}

// RankMetrics scores a ranking against held-out targets (duplicates count
// once; Unknown targets can never be hit but count in the recall and AP
// denominators).
func RankMetrics(ranking, targets []int32) UserMetrics {
	want := map[int32]bool{}
	for _, t := range targets {
		if t == Unknown {
			continue
		}
		want[t] = true
	}
	n := len(want)
	for _, t := range targets {
		if t == Unknown {
			n++ // each unknown interaction is one target nobody can rank
		}
	}
	var m UserMetrics
	if n == 0 {
		return m
	}
	hits := 0
	for r, it := range ranking {
		if want[it] {
			hits++
			m.AP += float64(hits) / float64(r+1)
		}
		for k, cut := range Ks {
			if r+1 == cut {
				*m.Prec.at(k) = float64(hits) / float64(cut)
				*m.Recall.at(k) = float64(hits) / float64(n)
			}
		}
	}
	for k, cut := range Ks { // rankings shorter than the cut-off
		if len(ranking) < cut {
			*m.Prec.at(k) = float64(hits) / float64(cut)
			*m.Recall.at(k) = float64(hits) / float64(n)
		}
	}
	m.AP /= float64(n)
	return m
}
