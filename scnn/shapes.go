package scnn

import "fmt"

// ParamShape is the name and shape of a param as a layer's constructor
// makes it, without its values: what a reader expects a parameter file
// to hold for a model (ReadParamsExpect). The functions below give each
// layer's, in the order of its Params, for the sizes its constructor
// takes; a model lists its layers' in the order it builds them.
type ParamShape struct {
	Name  string
	Shape []int
}

// Len is the number of values, the product of the dimensions.
func (s ParamShape) Len() int {
	n := 1
	for _, d := range s.Shape {
		n *= d
	}
	return n
}

func (s ParamShape) String() string { return fmt.Sprintf("%s %v", s.Name, s.Shape) }

// CountShapes sums the values of shapes.
func CountShapes(shapes []ParamShape) int {
	n := 0
	for _, s := range shapes {
		n += s.Len()
	}
	return n
}

// Conv2DShapes are NewConv2D's params: W (k, k, cin, cout) and b (cout).
func Conv2DShapes(name string, k, cin, cout int) []ParamShape {
	return []ParamShape{{name + ".W", []int{k, k, cin, cout}}, {name + ".b", []int{cout}}}
}

// SymPresConvShapes are NewSymPresConv's params: R (k(k+1)/2, cin, cout)
// and b (cout).
func SymPresConvShapes(name string, k, cin, cout int) []ParamShape {
	return []ParamShape{{name + ".R", []int{k * (k + 1) / 2, cin, cout}}, {name + ".b", []int{cout}}}
}

// SymGenConvShapes are NewSymGenConv's params: S (k(k+1)/2, n, f) and b (f).
func SymGenConvShapes(name string, k, n, f int) []ParamShape {
	return []ParamShape{{name + ".S", []int{k * (k + 1) / 2, n, f}}, {name + ".b", []int{f}}}
}

// BatchNorm2DShapes are NewBatchNorm2D's params: gamma, beta,
// running_mean and running_var (c), and updates (1).
func BatchNorm2DShapes(name string, c int) []ParamShape {
	return []ParamShape{{name + ".gamma", []int{c}}, {name + ".beta", []int{c}},
		{name + ".running_mean", []int{c}}, {name + ".running_var", []int{c}}, {name + ".updates", []int{1}}}
}

// DenseShapes are NewDense's params: W (in, out) and b (out).
func DenseShapes(name string, in, out int) []ParamShape {
	return []ParamShape{{name + ".W", []int{in, out}}, {name + ".b", []int{out}}}
}

// EmbeddingShapes are NewEmbedding's param: W (n, d).
func EmbeddingShapes(name string, n, d int) []ParamShape {
	return []ParamShape{{name + ".W", []int{n, d}}}
}

// BiLSTMShapes are NewBiLSTM's params: Wx (in, 4 hidden), Wh (hidden,
// 4 hidden) and b (4 hidden) of the forward, then the backward direction.
func BiLSTMShapes(name string, in, hidden int) []ParamShape {
	var out []ParamShape
	for _, dir := range []string{"fwd", "bwd"} {
		p := name + "." + dir
		out = append(out, ParamShape{p + ".Wx", []int{in, 4 * hidden}}, ParamShape{p + ".Wh", []int{hidden, 4 * hidden}}, ParamShape{p + ".b", []int{4 * hidden}})
	}
	return out
}

// ShapesOf lists the names and shapes of params.
func ShapesOf(params []*Param) []ParamShape {
	out := make([]ParamShape, len(params))
	for i, p := range params {
		out[i] = ParamShape{p.Name, append([]int(nil), p.Shape...)}
	}
	return out
}
