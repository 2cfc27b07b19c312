package progress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		bad  bool
	}{
		{"", Auto, false},
		{"auto", Auto, false},
		{"always", Always, false},
		{"never", Never, false},
		{"sometimes", "", true},
		{"ALWAYS", "", true},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestStartOnlyWhenAsked(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(nil) {
		t.Fatal("a regular file (or nil) reported as a terminal")
	}
	tests := []struct {
		mode   Mode
		w      io.Writer
		active bool
	}{
		{Never, f, false},
		{Auto, f, false}, // batch logs stay free of progress noise
		{Auto, &bytes.Buffer{}, false},
		{Always, f, true},
		{Always, &bytes.Buffer{}, true},
	}
	for _, tt := range tests {
		b := Start(tt.mode, tt.w, func() string { return "x" }, func(string) {})
		if (b != nil) != tt.active {
			t.Errorf("Start(%s, %T) active = %v, want %v", tt.mode, tt.w, b != nil, tt.active)
		}
		b.Stop() // safe on nil, and returns once the drawing goroutine ended
	}
}

func TestFit(t *testing.T) {
	s := "infer-batch: 1200 read, 1100 written, 3 failed, 85 rec/s, in flight 64, ETA 2m10s"
	tests := []struct {
		cols int
		want string
	}{
		{200, s},
		{len(s) + 1, s},
		{60, "infer-batch: 1200 read, 1100 written, 3 failed, 85 rec/s…"},
		{30, "infer-batch: 1200 read…"},
		{8, "infer-…"},
		{0, s},
	}
	for _, tt := range tests {
		got := Fit(s, tt.cols)
		if got != tt.want || (tt.cols > 1 && len([]rune(got)) >= tt.cols) {
			t.Errorf("Fit(%d) = %q, want %q", tt.cols, got, tt.want)
		}
	}
}
