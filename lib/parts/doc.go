// Package parts names, describes and checks the part files of a sharded run:
// part-IIIII-of-NNNNN.<ext>, each with part-IIIII-of-NNNNN.manifest.json
// beside it. The shard count travels in the name and the manifest so that it
// is never guessed from how many tasks a (re-)submission happens to have, and
// a folder of parts can be checked as a unit before anything reads it.
package parts
