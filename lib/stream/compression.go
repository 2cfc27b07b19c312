package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// Compression is a container format for a JSONL stream.
type Compression int

const (
	None Compression = iota
	Gzip
	Zstd
)

func (c Compression) String() string {
	switch c {
	case Gzip:
		return "gzip"
	case Zstd:
		return "zstd"
	}
	return "none"
}

// ParseCompression reads a --compress value; "auto" returns ok=false.
func ParseCompression(s string) (c Compression, auto bool, err error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return None, true, nil
	case "none", "plain":
		return None, false, nil
	case "gzip", "gz":
		return Gzip, false, nil
	case "zstd", "zst":
		return Zstd, false, nil
	}
	return None, false, fmt.Errorf("--compress %q: want auto, zstd, gzip or none", s)
}

// ByExtension picks the compression a file name asks for.
func ByExtension(name string) Compression {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".zst", ".zstd":
		return Zstd
	case ".gz", ".gzip":
		return Gzip
	}
	return None
}

// UnsupportedError names a compression ifkit recognises but does not read.
type UnsupportedError struct{ Format string }

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("unsupported compression %s: decompress it first (%s -dc FILE | ...) or recompress with zstd or gzip", e.Format, e.Format)
}

// sniff looks at the first bytes without consuming them.
func sniff(br *bufio.Reader) (Compression, error) {
	head, _ := br.Peek(6)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return Gzip, nil
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return Zstd, nil
	case len(head) >= 4 && head[0]&0xf0 == 0x50 && bytes.Equal(head[1:4], []byte{0x2a, 0x4d, 0x18}):
		return Zstd, nil // a skippable frame (metadata) before the data
	case len(head) >= 6 && bytes.Equal(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return None, &UnsupportedError{"xz"}
	case len(head) >= 3 && string(head[:3]) == "BZh":
		return None, &UnsupportedError{"bzip2"}
	}
	return None, nil
}
