package testbin

import (
	"fmt"
	"syscall"
	"testing"
)

// RefusedURL returns the URL of a 127.0.0.1 port that refuses connections
// for the whole test: a socket is bound there but never listens, so no other
// server (another test package runs in parallel) can take the port
// meanwhile, as happened to tests that closed a server and dialled its
// address.
func RefusedURL(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
