package plot_test

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium: Debian's package (installed
// by .ci/run) or another build on PATH.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestChromiumRendersPage opens the report in a real browser, with no
// network fetch allowed (the page needs none), and checks the
// screenshot shows the figures: enough non-white pixels, and the first
// series colour, which only the inline SVG draws.
func TestChromiumRendersPage(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("chromium not found: install Debian's chromium package (.ci/run does) to render the report in a browser")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, page(t), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1000,3000",
		"--screenshot="+shot, "file://"+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	var ink, blue int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 245 || g < 245 || bl < 245 {
				ink++
			}
			// The first series colour (#0072B2), with anti-aliasing slack.
			if r < 40 && g > 90 && g < 140 && bl > 150 && bl < 210 {
				blue++
			}
		}
	}
	total := b.Dx() * b.Dy()
	t.Logf("%dx%d screenshot: %d non-white pixels, %d of the first series colour", b.Dx(), b.Dy(), ink, blue)
	if ink < total/50 {
		t.Errorf("screenshot is nearly blank: %d of %d pixels are not white", ink, total)
	}
	if blue < 500 {
		t.Errorf("screenshot shows %d pixels of the first series colour: the SVG figures did not render", blue)
	}
}
