#!/usr/bin/env python3
"""Writes pyaliases.go: the Unicode name aliases CPython's \\N{...} accepts.

Run by `go generate ./lib/lifbench` with Perl 5.36 (its unicore/Name.pl holds
Unicode 14.0's names and aliases, NameAliases.txt included) and CPython 3.11
(whose unicode_escape decoder is what the official LIFBench scorer runs).
An entry is kept when it names one character, is not unicodedata.name() of
that character (the names come from golang.org/x/text/unicode/runenames at
run time), and CPython decodes \\N{alias} to that very character.
"""
import glob
import sys
import unicodedata

NAME_PL = sorted(glob.glob("/usr/share/perl/5.36*/unicore/Name.pl"))

HEADER = """// Code generated from Perl's unicore/Name.pl and CPython; DO NOT EDIT.

// The table holds the Unicode name aliases (NameAliases.txt: corrections,
// control names, alternates, figments, abbreviations) of Perl 5.36's
// unicore/Name.pl (Unicode 14.0) that CPython 3.11's unicode_escape decodes
// in \\N{...} to the same character: every single-character entry whose name
// is not unicodedata.name() of its character, kept when
// ('\\\\N{%s}' % alias).encode().decode('unicode_escape') == chr(cp).

package lifbench

// nameAliases maps an upper-case alias to its character.
var nameAliases = map[string]rune{
"""


def entries(path):
    text = open(path, encoding="utf-8").read()
    body = text.split("<<'END';\n", 1)[1].split("\nEND\n", 1)[0]
    for block in body.split("\n\n"):
        lines = block.strip("\n").split("\n")
        if len(lines) == 2:
            yield lines[0], lines[1]


def main():
    if sys.version_info[:2] != (3, 11) or not NAME_PL:
        sys.exit("pyaliases_gen.py wants CPython 3.11 and Perl 5.36's unicore/Name.pl (the sources the table was made from)")
    aliases = {}
    for code, name in entries(NAME_PL[0]):
        if " " in code:
            continue  # a named sequence of several characters
        ch = chr(int(code, 16))
        if unicodedata.name(ch, None) == name:
            continue
        try:
            decoded = ("\\N{%s}" % name).encode().decode("unicode_escape")
        except UnicodeDecodeError:
            continue
        if decoded == ch:
            aliases[name] = int(code, 16)
    out = HEADER
    for name in sorted(aliases):
        out += '\t"%s": 0x%04X,\n' % (name, aliases[name])
    out += "}\n"
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
