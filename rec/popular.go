package rec

// Popularity scores every item by the number of training interactions
// with it: the most-popular baseline, the same ranking for every user
// (less each user's history).
func Popularity(d *Dataset) Scorer {
	count := make([]float32, d.Items+1)
	for _, items := range d.Train {
		for _, it := range items {
			count[it]++
		}
	}
	return func(users []int, _ Split) ([][]float32, error) {
		out := make([][]float32, len(users))
		for i := range out {
			out[i] = count
		}
		return out, nil
	}
}
