// Names that Pygments' Python lexer colours on the server (Name.Builtin, Name.Builtin.Pseudo and
// Name.Exception), coloured the same way here so that code looks alike in the editor and on a page.
import { RangeSetBuilder } from "@codemirror/state";
import { Decoration, ViewPlugin } from "@codemirror/view";
import { syntaxTree } from "@codemirror/language";

const FUNCTIONS_AND_TYPES = `__import__ abs aiter all any bin bool bytearray breakpoint bytes callable chr classmethod
  compile complex delattr dict dir divmod enumerate eval filter float format frozendict frozenset getattr globals
  hasattr hash hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct
  open ord pow print property range repr reversed round sentinel set setattr slice sorted staticmethod str sum super
  tuple type vars zip`;
const PSEUDO = "self cls Ellipsis NotImplemented";
const EXCEPTIONS = `ArithmeticError AssertionError AttributeError BaseException BufferError BytesWarning
  DeprecationWarning EOFError EnvironmentError Exception FloatingPointError FutureWarning GeneratorExit IOError
  ImportError ImportWarning IndentationError IndexError KeyError KeyboardInterrupt LookupError MemoryError NameError
  NotImplementedError OSError OverflowError PendingDeprecationWarning ReferenceError ResourceWarning RuntimeError
  RuntimeWarning StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TypeError
  UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning
  UserWarning ValueError VMSError Warning WindowsError ZeroDivisionError BlockingIOError ChildProcessError
  ConnectionError BrokenPipeError ConnectionAbortedError ConnectionRefusedError ConnectionResetError
  FileExistsError FileNotFoundError InterruptedError IsADirectoryError NotADirectoryError PermissionError
  ProcessLookupError TimeoutError StopAsyncIteration ModuleNotFoundError RecursionError EncodingWarning`;

const marks = new Map();
const kinds = [
  [FUNCTIONS_AND_TYPES, "tok-builtin"],
  [PSEUDO, "tok-builtin"],
  [EXCEPTIONS, "tok-exception"],
];
for (const [names, cls] of kinds) {
  const mark = Decoration.mark({ class: cls });
  for (const name of names.split(/\s+/)) marks.set(name, mark);
}

// A builtin's name given to a new function or class is a definition, coloured as such.
const DEFINITIONS = new Set(["FunctionDefinition", "ClassDefinition"]);

function decorate(view) {
  const builder = new RangeSetBuilder();
  const tree = syntaxTree(view.state);
  for (const { from, to } of view.visibleRanges) {
    tree.iterate({
      from,
      to,
      enter(node) {
        if (node.name !== "VariableName" || DEFINITIONS.has(node.node.parent?.name)) return;
        const mark = marks.get(view.state.sliceDoc(node.from, node.to));
        if (mark) builder.add(node.from, node.to, mark);
      },
    });
  }
  return builder.finish();
}

export const builtinHighlighting = ViewPlugin.fromClass(
  class {
    constructor(view) {
      this.decorations = decorate(view);
    }

    update(update) {
      const reparsed = syntaxTree(update.startState) !== syntaxTree(update.state);
      if (update.docChanged || update.viewportChanged || reparsed) this.decorations = decorate(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);
