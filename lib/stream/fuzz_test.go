package stream

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// The reader takes any bytes: it sniffs plain, gzip or zstd, reads lines or
// stops with an error, never panics or hangs. And whatever raw is, its zstd
// and gzip forms cut at any byte read as a prefix of its lines (a killed
// writer's file yields what was complete, nothing invented).
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n"), uint(7))
	f.Add([]byte("\xef\xbb\xbf{\"id\":1}\r\n\r\n{\"id\":2}"), uint(3))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0}, uint(2))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0}, uint(1))
	f.Add([]byte{0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 'm', 'e', 't', 'a'}, uint(0))
	f.Add(bytes.Repeat([]byte("x"), 5000), uint(4000))
	f.Fuzz(func(t *testing.T, raw []byte, cut uint) {
		in, err := Open("-", bytes.NewReader(raw))
		if err == nil {
			for range len(raw) + 2 { // a line per byte at most, plus EOF
				if _, _, err := in.Next(); err != nil {
					break
				}
			}
			in.Close()
		}
		if bytes.HasPrefix(raw, BOM) || !isText(raw) {
			return
		}
		want := lines(raw)
		// Cut after the magic number: a file of 2 bytes of it is plain text
		// (and fails as a record, loudly, in the next step).
		for _, packed := range [][]byte{zstdBytes(t, raw), gzipBytes(t, raw)} {
			c := 4 + int(cut%uint(len(packed)-3))
			in, err := Open("-", bytes.NewReader(packed[:c]))
			if err != nil {
				continue
			}
			got, _ := readAll(t, in)
			in.Close()
			for i, l := range got {
				if i >= len(want) || (l != want[i] && !strings.HasPrefix(want[i], l)) {
					t.Fatalf("cut at %d of %d: line %d %q is not in the original %q", c, len(packed), i, l, want)
				}
			}
		}
	})
}

// isText: no NUL and no compression magic at the start, so Open reads raw as plain lines.
func isText(b []byte) bool {
	return !bytes.ContainsRune(b, 0) && !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) && !bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}) && (len(b) < 4 || b[1] != 0x2a || b[2] != 0x4d || b[3] != 0x18)
}

func lines(raw []byte) []string {
	in, err := Open("-", bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	defer in.Close()
	var out []string
	for {
		l, _, err := in.Next()
		if err == io.EOF || err != nil {
			return out
		}
		out = append(out, string(l))
	}
}
