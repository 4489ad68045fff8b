package rec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MovieLensURL is where MovieLens 100K comes from. Its terms do not allow
// redistribution, so the repository has no copy.
const MovieLensURL = "https://grouplens.org/datasets/movielens/100k/"

// LoadData reads and splits (LoadDataset) the ratings at path: a
// MovieLens directory, whose u.data (MovieLens 100K) or else ratings.dat
// (ML-1M) it reads, or a ratings file. A path that does not exist gives
// an error wrapping os.ErrNotExist that says what to give (the commands'
// --data) and where MovieLens 100K comes from.
func LoadData(path string) (*Dataset, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, "u.data")
		if _, err := os.Stat(file); err != nil {
			file = filepath.Join(path, "ratings.dat")
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: give --data, a MovieLens directory (u.data, or ML-1M's ratings.dat) or ratings file; "+
			"MovieLens 100K comes from GroupLens, %s (its terms do not allow redistribution, so the repository has no copy)", err, MovieLensURL)
	}
	return LoadDataset(file)
}

// readTitlesBeside reads the item titles in dir's u.item (MovieLens 100K)
// or else movies.dat (ML-1M) (ReadTitles); neither there, or dir a
// ratings file, gives no titles and no error.
func readTitlesBeside(dir string) (map[int64]string, error) {
	for _, name := range []string{"u.item", "movies.dat"} {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		defer f.Close()
		return ReadTitles(f, path)
	}
	return map[int64]string{}, nil
}
