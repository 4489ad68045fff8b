package scnn

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// Each layer's ParamShapes are its constructor's params: names, shapes
// and order (the model readers check a file's arrays against them).
func TestParamShapesAreTheConstructors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	must := func(l Layer, err error) Layer {
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, c := range []struct {
		layer  Layer
		shapes []ParamShape
	}{
		{must(NewConv2D("c", 3, 2, 5, rng)), Conv2DShapes("c", 3, 2, 5)},
		{must(NewSymPresConv("s", 5, 3, 2, rng)), SymPresConvShapes("s", 5, 3, 2)},
		{must(NewSymGenConv("g", 3, 4, 2, rng)), SymGenConvShapes("g", 3, 4, 2)},
		{must(NewDense("d", 3, 7, rng)), DenseShapes("d", 3, 7)},
		{must(NewEmbedding("e", 6, 2, 0.1, rng)), EmbeddingShapes("e", 6, 2)},
		{must(NewBiLSTM("l", 3, 4, rng)), BiLSTMShapes("l", 3, 4)},
		{NewBatchNorm2D("bn", 3), BatchNorm2DShapes("bn", 3)},
	} {
		want := ShapesOf(c.layer.Params())
		if !reflect.DeepEqual(c.shapes, want) {
			t.Errorf("%T: shapes %v, constructor's %v", c.layer, c.shapes, want)
		}
		n := 0
		for _, p := range c.layer.Params() {
			n += len(p.Value)
		}
		if got := CountShapes(c.shapes); got != n {
			t.Errorf("%T: CountShapes %d, constructor's %d values", c.layer, got, n)
		}
	}
}
