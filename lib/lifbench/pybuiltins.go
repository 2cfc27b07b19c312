package lifbench

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// pyObject is a value eval() reaches by name but no literal spells (a
// builtin function or class, a module, NotImplemented): its str() and
// repr() are text. Where CPython's text holds a memory address or a file
// path, text is a stand-in with "…" in their place: like the real text it
// occurs in no prompt and names no document field, which is all the
// find_dup rubric asks of it.
type pyObject struct{ text string }

// The names eval() resolves in the official find_dup scorer, whose two
// eval calls (is_valid_eval's and the scorer's own) both see CPython 3.10's
// builtins, the names the site module adds, and the globals of the
// evaluation module (EvaluateFunc, imported as a top-level module).
// Listed by what str() gives; generated from CPython 3.10.13's dir(builtins).
var (
	pyBuiltinFunctions = strings.Fields(`__build_class__ __import__ abs aiter all anext any ascii bin
		breakpoint callable chr compile delattr dir divmod eval exec format getattr globals hasattr hash
		hex id input isinstance issubclass iter len locals max min next oct open ord pow print repr round
		setattr sorted sum vars`)
	pyBuiltinClasses = strings.Fields(`ArithmeticError AssertionError AttributeError BaseException
		BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError
		ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError
		EncodingWarning Exception FileExistsError FileNotFoundError FloatingPointError FutureWarning
		GeneratorExit ImportError ImportWarning IndentationError IndexError InterruptedError
		IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError
		NotADirectoryError NotImplementedError OSError OverflowError PendingDeprecationWarning
		PermissionError ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError
		RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit
		TabError TimeoutError TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError
		UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError
		bool bytearray bytes classmethod complex dict enumerate filter float frozenset int list map
		memoryview object property range reversed set slice staticmethod str super tuple type zip`)
	// The evaluation module's functions (evaluation/EvaluateFunc.py).
	pyModuleFunctions = strings.Fields(`judge_multidoc_batch_label op_answer2map
		judge_multidoc_find_dup_text get_input_text parse_oredered_input_list_text find_json_list
		find_json_dict directly_load_json extract_in_brackets compare_list contain_list
		judge_onedoc_extract count_outer_brackets compare_sentences judge_onedoc_repeat judge_onedoc_qa
		is_valid_json is_valid_eval min_edi_dis judge_label_equal_output judge_labels_equal_outputs
		judge_list_input_blur_offset_query`)
	pyOtherNames = map[string]any{
		"True": true, "False": false, "None": nil, // reached by name only through NFKC (Ｔｒｕｅ)
		"Ellipsis":         pyEllipsis{},
		"NotImplemented":   pyObject{"NotImplemented"},
		"__debug__":        true,
		"EnvironmentError": pyObject{"<class 'OSError'>"},
		"IOError":          pyObject{"<class 'OSError'>"},
		// site
		"copyright": pyObject{"Copyright (c) 2001-… Python Software Foundation.\nAll Rights Reserved.…"},
		"credits":   pyObject{"    Thanks to CWI, CNRI, BeOpen.com, Zope Corporation and a cast of thousands\n    for supporting Python development.  See www.python.org for more information."},
		"license":   pyObject{"Type license() to see the full license text"},
		"exit":      pyObject{"Use exit() or Ctrl-D (i.e. EOF) to exit"},
		"quit":      pyObject{"Use quit() or Ctrl-D (i.e. EOF) to exit"},
		"help":      pyObject{"Type help() for interactive help, or help(object) for help about object."},
		// the module's globals, which come before the builtins of the same name
		"re":           pyObject{"<module 're' from '…/re.py'>"},
		"json":         pyObject{"<module 'json' from '…/json/__init__.py'>"},
		"__name__":     "EvaluateFunc",
		"__doc__":      nil,
		"__package__":  "",
		"__file__":     "…/EvaluateFunc.py",
		"__cached__":   "…/__pycache__/EvaluateFunc.cpython-310.pyc",
		"__loader__":   pyObject{"<_frozen_importlib_external.SourceFileLoader object at 0x…>"},
		"__spec__":     pyObject{"ModuleSpec(name='EvaluateFunc', loader=<_frozen_importlib_external.SourceFileLoader object at 0x…>, origin='…/EvaluateFunc.py')"},
		"__builtins__": pyObject{"{'__name__': 'builtins', …}"},
	}
)

// pyName is the value of a name in the official eval() calls. Python reads
// an identifier in NFKC form, so ｉｄ is id. Names that only one of the two
// calls sees are not here: a local of either function (is_valid_eval's
// "expression", the scorer's "answer") fails one of them, so the match is
// either invalid or, for "expression", stops the official scorer (a
// NameError it does not catch; docs/lifbench.md).
func pyName(ident string) (any, bool) {
	name := norm.NFKC.String(ident)
	if v, ok := pyOtherNames[name]; ok {
		return v, true
	}
	switch {
	case slices.Contains(pyModuleFunctions, name):
		return pyObject{"<function " + name + " at 0x…>"}, true
	case slices.Contains(pyBuiltinFunctions, name):
		return pyObject{"<built-in function " + name + ">"}, true
	case slices.Contains(pyBuiltinClasses, name):
		return pyObject{"<class '" + name + "'>"}, true
	}
	return nil, false
}
