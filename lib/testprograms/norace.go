//go:build !race

package testprograms

const raceEnabled = false
