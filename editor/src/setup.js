// The editor's extensions: CodeMirror's basic setup, assembled here so that each key binding is chosen.
import { Compartment, EditorState, Prec } from "@codemirror/state";
import {
  EditorView,
  crosshairCursor,
  drawSelection,
  dropCursor,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  placeholder,
  rectangularSelection,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching, foldGutter, foldKeymap, indentOnInput, indentUnit } from "@codemirror/language";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { autocompletion, closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { vim } from "@replit/codemirror-vim";
import { emacs } from "@replit/codemirror-emacs";
import { pythonSupport } from "./python.js";
import { completionKeymap, escapeKeymap, indentationKeymap, runKeymap } from "./keys.js";
import { theme } from "./theme.js";

export const readOnlyCompartment = new Compartment();

// Still focusable and selectable when read-only, so the code can be searched and copied.
export function readOnlyExtensions(readOnly) {
  return [
    EditorState.readOnly.of(readOnly),
    EditorView.editorAttributes.of({ class: readOnly ? "interview-editor-readonly" : "" }),
  ];
}

export const keymapCompartment = new Compartment();

// The key bindings a user may pick, by the name the page stores. Vim and Emacs read keys in a plugin of their
// own, which must come before every keymap (ours are Prec.highest too) so that their keys win over the
// default ones: Ctrl-A goes to the line's start in Emacs, Ctrl-D scrolls in Vim.
const keymaps = { default: () => [], vim: () => Prec.highest(vim()), emacs: () => Prec.highest(emacs()) };

export function keymapExtensions(name) {
  const choose = Object.hasOwn(keymaps, name) ? keymaps[name] : null;
  if (!choose) throw new RangeError(`Unknown keymap "${name}": pick one of ${Object.keys(keymaps).join(", ")}`);
  return choose();
}

export function editorExtensions({
  readOnly,
  keymapName,
  placeholder: placeholderText,
  contentAttributes,
  onRun,
  onSubmit,
  onDocChanged,
}) {
  return [
    keymapCompartment.of(keymapExtensions(keymapName)),
    runKeymap({ onRun, onSubmit }),
    completionKeymap,
    lineNumbers(),
    highlightActiveLineGutter(),
    foldGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    dropCursor(),
    EditorState.allowMultipleSelections.of(true),
    EditorState.tabSize.of(4),
    indentUnit.of("    "),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    autocompletion({ defaultKeymap: false, selectOnOpen: false }),
    rectangularSelection(),
    crosshairCursor(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    search({ top: true }),
    pythonSupport(),
    keymap.of([
      ...closeBracketsKeymap,
      ...defaultKeymap,
      ...searchKeymap,
      ...historyKeymap,
      ...foldKeymap,
      ...indentationKeymap,
    ]),
    escapeKeymap,
    theme,
    readOnlyCompartment.of(readOnlyExtensions(readOnly)),
    placeholderText ? placeholder(placeholderText) : [],
    EditorView.contentAttributes.of(contentAttributes),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onDocChanged(update.state.doc.toString());
    }),
  ];
}
