// Package longgenbench implements LongGenBench (Wu et al., ICLR 2025): one
// very long output (a diary, a year of menus, a skyscraper, a city) with
// events required at single entries, over a range of entries and
// periodically; split into entries, each check judged, reduced to CR,
// STIC-1, STIC-2 and wAvg.
package longgenbench
