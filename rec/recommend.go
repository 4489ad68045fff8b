package rec

import (
	"fmt"
	"strconv"
)

// RecommendConfig configures Recommend: a model, the ratings it was
// trained on, how many items, and for whom.
type RecommendConfig struct {
	Model string // model file (rec train's model.scnn)
	// Data are the ratings the model was trained on (LoadData): the
	// users' histories. A MovieLens directory's u.item or movies.dat
	// gives the items' titles.
	Data  string
	N     int      // items per user
	Users []string // user IDs as the ratings file has them (raw IDs)
}

// RecommendedItem is one recommended item.
type RecommendedItem struct {
	ID    int64   // raw ID, as the ratings file has it
	Title string  // "" without a titles file, or when it does not name the item
	Score float32 // the model's score
}

// RecommendOutcome is the result for one of RecommendConfig.Users.
type RecommendOutcome struct {
	Arg          string // the user as given
	User         int64  // raw ID; set unless Arg is not a number
	Interactions int    // the user's ratings, all parts of the split
	// Items are the top N items after everything the user rated, the
	// highest score first, none of them rated by the user.
	Items []RecommendedItem
	Err   error // a *UnknownUserError: no items for this user
}

// UnknownUserError is a user Recommend cannot recommend for: an ID that
// is not a number, or not a user of the data.
type UnknownUserError struct {
	Arg  string // the user as given
	User int64  // its raw ID, when it is a number
	Data string // the data it is not in; "" when Arg is not a number
}

func (e *UnknownUserError) Error() string {
	if e.Data == "" {
		return fmt.Sprintf("user %q: not a number (give the users' IDs as in the ratings file)", e.Arg)
	}
	return fmt.Sprintf("user %d: not in %s", e.User, e.Data)
}

// Recommend ranks every item for each user after everything the user has
// rated (the training, validation and test parts: the model's input is
// the last L of them) and keeps the top N the user has not rated. The
// error is the model's, the data's or the titles' (nothing recommended),
// or a scoring's: then the outcomes are those of the users before it. A
// user that is not in the data fails alone, in its outcome.
func Recommend(cfg RecommendConfig) ([]RecommendOutcome, error) {
	m, r, err := Load(cfg.Model)
	if err != nil {
		return nil, err
	}
	d, err := LoadData(cfg.Data)
	if err != nil {
		return nil, err
	}
	if err := SameData(r, d); err != nil {
		return nil, fmt.Errorf("rec recommend: %s: %w", cfg.Model, err)
	}
	titles, err := readTitlesBeside(cfg.Data)
	if err != nil {
		return nil, err
	}
	var outs []RecommendOutcome
	for _, arg := range cfg.Users {
		o := RecommendOutcome{Arg: arg}
		raw, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			o.Err = &UnknownUserError{Arg: arg}
			outs = append(outs, o)
			continue
		}
		o.User = raw
		u, ok := d.UserIndex(raw)
		if !ok {
			o.Err = &UnknownUserError{Arg: arg, User: raw, Data: cfg.Data}
			outs = append(outs, o)
			continue
		}
		// Recommend after everything known: all three parts.
		hist := append(d.History(int(u), Test), d.Test[u]...)
		scores, err := m.ScoreAll([]int32{u}, LastItems(hist, m.L), 0)
		if err != nil {
			return outs, err
		}
		ranked := Rank(scores[0], hist)
		o.Interactions = len(hist)
		for _, it := range ranked[:min(max(cfg.N, 0), len(ranked))] {
			id := d.ItemRaw[it]
			o.Items = append(o.Items, RecommendedItem{ID: id, Title: titles[id], Score: scores[0][it]})
		}
		outs = append(outs, o)
	}
	return outs, nil
}
