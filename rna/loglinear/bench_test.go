package loglinear

import (
	"context"
	"math/rand/v2"
	"testing"
)

func BenchmarkFold200(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	seq := randomSeq(r, 200, "ACGU")
	m := randomTheta(r, 0.1)
	grad := make([]float64, NumFeatures)
	for b.Loop() {
		if _, _, err := m.fold(context.Background(), seq, 0, grad); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFold1500Band200(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 9))
	seq := randomSeq(r, 1500, "ACGU")
	m := randomTheta(r, 0.1)
	for b.Loop() {
		if _, err := m.Fold(context.Background(), seq, 200); err != nil {
			b.Fatal(err)
		}
	}
}
