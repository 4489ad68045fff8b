package rec

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

func TestRank(t *testing.T) {
	scores := []float32{9, 0.5, 0.9, 0.5, 0.1, 0.7}
	got := Rank(scores, []int32{5, Unknown})
	// Item 0 (padding) and 5 (history) out; 1 and 3 tie: 1 first.
	if want := []int32{2, 1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("Rank = %v, want %v", got, want)
	}
}

func TestRankMetricsHandExample(t *testing.T) {
	// Ranking 5 4 3 2 1 ...; targets 4, 1 and an unknown item: 3 targets.
	ranking := []int32{5, 4, 3, 2, 1, 6, 7, 8, 9, 10, 11}
	m := RankMetrics(ranking, []int32{4, 1, Unknown})
	// Hits at ranks 2 and 5: AP = (1/2 + 2/5) / 3 = 0.3.
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(m.AP, 0.3) {
		t.Errorf("AP %v, want 0.3", m.AP)
	}
	// P@1 0, P@5 2/5, P@10 2/10; R@1 0, R@5 2/3, R@10 2/3.
	if !near(m.Prec.At1, 0) || !near(m.Prec.At5, 0.4) || !near(m.Prec.At10, 0.2) {
		t.Errorf("precision %v", m.Prec)
	}
	if !near(m.Recall.At1, 0) || !near(m.Recall.At5, 2.0/3) || !near(m.Recall.At10, 2.0/3) {
		t.Errorf("recall %v", m.Recall)
	}
	// A perfect ranking of known targets: AP 1.
	if p := RankMetrics([]int32{7, 8, 1}, []int32{8, 7}); !near(p.AP, 1) || !near(p.Prec.At1, 1) || !near(p.Recall.At10, 1) {
		t.Errorf("perfect ranking %+v", p)
	}
	s := Summarize([]UserMetrics{m, {AP: 0.1}})
	if !near(s.MAP, 0.2) || s.Users != 2 {
		t.Errorf("summary %+v", s)
	}
}

func TestPopularityEvaluate(t *testing.T) {
	// Items 1 and 2 popular; user 1's test holds 2 (excluded from history)
	d := &Dataset{Users: 2, Items: 3, UserRaw: []int64{10, 11}, ItemRaw: []int64{0, 100, 200, 300},
		Train: [][]int32{{1, 2, 1}, {1}}, Valid: [][]int32{{3}, {}}, Test: [][]int32{{3}, {2}}}
	um, err := Evaluate(d, Test, Popularity(d), 1)
	if err != nil {
		t.Fatal(err)
	}
	// User 10 knows 1, 2, 3 (train + validation): nothing left to rank.
	// User 11 knows 1: ranking 2, 3; target 2 at rank 1.
	if len(um) != 2 || um[1].User != 11 || um[1].AP != 1 || um[0].AP != 0 {
		t.Errorf("metrics %+v", um)
	}
	vm, err := Evaluate(d, Validation, Popularity(d), 5)
	if err != nil {
		t.Fatal(err)
	}
	// Validation: only user 10 has held-out items; ranking 3 (1, 2 known).
	if len(vm) != 1 || vm[0].AP != 1 {
		t.Errorf("validation metrics %+v", vm)
	}
}

// AtK's JSON is the array at Ks, as when it was a [3]float64, both ways.
func TestAtKJSON(t *testing.T) {
	s := Summary{Users: 2, MAP: 0.25, Prec: AtK{0.5, 0.2, 0.125}, Recall: AtK{At10: 1}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"users":2,"map":0.25,"precision":[0.5,0.2,0.125],"recall":[0,0,1]}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Errorf("read back %+v (%v), want %+v", back, err, s)
	}
	if v := s.Prec.Values(); v != [3]float64{0.5, 0.2, 0.125} {
		t.Errorf("Values %v", v)
	}
}
