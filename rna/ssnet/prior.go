package ssnet

import (
	"fmt"
	"math"
	"slices"

	"github.com/contactmap/contactmap/scnn"
)

// PriorFloor is the least probability the ensemble prior reads: the
// channel's zeros (pairs under EnsembleCut, spans outside the band) count
// as PriorFloor, a log-odds of about -5.3, so that the network can
// still call them.
const PriorFloor = EnsembleCut / 2

// addEnsemblePrior returns logits z plus the log-odds of the ensemble
// channel at each pixel (Protocol.EnsemblePrior): for every sample s and
// pixel k of the network's layout (packed or row-major, as x2 is),
//
//	out[s, k] = z[s, k] + log(p / (1 - p)),  p = clamp(x2[s, k, off], PriorFloor, 1 - PriorFloor)
//
// where off is the ensemble channel's index among x2's channels. The
// network's output is then a correction of McCaskill's pair
// probabilities: a network whose logits are 0 predicts them. The offset
// does not depend on the parameters, so the gradient with respect to z
// is the loss's gradient with respect to out, unchanged. z is not
// modified.
func addEnsemblePrior(z, x2 *scnn.Tensor, off int) (*scnn.Tensor, error) {
	if x2 == nil || len(z.Shape) != 4 || len(x2.Shape) != 4 || z.Layout != x2.Layout || z.Shape[3] != 1 || !slices.Equal(z.Shape[:3], x2.Shape[:3]) {
		return nil, fmt.Errorf("ssnet: ensemble prior: logits %v and 2D input %v", z.Shape, shapeOf(x2))
	}
	c := x2.Shape[3]
	if off < 0 || off >= c || len(x2.Data) != len(z.Data)*c {
		return nil, fmt.Errorf("ssnet: ensemble prior: channel %d of %d; %d logits for %d input values", off, c, len(z.Data), len(x2.Data))
	}
	out := *z
	out.Data = make([]float32, len(z.Data))
	for k, v := range z.Data {
		p := min(max(float64(x2.Data[k*c+off]), PriorFloor), 1-PriorFloor)
		out.Data[k] = v + float32(math.Log(p/(1-p)))
	}
	return &out, nil
}

func shapeOf(t *scnn.Tensor) []int {
	if t == nil {
		return nil
	}
	return t.Shape
}
