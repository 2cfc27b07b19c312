package stream

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// corpus returns n JSONL lines of varied, prose-like text, seeded so that
// compressed sizes (and so truncation points) are the same on every run.
func corpus(n int, seed uint64) []string {
	words := strings.Fields("the of and a to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part")
	rng := rand.New(rand.NewPCG(seed, 1))
	lines := make([]string, n)
	for i := range lines {
		var b strings.Builder
		for range 20 + rng.IntN(200) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		lines[i] = fmt.Sprintf(`{"id":"r%d","n":%d,"text":%q}`, i, rng.Uint64(), b.String())
	}
	return lines
}

func joinLines(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func zstdBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readAll drains an input, returning its lines (copied) and the error that
// ended it (nil at a clean EOF).
func readAll(t testing.TB, in *Input) ([]string, error) {
	t.Helper()
	var lines []string
	for {
		line, _, err := in.Next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
		lines = append(lines, string(line))
	}
}

func openBytes(t testing.TB, data []byte) *Input {
	t.Helper()
	in, err := Open("-", bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

func TestSniffAndRead(t *testing.T) {
	lines := corpus(500, 1)
	plain := joinLines(lines)
	skippable := append([]byte{0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 'm', 'e', 't', 'a'}, zstdBytes(t, plain)...)
	tests := []struct {
		name string
		data []byte
		want Compression
	}{
		{"plain", plain, None},
		{"gzip", gzipBytes(t, plain), Gzip},
		{"zstd", zstdBytes(t, plain), Zstd},
		{"zstd after a skippable frame", skippable, Zstd},
		{"gzip members concatenated", append(gzipBytes(t, joinLines(lines[:200])), gzipBytes(t, joinLines(lines[200:]))...), Gzip},
		{"plain after a BOM", append(append([]byte{}, BOM...), plain...), None},
		{"gzip of a file that starts with a BOM", gzipBytes(t, append(append([]byte{}, BOM...), plain...)), Gzip},
		{"zstd frames concatenated", append(append(zstdBytes(t, joinLines(lines[:1])), zstdBytes(t, joinLines(lines[1:300]))...), zstdBytes(t, joinLines(lines[300:]))...), Zstd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := openBytes(t, tt.data)
			if in.Compression != tt.want {
				t.Errorf("Compression = %v, want %v", in.Compression, tt.want)
			}
			got, err := readAll(t, in)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if len(got) != len(lines) || strings.Join(got, "\n") != strings.Join(lines, "\n") {
				t.Errorf("read %d lines, want %d identical lines", len(got), len(lines))
			}
		})
	}
}

func TestSniffUnsupported(t *testing.T) {
	tests := []struct {
		name, format string
		data         []byte
	}{
		{"xz", "xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4, 0xe6}},
		{"bzip2", "bzip2", []byte("BZh91AY&SY")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open("-", bytes.NewReader(tt.data))
			var ue *UnsupportedError
			if !errors.As(err, &ue) || ue.Format != tt.format {
				t.Fatalf("err = %v, want UnsupportedError{%s}", err, tt.format)
			}
			if !strings.Contains(err.Error(), "unsupported compression "+tt.format) {
				t.Errorf("message %q does not say what is unsupported", err)
			}
		})
	}
}

func TestLineHandling(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		lines    []string
		numbers  []int
		wantNone bool
	}{
		{"empty input", "", nil, nil, true},
		{"only blank lines", "\n\r\n  \n\t\n", nil, nil, true},
		{"no final newline", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}, []int{1, 2}, false},
		{"CRLF", "{\"a\":1}\r\n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`}, []int{1, 2}, false},
		{"blank lines keep numbering", "\n{\"a\":1}\n\r\n   \n{\"b\":2}\n\n", []string{`{"a":1}`, `{"b":2}`}, []int{2, 5}, false},
		{"CR inside a line kept", "{\"a\":\"x\ry\"}\n", []string{"{\"a\":\"x\ry\"}"}, []int{1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := openBytes(t, []byte(tt.data))
			var got []string
			var nums []int
			for {
				line, n, err := in.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(line))
				nums = append(nums, n)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.lines) || fmt.Sprint(nums) != fmt.Sprint(tt.numbers) {
				t.Errorf("got %q at %v, want %q at %v", got, nums, tt.lines, tt.numbers)
			}
			if _, _, err := in.Next(); err != io.EOF {
				t.Errorf("Next after EOF = %v, want io.EOF again", err)
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	saved := maxLine
	maxLine = 3 << 20
	defer func() { maxLine = saved }()
	big := `{"id":"big","s":"` + strings.Repeat("x", 3<<20-40) + `"}`
	tooBig := `{"id":"huge","s":"` + strings.Repeat("y", 3<<20+10) + `"}`
	for _, comp := range []string{"plain", "zstd"} {
		t.Run(comp, func(t *testing.T) {
			data := []byte("{\"id\":\"a\"}\n" + big + "\n{\"id\":\"b\"}\n" + tooBig + "\n")
			if comp == "zstd" {
				data = zstdBytes(t, data)
			}
			in := openBytes(t, data)
			got, err := readAll(t, in)
			if len(got) != 3 || got[1] != big || got[2] != `{"id":"b"}` {
				t.Fatalf("got %d lines before the long one, want 3 with the big record intact", len(got))
			}
			var le *LineError
			if !errors.As(err, &le) || le.Line != 4 || !strings.Contains(err.Error(), "line longer than 3 MiB") {
				t.Fatalf("err = %v, want a LineError at line 4 about the limit", err)
			}
		})
	}
}

func TestTenMegabyteRecord(t *testing.T) {
	rec := `{"id":"ten","text":"` + strings.Repeat("lorem ipsum ", 10<<20/12) + `"}`
	for _, c := range []Compression{None, Gzip, Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			var buf bytes.Buffer
			buf.WriteString(`{"id":"before"}` + "\n" + rec + "\n" + `{"id":"after"}` + "\n")
			data := buf.Bytes()
			switch c {
			case Gzip:
				data = gzipBytes(t, data)
			case Zstd:
				data = zstdBytes(t, data)
			}
			got, err := readAll(t, openBytes(t, data))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || got[1] != rec || got[2] != `{"id":"after"}` {
				t.Fatalf("got %d lines, want the 10 MB record intact between two small ones", len(got))
			}
		})
	}
}

// zstdFrameEnds walks zstd frame and block headers (RFC 8878 §3.1) and returns
// the offset just past each frame, so tests can cut a file exactly between frames.
func zstdFrameEnds(t *testing.T, b []byte) []int {
	t.Helper()
	var ends []int
	i := 0
	for i < len(b) {
		if binary.LittleEndian.Uint32(b[i:]) != 0xfd2fb528 {
			t.Fatalf("no zstd magic at offset %d", i)
		}
		fhd := b[i+4]
		i += 5
		single := fhd&0x20 != 0
		if !single {
			i++ // window descriptor
		}
		i += []int{0, 1, 2, 4}[fhd&3]
		fcs := []int{0, 2, 4, 8}[fhd>>6]
		if fhd>>6 == 0 && single {
			fcs = 1
		}
		i += fcs
		for {
			h := int(b[i]) | int(b[i+1])<<8 | int(b[i+2])<<16
			i += 3
			size := h >> 3
			if (h>>1)&3 == 1 { // RLE block: one byte repeated
				size = 1
			}
			i += size
			if h&1 == 1 {
				break
			}
		}
		if fhd&4 != 0 {
			i += 4 // content checksum
		}
		ends = append(ends, i)
	}
	if i != len(b) {
		t.Fatalf("frames end at %d, file has %d bytes", i, len(b))
	}
	return ends
}

// gzipMemberEnds returns the offset just past each gzip member.
func gzipMemberEnds(t *testing.T, b []byte) []int {
	t.Helper()
	r := bytes.NewReader(b) // a ByteReader, so gzip reads no further than each member
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	var ends []int
	for {
		zr.Multistream(false)
		if _, err := io.Copy(io.Discard, zr); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, len(b)-r.Len())
		if err := zr.Reset(r); err == io.EOF {
			return ends
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// writeOutput writes lines through an Output to a file and returns its bytes.
func writeOutput(t *testing.T, c Compression, lines []string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	o, err := Create(path, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := o.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func isPrefix(got, all []string) bool {
	if len(got) > len(all) {
		return false
	}
	for i := range got {
		if got[i] != all[i] {
			return false
		}
	}
	return true
}

// The buffers of chunks already written are filled again (chunkBufs): two
// outputs at once, of long lines over several chunks each, come back line
// for line, plain and compressed. A buffer given back before the file got
// it is a data race between the write and the next lines, which -race
// (make test) reports here.
func TestChunkBuffersReused(t *testing.T) {
	lines := corpus(200, 3)
	for i := range lines {
		lines[i] = strings.Repeat(lines[i], 1+50_000/len(lines[i])) // ~50 KB: 10 MB in all
	}
	write := func(path string, c Compression) error {
		o, err := Create(path, c, nil)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if err := o.WriteLine([]byte(l)); err != nil {
				return err
			}
		}
		return o.Close()
	}
	for _, c := range []Compression{None, Zstd, Gzip} {
		t.Run(c.String(), func(t *testing.T) {
			paths := []string{filepath.Join(t.TempDir(), "a.jsonl"), filepath.Join(t.TempDir(), "b.jsonl")}
			done := make(chan error)
			go func() { done <- write(paths[1], c) }()
			if err := errors.Join(write(paths[0], c), <-done); err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				got, err := readAll(t, openBytes(t, data))
				if err != nil || !slices.Equal(got, lines) {
					t.Fatalf("%s: %d of %d lines read back, %v", p, len(got), len(lines), err)
				}
			}
		})
	}
}

func TestChunkedOutputAndTruncation(t *testing.T) {
	// ~9 MB of text: three chunks, so two frame (member) boundaries to cut at.
	lines := corpus(15500, 2)
	tests := []struct {
		c    Compression
		ends func(*testing.T, []byte) []int
	}{
		{Zstd, zstdFrameEnds},
		{Gzip, gzipMemberEnds},
	}
	for _, tt := range tests {
		t.Run(tt.c.String(), func(t *testing.T) {
			data := writeOutput(t, tt.c, lines)
			ends := tt.ends(t, data)
			if len(ends) < 3 {
				t.Fatalf("%d bytes of output hold %d frames; want one per %d MiB chunk", len(data), len(ends), ChunkSize>>20)
			}
			got, err := readAll(t, openBytes(t, data))
			if err != nil || len(got) != len(lines) {
				t.Fatalf("full output: %d lines, %v", len(got), err)
			}
			prev := 0
			for k, end := range ends {
				// A prefix ending between frames is a complete, smaller stream: what a
				// killed job leaves behind once its last whole chunk reached the disk.
				got, err := readAll(t, openBytes(t, data[:end]))
				if err != nil {
					t.Errorf("prefix through frame %d: %v", k, err)
				}
				if !isPrefix(got, lines) || len(got) <= prev {
					t.Errorf("prefix through frame %d: %d lines, not a growing prefix of the input", k, len(got))
				}
				prev = len(got)

				if k == len(ends)-1 {
					break
				}
				// A cut inside the next frame: every line of the complete frames comes
				// out first, then a LineError wrapping ErrTruncated.
				for _, cut := range []int{end + 3, end + (ends[k+1]-end)/2, ends[k+1] - 1} {
					in := openBytes(t, data[:cut])
					got, err := readAll(t, in)
					if !isPrefix(got, lines) || len(got) < prev {
						t.Errorf("cut at %d: %d lines, want at least the %d of the complete frames, as a prefix", cut, len(got), prev)
					}
					var le *LineError
					if !errors.As(err, &le) || !errors.Is(err, ErrTruncated) {
						t.Fatalf("cut at %d: err = %v, want a LineError wrapping ErrTruncated", cut, err)
					}
					if le.File != "-" || !strings.Contains(err.Error(), "truncated "+tt.c.String()) || !strings.Contains(err.Error(), fmt.Sprintf("after line %d", len(got))) {
						t.Errorf("cut at %d: message %q should name the file, the format and the last line read (%d)", cut, err, len(got))
					}
				}
			}
		})
	}
}

func TestOutputReadableByCLI(t *testing.T) {
	lines := corpus(12000, 3) // a few chunks
	want := joinLines(lines)
	tests := []struct {
		c    Compression
		tool string
	}{
		{Zstd, "zstd"},
		{Gzip, "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			if _, err := exec.LookPath(tt.tool); err != nil {
				t.Skipf("%s CLI not installed (apt-get install zstd gzip): %v", tt.tool, err)
			}
			cmd := exec.Command(tt.tool, "-dc")
			cmd.Stdin = bytes.NewReader(writeOutput(t, tt.c, lines))
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s -dc: %v", tt.tool, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s -dc gave %d bytes, want the %d written", tt.tool, len(got), len(want))
			}
		})
	}
}

func TestOutputToStdout(t *testing.T) {
	for _, c := range []Compression{None, Gzip, Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			o, err := Create("-", c, f)
			if err != nil {
				t.Fatal(err)
			}
			lines := corpus(50, 4)
			for i, l := range lines {
				// Both ways of writing a line give the same stream.
				write := func() error { return o.WriteLine([]byte(l)) }
				if i%2 == 1 {
					write = func() error { return o.WriteFunc(func(dst []byte) []byte { return append(dst, l...) }) }
				}
				if err := write(); err != nil {
					t.Fatal(err)
				}
			}
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			if o.Records() != len(lines) {
				t.Errorf("Records = %d", o.Records())
			}
			if err := o.WriteLine([]byte(`{"id":"late"}`)); err == nil {
				t.Error("WriteLine after Close succeeded")
			}
			if _, err := o.Write([]byte("late\n")); err == nil {
				t.Error("Write after Close succeeded")
			}
			in, err := Open(f.Name(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.Compression != c {
				t.Errorf("wrote %v, sniffed %v", c, in.Compression)
			}
			got, err := readAll(t, in)
			if err != nil || strings.Join(got, "\n") != strings.Join(lines, "\n") {
				t.Errorf("read back %d lines (%v), want %d", len(got), err, len(lines))
			}
		})
	}
}

func TestOutputFileLifecycle(t *testing.T) {
	tests := []struct {
		name        string
		end         func(*Output) error
		final, part bool // which names exist afterwards
	}{
		{"close renames", (*Output).Close, true, false},
		{"abandon keeps the partial file", (*Output).Abandon, false, true},
		{"discard removes it", func(o *Output) error { o.Discard(); return nil }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.jsonl.zst")
			o, err := Create(path, Zstd, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.WriteLine([]byte(`{"id":"a"}`)); err != nil {
				t.Fatal(err)
			}
			if err := o.Flush(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%s exists before the output is complete", path)
			}
			if _, err := os.Stat(PartialName(path)); err != nil {
				t.Errorf("partial file missing while writing: %v", err)
			}
			if err := tt.end(o); err != nil {
				t.Fatal(err)
			}
			exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
			if exists(path) != tt.final || exists(PartialName(path)) != tt.part {
				t.Fatalf("after end: final exists %v (want %v), partial exists %v (want %v)", exists(path), tt.final, exists(PartialName(path)), tt.part)
			}
			if !tt.final && !tt.part {
				return
			}
			name := path
			if tt.part {
				name = PartialName(path)
			}
			in, err := Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if got, err := readAll(t, in); err != nil || len(got) != 1 || got[0] != `{"id":"a"}` {
				t.Errorf("content %q, %v; want the one record, complete", got, err)
			}
		})
	}
}

func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("{\"id\":1}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	partialIn := PartialName(filepath.Join(dir, "x.jsonl"))
	if err := os.WriteFile(partialIn, []byte("{\"id\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		out    string
		inputs []string
		same   bool
	}{
		{"same path", in, []string{other, in}, true},
		{"path spelled differently", filepath.Join(dir, ".", "in.jsonl"), []string{in}, true},
		{"symlink to an input", link, []string{in}, true},
		{"hard link to an input", hard, []string{in}, true},
		{"other file", other, []string{in}, false},
		{"new file", filepath.Join(dir, "new.jsonl"), []string{in}, false},
		{"stdout", "-", []string{in}, false},
		{"stdin input", other, []string{"-"}, false},
		{"its .partial is an input", filepath.Join(dir, "x.jsonl"), []string{partialIn}, true},
		{"stdin is the output", in, []string{"-"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin := io.Reader(strings.NewReader(""))
			if tt.name == "stdin is the output" {
				f, err := os.Open(in)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdin = f
			}
			err := CheckNotInput(tt.out, tt.inputs, stdin)
			if errors.Is(err, ErrSameFile) != tt.same {
				t.Errorf("CheckNotInput(%s, %v) = %v, want same=%v", tt.out, tt.inputs, err, tt.same)
			}
		})
	}
}

func TestParseCompression(t *testing.T) {
	tests := []struct {
		in   string
		c    Compression
		auto bool
		bad  bool
	}{
		{"", None, true, false},
		{"auto", None, true, false},
		{"zstd", Zstd, false, false},
		{"ZST", Zstd, false, false},
		{"gzip", Gzip, false, false},
		{"gz", Gzip, false, false},
		{"none", None, false, false},
		{"plain", None, false, false},
		{"xz", None, false, true},
		{"lz4", None, false, true},
	}
	for _, tt := range tests {
		c, auto, err := ParseCompression(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && (c != tt.c || auto != tt.auto)) {
			t.Errorf("ParseCompression(%q) = %v, %v, %v", tt.in, c, auto, err)
		}
	}
	for name, want := range map[string]Compression{"a.jsonl.zst": Zstd, "a.ZSTD": Zstd, "dir.gz/a.jsonl": None, "a.jsonl.gz": Gzip, "a.jsonl": None, "-": None} {
		if got := ByExtension(name); got != want {
			t.Errorf("ByExtension(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestReadFileSkipsBOM(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"bom": "\xef\xbb\xbfdebt\nESG\n", "plain": "debt\nESG\n", "bom only in the middle": "debt\n\xef\xbb\xbfESG\n"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		b, err := ReadFile(p)
		want := strings.TrimPrefix(data, "\xef\xbb\xbf")
		if err != nil || string(b) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, b, err, want)
		}
		f, err := OpenText(p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(f)
		f.Close()
		if string(b) != want {
			t.Errorf("OpenText(%s) reads %q, want %q", name, b, want)
		}
	}
}

// An output asked for its checksum reports the sha256 and size of the file
// as stored, for the manifest a reader checks the part against; WriteFile
// completes a whole file the same way, replacing (never following) a link
// at its name or its temporary name.
func TestChecksumAndWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "part.jsonl.zst")
	o, err := Create(path, Zstd, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Checksum()
	for i := range 1000 {
		o.WriteLine(fmt.Appendf(nil, `{"id":"r%d"}`, i))
	}
	if sha, _ := o.Sum(); sha != "" {
		t.Errorf("Sum before Close = %q", sha)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	sha, size := o.Sum()
	if want := fmt.Sprintf("%x", sha256.Sum256(b)); sha != want || size != int64(len(b)) {
		t.Errorf("Sum = %s, %d; the file: %s, %d", sha, size, want, len(b))
	}

	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(dir, "m.json")
	os.Symlink(victim, link)
	if err := WriteFile(link, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(victim, PartialName(link+"2"))
	if err := WriteFile(link+"2", []byte("{}\n")); err != nil {
		t.Error(err)
	}
	if b, _ := os.ReadFile(link + "2"); string(b) != "{}\n" {
		t.Errorf("written through a link planted at the temporary name: %q", b)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink != 0 {
		t.Error("the link is still there")
	}
}

// A file that has no business being large is refused past its limit, and
// a device is refused without reading it; a pipe is read up to the limit.
func TestReadFileMax(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "key")
	os.WriteFile(small, []byte("\xef\xbb\xbfsk-123\n"), 0o644)
	if b, err := ReadFileMax(small, 16); err != nil || string(b) != "sk-123\n" {
		t.Errorf("a small file: %q, %v", b, err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 17), 0o644)
	if _, err := ReadFileMax(big, 16); err == nil || !strings.Contains(err.Error(), "larger than 16 bytes") {
		t.Errorf("a file over the limit: %v", err)
	}
	if _, err := ReadFileMax("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "a device") {
		t.Errorf("/dev/zero: %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(make([]byte, 64))
		w.Close()
	}()
	if _, err := ReadFileMax(fmt.Sprintf("/dev/fd/%d", r.Fd()), 16); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a pipe over the limit: %v", err)
	}
	r.Close()
}
