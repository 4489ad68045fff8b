package rec

import (
	"slices"
	"testing"
)

// ratingsOf builds ratings of one user with items in the given time order
// (times descending in the slice order reversed, to test the sort).
func ratingsOf(user int64, items ...int64) []Rating {
	var rs []Rating
	for i := len(items) - 1; i >= 0; i-- {
		rs = append(rs, Rating{User: user, Item: items[i], Score: 1, Time: int64(100 + i)})
	}
	return rs
}

func TestNewDatasetSplit(t *testing.T) {
	// User 7: 10 items -> 7 train, 1 validation, 2 test. User 3: 20 items
	// -> 14, 2, 4. Item 99 appears only in user 7's test part: Unknown.
	rs := ratingsOf(7, 10, 11, 12, 13, 14, 15, 16, 17, 18, 99)
	u3 := []int64{}
	for i := int64(0); i < 20; i++ {
		u3 = append(u3, 20+i)
	}
	rs = append(rs, ratingsOf(3, u3...)...)
	d, err := NewDataset(rs)
	if err != nil {
		t.Fatal(err)
	}
	if d.Users != 2 || !slices.Equal(d.UserRaw, []int64{3, 7}) {
		t.Fatalf("users %v", d.UserRaw)
	}
	// Training items: 10..16 (user 7) and 20..33 (user 3): 21 items.
	if d.Items != 21 || d.ItemRaw[1] != 10 || d.ItemRaw[21] != 33 {
		t.Fatalf("items %d: %v", d.Items, d.ItemRaw)
	}
	u7, _ := d.UserIndex(7)
	if len(d.Train[u7]) != 7 || len(d.Valid[u7]) != 1 || len(d.Test[u7]) != 2 {
		t.Fatalf("user 7 parts %v %v %v", d.Train[u7], d.Valid[u7], d.Test[u7])
	}
	if len(d.Train[0]) != 14 || len(d.Valid[0]) != 2 || len(d.Test[0]) != 4 {
		t.Fatalf("user 3 parts %d %d %d", len(d.Train[0]), len(d.Valid[0]), len(d.Test[0]))
	}
	// Time order: the first training item of user 7 is raw 10.
	if d.ItemRaw[d.Train[u7][0]] != 10 {
		t.Errorf("first item of user 7 is %d", d.ItemRaw[d.Train[u7][0]])
	}
	// Items 17, 18 (validation/test of user 7 only) and 99 are unknown.
	if d.Valid[u7][0] != Unknown || d.Test[u7][1] != Unknown {
		t.Errorf("user 7 held out %v %v, want unknown items", d.Valid[u7], d.Test[u7])
	}
	st := d.Stats()
	// User 3's held-out items 34..39 were never trained on either.
	if st.UnknownValid != 3 || st.UnknownTest != 6 || st.Train != 21 {
		t.Errorf("stats %+v", st)
	}
	if h := d.History(int(u7), Test); len(h) != 8 {
		t.Errorf("test history %v", h)
	}
}

func TestWindowsAndLastItems(t *testing.T) {
	d := &Dataset{Users: 2, Items: 9, Train: [][]int32{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {4, 5}}}
	w := d.TrainingWindows(5, 3)
	// User 0: 9 items, windows of 8 ending at 9 and 8; user 1: one padded.
	if w.Len() != 3 {
		t.Fatalf("%d windows", w.Len())
	}
	if !slices.Equal(w.Seq[:5], []int32{2, 3, 4, 5, 6}) || !slices.Equal(w.Items[:3], []int32{7, 8, 9}) {
		t.Errorf("first window %v -> %v", w.Seq[:5], w.Items[:3])
	}
	if !slices.Equal(w.Seq[5:10], []int32{1, 2, 3, 4, 5}) || !slices.Equal(w.Items[3:6], []int32{6, 7, 8}) {
		t.Errorf("second window %v -> %v", w.Seq[5:10], w.Items[3:6])
	}
	if !slices.Equal(w.Seq[10:], []int32{0, 0, 0, 0, 0}) || !slices.Equal(w.Items[6:], []int32{0, 4, 5}) {
		t.Errorf("padded window %v -> %v", w.Seq[10:], w.Items[6:])
	}
	if got := LastItems([]int32{3, Unknown, 4}, 5); !slices.Equal(got, []int32{0, 0, 3, 0, 4}) {
		t.Errorf("LastItems = %v", got)
	}
}
