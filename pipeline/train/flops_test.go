package train

import "testing"

func TestConvFLOPs(t *testing.T) {
	// Default: blocks (7,5,3) on 86 channels, (5,3) on 24, (3) on 16, then
	// 8+50+6 = 64 channels into head 3x3 -> 8 and 3x3 -> 1.
	macs := 86*8*(49+25+9) + 24*8*(25+9) + 16*8*9 + 64*8*9 + 8*1*9
	want := 2 * float64(macs) * 10 * 100 * 100
	for _, kind := range []string{CNN, SCNN} {
		if got := DefaultArch(kind).ConvFLOPs(10, 100); got != want {
			t.Errorf("%s default: %g FLOPs, want %g", kind, got, want)
		}
	}
	// Paper: every conv is a k x k x Cin x Cout kernel, so the count per
	// pixel is the CNN's trainable conv weights (bias excluded).
	m, err := NewModel(PaperArch(CNN), 1)
	if err != nil {
		t.Fatal(err)
	}
	w := 0
	for _, p := range m.Params() {
		if len(p.Shape) == 4 {
			w += len(p.Value)
		}
	}
	if got, want := PaperArch(CNN).ConvFLOPs(1, 7), 2*float64(w)*49; got != want {
		t.Errorf("paper: %g FLOPs, want %g", got, want)
	}
}
