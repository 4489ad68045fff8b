package models_test

import (
	"fmt"

	"github.com/contactmap/contactmap/models"
)

// A shipped seed ensemble: Load gives its members, whose mean contact
// probability is the prediction (package predict averages them). The
// default, distilled, is one model trained on this ensemble's
// probabilities.
func ExampleLoad() {
	members, from, err := models.Load("ensemble")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(from)
	for _, m := range members[:2] {
		fmt.Println(m.Arch.Kind, m.Arch.Config, m.Arch.Seed, m.Arch.Labels)
	}
	def, from, err := models.Load(models.Default)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(from)
	fmt.Println(def[0].Arch.Kind, def[0].Arch.Config, def[0].Arch.Seed, def[0].Arch.Labels)
	// Output:
	// shipped ensemble (models/ensemble), 10 members
	// cnn default 1 C-alpha pairs closer than 8 Å
	// cnn default 2 C-alpha pairs closer than 8 Å
	// shipped distilled (models/distilled.scnn)
	// scnn default 3 C-alpha pairs closer than 8 Å
}
