package judge

import (
	"errors"
	"testing"

	"github.com/ifkit/ifkit/lib/record"
)

func TestYesNo(t *testing.T) {
	lenient, strict := YesNo{}, YesNo{Strict: true}
	tests := []struct {
		v     YesNo
		reply string
		want  string // "" = an error
	}{
		{lenient, "yes", VerdictYes},
		{lenient, "Yes.", VerdictYes},
		{lenient, "The entry mentions it, so YES", VerdictYes},
		{lenient, "No, although the word yesterday appears", VerdictYes}, // the official substring rule
		{lenient, "No.", VerdictNo},
		{lenient, "", VerdictNo},
		{strict, "  Yes.  ", VerdictYes},
		{strict, "**no**", VerdictNo},
		{strict, "Answer: yes", VerdictYes},
		{strict, "#*# No", VerdictNo},
		{strict, "yes, it does", ""},
		{strict, "maybe", ""},
	}
	for _, tc := range tests {
		got, err := tc.v.Parse(tc.reply)
		if tc.want == "" {
			var re *record.Error
			if !errors.As(err, &re) || re.Kind != "verdict" {
				t.Errorf("%+v.Parse(%q) = %q, %v; want a verdict error", tc.v, tc.reply, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%+v.Parse(%q) = %q, %v; want %q", tc.v, tc.reply, got, err, tc.want)
		}
	}
}

func TestChatCall(t *testing.T) {
	b, err := ChatCall("Is it?", 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"user","content":"Is it?"}],"max_tokens":50,"temperature":0}`
	if string(b) != want {
		t.Errorf("ChatCall = %s\nwant %s", b, want)
	}
}
