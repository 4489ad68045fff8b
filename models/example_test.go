package models_test

import (
	"fmt"

	"github.com/contactmap/contactmap/models"
)

// The default is a seed ensemble: Load gives its members, whose mean
// contact probability is the prediction (package predict averages them).
func ExampleLoad() {
	members, from, err := models.Load(models.Default)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(from)
	for _, m := range members[:2] {
		fmt.Println(m.Arch.Kind, m.Arch.Config, m.Arch.Seed, m.Arch.Labels)
	}
	// Output:
	// shipped ensemble (models/ensemble), 10 members
	// cnn default 1 C-alpha pairs closer than 8 Å
	// cnn default 2 C-alpha pairs closer than 8 Å
}
