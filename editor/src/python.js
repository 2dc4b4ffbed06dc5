// Python support: CodeMirror's Python language with a few more highlighted nodes, token classes that
// editor.css colours like the server's Pygments styles, builtins among them, and VS Code's dedent after a
// block-ending line.
import { countColumn } from "@codemirror/state";
import { indentService, LanguageSupport, syntaxHighlighting, syntaxTree } from "@codemirror/language";
import { globalCompletion, localCompletionSource, pythonLanguage } from "@codemirror/lang-python";
import { styleTags, tagHighlighter, tags as t } from "@lezer/highlight";
import { builtinHighlighting } from "./builtins.js";

const language = pythonLanguage.configure({
  props: [
    styleTags({
      // A decorator reads as one name, as VS Code colours it; the braces of an f-string field stand out
      // from the string, as Pygments colours them.
      'Decorator/VariableName Decorator/"."': t.meta,
      'FormatReplacement/"{" FormatReplacement/"}"': t.special(t.brace),
      // The stars of *args and **kwargs are operators, as Pygments has them, not modifiers like `async`.
      'ParamList/"*" ParamList/"**" ArgList/"*" ArgList/"**"': t.operator,
      "FormatConversion FormatSpec": t.special(t.string),
    }),
  ],
});

const highlighter = tagHighlighter([
  { tag: [t.keyword, t.modifier], class: "tok-keyword" },
  { tag: t.operatorKeyword, class: "tok-keyword-operator" },
  { tag: [t.bool, t.null], class: "tok-constant" },
  { tag: t.special(t.brace), class: "tok-interpolation" },
  { tag: t.escape, class: "tok-escape" },
  { tag: t.string, class: "tok-string" },
  { tag: t.number, class: "tok-number" },
  { tag: t.operator, class: "tok-operator" },
  { tag: t.comment, class: "tok-comment" },
  { tag: t.function(t.definition(t.variableName)), class: "tok-function" },
  { tag: t.definition(t.className), class: "tok-class" },
  { tag: t.meta, class: "tok-decorator" },
]);

const BLOCK_END = /^\s*(?:(?:break|continue|pass)\s*(?:#.*)?|(?:raise|return)\b.*)$/;
// Strings and comments: the brackets and keywords inside them are text.
const TEXT_NODES = new Set(["String", "FormatString", "Comment"]);
const BRACKET_DEPTH = { "(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1 };

// Whether the line leaves a bracket open, counted on the syntax tree so that text in strings is skipped.
function openBrackets(state, line) {
  let depth = 0;
  syntaxTree(state).iterate({
    from: line.from,
    to: line.from + line.text.length,
    enter(node) {
      if (TEXT_NODES.has(node.name)) return false;
      if (node.from >= line.from && node.name in BRACKET_DEPTH) depth += BRACKET_DEPTH[node.name];
      return undefined;
    },
  });
  return depth > 0;
}

// Whether the code at pos is really part of a string, such as a docstring line that starts with "return".
function insideText(state, pos) {
  for (let node = syntaxTree(state).resolveInner(pos, 1); node; node = node.parent) {
    if (TEXT_NODES.has(node.name) && node.from < pos) return true;
  }
  return false;
}

// Nothing after `return`, `raise`, `pass`, `break` or `continue` runs in the same block, so a new line
// after one starts a level out, as in VS Code. A line that already has code (an `else:` being typed, a
// line the reader dedented further by hand) is left to the Python language's own indentation.
function dedentAfterBlockEnd(context, pos) {
  const { state } = context;
  if (/\S/.test(context.textAfterPos(pos))) return undefined;
  const previous = context.simulatedBreak === pos ? context.lineAt(pos, -1) : pos > 0 && state.doc.lineAt(pos - 1);
  if (!previous || !BLOCK_END.test(previous.text) || /\\$/.test(previous.text)) return undefined;
  const leading = /^\s*/.exec(previous.text)[0];
  if (openBrackets(state, previous) || insideText(state, previous.from + leading.length)) return undefined;
  const indent = countColumn(leading, state.tabSize);
  return Math.max(0, indent - context.unit);
}

export function pythonSupport() {
  return [
    new LanguageSupport(language, [
      language.data.of({ autocomplete: localCompletionSource }),
      language.data.of({ autocomplete: globalCompletion }),
    ]),
    indentService.of(dedentAfterBlockEnd),
    syntaxHighlighting(highlighter),
    builtinHighlighting,
  ];
}
