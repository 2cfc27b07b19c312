package bytesize

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1024", 1024, true}, {"64MiB", 64 << 20, true}, {"64M", 64 << 20, true}, {" 2 GiB ", 2 << 30, true},
		{"3TiB", 3 << 40, true}, {"1K", 1024, true},
		{"64MB", 0, false}, {"12x", 0, false}, {"-1", 0, false}, {"1.5GiB", 0, false}, {"", 0, false}, {"9000000TiB", 0, false},
	} {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestString(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 1 << 40: "1 TiB", 1536: "1536 bytes", 1000: "1000 bytes"} {
		if got := String(n); got != want {
			t.Errorf("String(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{512: "512 B", 1536: "1.50 KiB", 15 << 20: "15.0 MiB", 300 << 30: "300 GiB"} {
		if got := Approx(n); got != want {
			t.Errorf("Approx(%d) = %q, want %q", n, got, want)
		}
	}
}
