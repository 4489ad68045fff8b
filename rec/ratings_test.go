package rec

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadRatings(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Rating
		err      error
		line     int
	}{
		{"u.data", "196\t242\t3\t881250949\n186\t302\t3\t891717742\n", []Rating{{196, 242, 3, 881250949}, {186, 302, 3, 891717742}}, nil, 0},
		{"ml-1m", "1::1193::5::978300760\n\n1::661::3::978302109\n", []Rating{{1, 1193, 5, 978300760}, {1, 661, 3, 978302109}}, nil, 0},
		{"caser spaces", "1 17 1 5\n", []Rating{{1, 17, 1, 5}}, nil, 0},
		{"three fields", "1\t2\t3\t4\n1\t2\t3\n", nil, ErrFieldCount, 2},
		{"bad item", "1\tx\t3\t4\n", nil, ErrNumber, 1},
		{"bad rating", "1\t2\tgood\t4\n", nil, ErrNumber, 1},
		{"NaN rating", "1\t2\t3\t4\n1\t3\tNaN\t5\n", nil, ErrNumber, 2},
		{"infinite rating", "1::2::+Inf::4\n", nil, ErrNumber, 1},
		{"overflowing rating", "1 2 1e999 4\n", nil, ErrNumber, 1},
		{"bad time", "1 2 3 4.5\n", nil, ErrNumber, 1},
		{"empty", "\n\n", nil, ErrEmpty, 0},
	} {
		got, err := ReadRatings(strings.NewReader(tc.in), "f")
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
			}
			var pe *ParseError
			if tc.line > 0 && (!errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(err.Error(), "f line")) {
				t.Errorf("%s: error %v, want a ParseError at line %d", tc.name, err, tc.line)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d ratings, want %d", tc.name, len(got), len(tc.want))
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: rating %d = %+v, want %+v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

func TestReadTitles(t *testing.T) {
	in := "1|Toy Story (1995)|01-Jan-1995||http://x|0|0\n2|Ami \xe9 (1994)|x\n"
	got, err := ReadTitles(strings.NewReader(in), "u.item")
	if err != nil {
		t.Fatal(err)
	}
	if got[1] != "Toy Story (1995)" || got[2] != "Ami é (1994)" {
		t.Errorf("titles %v", got)
	}
	if _, err := ReadTitles(strings.NewReader("x|y\n"), "u.item"); !errors.Is(err, ErrNumber) {
		t.Errorf("bad id: %v", err)
	}
}

func FuzzReadRatings(f *testing.F) {
	f.Add("196\t242\t3\t881250949\n")
	f.Add("1::1193::5::978300760\n")
	f.Add("1 2 3 4\n\n5 6 7.5 8")
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ReadRatings(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for _, r := range rs {
			if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				t.Fatalf("rating %v read", r.Score)
			}
		}
		d, err := NewDataset(rs)
		if errors.Is(err, ErrTooFew) {
			// Only when no user has two ratings.
			users := map[int64]int{}
			for _, r := range rs {
				if users[r.User]++; users[r.User] > 1 {
					t.Fatalf("%v, but user %d has two ratings", err, r.User)
				}
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for u := 0; u < d.Users; u++ {
			n += len(d.Train[u]) + len(d.Valid[u]) + len(d.Test[u])
		}
		if n != len(rs) {
			t.Fatalf("split holds %d of %d ratings", n, len(rs))
		}
	})
}

func FuzzReadTitles(f *testing.F) {
	f.Add("1|Toy Story (1995)|01-Jan-1995||http://x|0\n")
	f.Add("1::Toy Story (1995)::Animation\n")
	f.Add("1|a\xe9\n2::b::c\n\n 3|x")
	f.Fuzz(func(t *testing.T, s string) {
		titles, err := ReadTitles(strings.NewReader(s), "fuzz")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Every title is text (Latin-1 decoded), and the titles written
		// back as "id|title" lines (those that fit on one) read back
		// the same.
		var b strings.Builder
		want := map[int64]string{}
		for id, title := range titles {
			if !utf8.ValidString(title) {
				t.Fatalf("title %q of %d is not UTF-8", title, id)
			}
			if strings.ContainsAny(title, "|\r\n") || strings.Contains(title, "::") {
				continue
			}
			fmt.Fprintf(&b, "%d|%s\n", id, title)
			want[id] = title
		}
		back, err := ReadTitles(strings.NewReader(b.String()), "again")
		if err != nil {
			t.Fatalf("titles written back do not read: %v", err)
		}
		if !maps.Equal(back, want) {
			t.Fatalf("titles %v read back as %v", want, back)
		}
	})
}

// MovieLens 100K as its README describes it: 100,000 ratings by 943 users
// of 1,682 movies, each user with at least 20 (skipped where the data is
// not beside the repository: its terms forbid bundling it).
func TestMovieLens100K(t *testing.T) {
	path := "../../shared/data/movielens-100k/u.data"
	if _, err := os.Stat(path); err != nil {
		t.Skip("MovieLens 100K not found beside the repository")
	}
	rs, err := ReadRatingsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	users, items := map[int64]int{}, map[int64]bool{}
	for _, r := range rs {
		users[r.User]++
		items[r.Item] = true
	}
	if len(rs) != 100000 || len(users) != 943 || len(items) != 1682 {
		t.Fatalf("%d ratings, %d users, %d items", len(rs), len(users), len(items))
	}
	for u, n := range users {
		if n < 20 {
			t.Errorf("user %d has %d ratings", u, n)
		}
	}
	d, err := NewDataset(rs)
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.Train+st.Valid+st.Test != 100000 || st.Users != 943 {
		t.Errorf("split %+v", st)
	}
}
