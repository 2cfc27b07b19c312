package pystr

// IntMaxStrDigits is sys.get_int_max_str_digits() of CPython 3.10.7 and
// later (3.11 and 3.12 too): int() of a text of more decimal digits, a
// decimal literal that long in eval(), and str() of an int that long raise
// (ValueError, or SyntaxError for the literal). Leading zeros count; a sign
// and underscores do not. The official scorers' numbers come from such
// releases of 3.10 (docs/lifbench.md).
const IntMaxStrDigits = 4300
