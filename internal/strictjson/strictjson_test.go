package strictjson

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type inner struct {
		A int `json:"a"`
	}
	type rec struct {
		Name  string `json:"name"`
		Inner inner  `json:"inner"`
	}
	var r rec
	if err := Decode([]byte(`{"name":"x","inner":{"a":2}}`), &r); err != nil || r.Name != "x" || r.Inner.A != 2 {
		t.Fatalf("known fields: %+v, %v", r, err)
	}
	for _, c := range []struct{ in, field string }{
		{`{"name":"x","extra":1}`, `"extra"`},
		{`{"name":"x","inner":{"a":2,"b":3}}`, `"b"`},
	} {
		err := Decode([]byte(c.in), new(rec))
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming %s", c.in, err, c.field)
		}
	}
}
