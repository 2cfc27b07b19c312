package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// validUTF8 agrees with utf8.ValidString on every lead byte followed by
// the edges of the ranges a continuation byte may take, whole or cut
// short at the end, alone or after ASCII (which it skips eight bytes at a
// time) and before more.
func TestValidUTF8(t *testing.T) {
	edges := []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF}
	for lead := range 256 {
		for _, c1 := range edges {
			for _, c2 := range edges {
				for _, c3 := range edges {
					seq := string([]byte{byte(lead), c1, c2, c3})
					for cut := 1; cut <= 4; cut++ {
						for _, s := range []string{seq[:cut], "abcdefghi" + seq[:cut], seq[:cut] + "é", "ab" + seq[:cut] + "abcdefgh"} {
							if got, want := validUTF8(s), utf8.ValidString(s); got != want {
								t.Fatalf("validUTF8(%q) = %v, want %v", s, got, want)
							}
						}
					}
				}
			}
		}
	}
}

func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "abc", "日本語", "👨‍👩‍👧", "\xed\xa0\x80", "\xf4\x90\x80\x80", strings.Repeat("a", 9) + "\xe4\xb8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validUTF8(s), utf8.ValidString(s); got != want {
			t.Fatalf("validUTF8(%q) = %v, want %v", s, got, want)
		}
	})
}
