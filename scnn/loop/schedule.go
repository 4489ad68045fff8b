package loop

import "math"

// Schedule gives the learning rate of each optimiser step, as PyTorch's
// lr_scheduler does. A schedule with state (Plateau) keeps it in
// exported fields: the loop checkpoints the schedule as JSON and
// restores it into the same type on resume, refusing a field the type
// does not know (a newer build's): a field once written is never
// removed nor renamed (TestScheduleKnownKeys).
type Schedule interface {
	// Rate is the learning rate of the optimiser step taken after step
	// others (0-based).
	Rate(step int) float64
	// Observe is told the monitored value of each validation at the end
	// of a round (Config.Metrics[Config.Monitor]).
	Observe(value float64)
}

// Constant is one learning rate throughout.
type Constant struct {
	LR float64 `json:"lr"`
}

// Rate is LR.
func (c *Constant) Rate(int) float64 { return c.LR }

// Observe does nothing.
func (c *Constant) Observe(float64) {}

// StepHalving halves the learning rate once every Every steps: the rate
// of step s is LR * 2^-(s / Every) (integer division). Every <= 0 keeps
// LR.
type StepHalving struct {
	LR    float64 `json:"lr"`
	Every int     `json:"every"`
}

// Rate is LR * 2^-(step / Every), exactly (math.Ldexp).
func (h *StepHalving) Rate(step int) float64 {
	if h.Every <= 0 {
		return h.LR
	}
	return math.Ldexp(h.LR, -(step / h.Every))
}

// Observe does nothing.
func (h *StepHalving) Observe(float64) {}

// Plateau multiplies the learning rate by Factor when the monitored
// value has not improved for more than Patience validations, as
// PyTorch's ReduceLROnPlateau (no cooldown): a value improves on the
// best so far when it is lower (Lower) or higher by more than the
// relative Threshold (best * (1 ± Threshold)); the first value always
// improves. The rate never falls below Min; at Min the count of bad
// validations is kept.
type Plateau struct {
	LR        float64 `json:"lr"` // the current rate
	Factor    float64 `json:"factor"`
	Patience  int     `json:"patience"`
	Min       float64 `json:"min_lr"`
	Threshold float64 `json:"threshold"` // relative
	Lower     bool    `json:"lower"`     // lower values are better

	Best float64 `json:"best"`
	Seen bool    `json:"seen"` // Best holds a value
	Bad  int     `json:"bad"`  // validations since the last improvement
}

// Rate is the current rate.
func (p *Plateau) Rate(int) float64 { return p.LR }

// Observe counts an improvement or a bad validation and lowers the rate
// after more than Patience bad ones.
func (p *Plateau) Observe(v float64) {
	better := !p.Seen
	if p.Seen {
		if p.Lower {
			better = v < p.Best*(1-p.Threshold)
		} else {
			better = v > p.Best*(1+p.Threshold)
		}
	}
	if better {
		p.Best, p.Seen, p.Bad = v, true, 0
		return
	}
	p.Bad++
	if p.Bad > p.Patience && p.LR > p.Min {
		p.LR = max(p.LR*p.Factor, p.Min)
		p.Bad = 0
	}
}
