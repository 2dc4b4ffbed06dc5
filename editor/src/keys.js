// Key bindings that differ from CodeMirror's defaults, chosen to feel like VS Code for Python.
import { countColumn, EditorSelection, Prec } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { getIndentUnit } from "@codemirror/language";
import { indentLess, indentMore } from "@codemirror/commands";
import {
  acceptCompletion,
  closeCompletion,
  completionStatus,
  moveCompletionSelection,
  selectedCompletionIndex,
  setSelectedCompletion,
  startCompletion,
} from "@codemirror/autocomplete";

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad|iPod/.test(navigator.platform);

// How the key that CodeMirror calls "Mod" is written on this platform.
export const modName = isMac ? "Cmd" : "Ctrl";

// Above every other keymap: Mod-Enter would otherwise insert a blank line.
export function runKeymap({ onRun, onSubmit }) {
  const bindings = [];
  const call = (callback) => () => {
    callback();
    return true;
  };
  if (onRun) {
    bindings.push({ key: "Mod-Enter", run: call(onRun), preventDefault: true });
    bindings.push({ mac: "Ctrl-Enter", run: call(onRun), preventDefault: true });
  }
  if (onSubmit) {
    bindings.push({ key: "Mod-Shift-Enter", run: call(onSubmit), preventDefault: true });
    bindings.push({ mac: "Ctrl-Shift-Enter", run: call(onSubmit), preventDefault: true });
  }
  return Prec.highest(keymap.of(bindings));
}

// With no selection, Tab inserts spaces up to the next tab stop at each cursor, as VS Code does, rather
// than shifting the whole line. In a read-only editor Tab and Shift-Tab are left to the browser, which
// moves focus on (indentLess declines there too).
function indentOrInsertSpaces(view) {
  const { state } = view;
  if (state.readOnly) return false;
  if (state.selection.ranges.some((range) => !range.empty)) return indentMore(view);
  const unit = getIndentUnit(state);
  const transaction = state.changeByRange((range) => {
    const line = state.doc.lineAt(range.head);
    const column = countColumn(line.text.slice(0, range.head - line.from), state.tabSize);
    const spaces = " ".repeat(unit - (column % unit));
    return {
      changes: { from: range.head, insert: spaces },
      range: EditorSelection.cursor(range.head + spaces.length),
    };
  });
  view.dispatch(state.update(transaction, { scrollIntoView: true, userEvent: "input.indent" }));
  return true;
}

// Claiming a bare Escape keeps it from the page's own shortcuts (which blur a focused field, after which
// a stray letter would trigger them) while still opening CodeMirror's window in which Tab leaves the editor.
function armTabFocus(view) {
  view.setTabFocusMode(2000);
  return true;
}

export const indentationKeymap = [
  { key: "Tab", run: indentOrInsertSpaces, shift: indentLess },
];

export const escapeKeymap = Prec.lowest(keymap.of([{ key: "Escape", run: armTabFocus }]));

// Suggestions open with none chosen (see setup.js), so Enter stays a newline unless one was picked with
// the arrow keys; Tab takes the chosen one, or the first.
function acceptWithTab(view) {
  if (completionStatus(view.state) !== "active") return false;
  if (selectedCompletionIndex(view.state) === null) view.dispatch({ effects: setSelectedCompletion(0) });
  return acceptCompletion(view);
}

const whenEditable = (command) => (view) => !view.state.readOnly && command(view);

export const completionKeymap = Prec.highest(
  keymap.of([
    { key: "Ctrl-Space", run: whenEditable(startCompletion) },
    { mac: "Alt-`", run: whenEditable(startCompletion) },
    { mac: "Alt-i", run: whenEditable(startCompletion) },
    { key: "Escape", run: closeCompletion },
    { key: "ArrowDown", run: moveCompletionSelection(true) },
    { key: "ArrowUp", run: moveCompletionSelection(false) },
    { key: "PageDown", run: moveCompletionSelection(true, "page") },
    { key: "PageUp", run: moveCompletionSelection(false, "page") },
    { key: "Enter", run: acceptCompletion },
    { key: "Tab", run: acceptWithTab },
  ]),
);
