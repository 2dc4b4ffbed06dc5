// CodeMirror's own parts, styled through the CSS variables of editor.css. The light and dark values live
// there, as light-dark() pairs, so the editor follows the site's theme with no JavaScript of its own.
import { EditorView } from "@codemirror/view";

const focusedSelection = "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground";

export const theme = EditorView.theme({
  "&": {
    color: "var(--editor-text)",
    backgroundColor: "var(--editor-bg)",
    fontSize: "var(--editor-font-size)",
    maxHeight: "var(--editor-max-height)",
  },
  "&.cm-focused": { outline: "none" },
  ".cm-scroller": {
    fontFamily: "var(--editor-font)",
    lineHeight: "var(--editor-line-height)",
    overflow: "auto",
  },
  // Both columns, or a short file would leave the gutter shorter than the text area beside it.
  ".cm-content, .cm-gutter": {
    minHeight: "calc(var(--editor-rows) * var(--editor-line-height) * 1em + 8px)",
  },
  ".cm-content": { caretColor: "var(--editor-cursor)" },
  ".cm-cursor, .cm-dropCursor": { borderLeft: "2px solid var(--editor-cursor)" },
  [`.cm-selectionBackground, ${focusedSelection}`]: { backgroundColor: "var(--editor-selection)" },
  ".cm-content ::selection": { backgroundColor: "var(--editor-selection)" },
  ".cm-activeLine": { backgroundColor: "var(--editor-active-line)" },
  ".cm-gutters": {
    backgroundColor: "var(--editor-gutter-bg)",
    color: "var(--editor-gutter-text)",
    borderRight: "1px solid var(--editor-border-subtle)",
  },
  ".cm-lineNumbers .cm-gutterElement": { padding: "0 0.6em 0 1em" },
  ".cm-activeLineGutter": { backgroundColor: "var(--editor-active-line)", color: "var(--editor-text)" },
  ".cm-foldGutter .cm-gutterElement": { padding: "0 0.25em", cursor: "pointer" },
  ".cm-foldPlaceholder": {
    backgroundColor: "var(--editor-panel-bg)",
    border: "1px solid var(--editor-border)",
    color: "var(--editor-muted)",
  },
  "&.cm-focused .cm-matchingBracket": {
    backgroundColor: "var(--editor-bracket)",
    outline: "1px solid var(--editor-bracket-outline)",
  },
  "&.cm-focused .cm-nonmatchingBracket": {
    backgroundColor: "var(--editor-error-bg)",
    color: "var(--editor-error)",
  },
  ".cm-searchMatch": {
    backgroundColor: "var(--editor-search-match)",
    outline: "1px solid var(--editor-search-outline)",
  },
  ".cm-searchMatch.cm-searchMatch-selected": { backgroundColor: "var(--editor-search-current)" },
  ".cm-selectionMatch": { backgroundColor: "var(--editor-selection-match)" },
  ".cm-placeholder": { color: "var(--editor-muted)" },
  ".cm-specialChar": { color: "var(--editor-error)" },
  "&.interview-editor-readonly .cm-cursorLayer": { display: "none" },
  "&.interview-editor-readonly": { backgroundColor: "var(--editor-readonly-bg)" },
  ".cm-panels": { backgroundColor: "var(--editor-panel-bg)", color: "var(--editor-text)" },
  ".cm-panels.cm-panels-top": { borderBottom: "1px solid var(--editor-border)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--editor-border)" },
  ".cm-panel.cm-search": { padding: "6px 2.25em 6px 8px", fontFamily: "var(--editor-ui-font)", fontSize: "0.85em" },
  ".cm-panel.cm-search label": { color: "var(--editor-muted)", fontSize: "1em" },
  ".cm-panel.cm-search [name=close]": { color: "var(--editor-muted)", fontSize: "1.4em", right: "6px" },
  ".cm-textfield": {
    backgroundColor: "var(--editor-bg)",
    color: "var(--editor-text)",
    border: "1px solid var(--editor-border)",
    borderRadius: "4px",
    padding: "2px 6px",
    font: "inherit",
  },
  ".cm-textfield:focus": { outline: "2px solid var(--editor-focus)", outlineOffset: "-1px" },
  ".cm-button": {
    backgroundColor: "var(--editor-bg)",
    backgroundImage: "none",
    color: "var(--editor-text)",
    border: "1px solid var(--editor-border)",
    borderRadius: "4px",
    padding: "2px 8px",
    font: "inherit",
  },
  ".cm-button:hover": { backgroundColor: "var(--editor-active-line)" },
  ".cm-button:active": { backgroundImage: "none", backgroundColor: "var(--editor-selection)" },
  ".cm-tooltip": {
    backgroundColor: "var(--editor-panel-bg)",
    color: "var(--editor-text)",
    border: "1px solid var(--editor-border)",
    borderRadius: "6px",
    boxShadow: "var(--editor-shadow)",
    overflow: "hidden",
  },
  ".cm-tooltip-autocomplete > ul": { fontFamily: "var(--editor-font)", maxHeight: "16em" },
  ".cm-tooltip-autocomplete > ul > li": { padding: "1px 0.6em 1px 0.3em", lineHeight: "1.6" },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": {
    backgroundColor: "var(--editor-completion-selected)",
    color: "var(--editor-text)",
  },
  ".cm-completionIcon": { color: "var(--editor-muted)", opacity: "1" },
  ".cm-completionDetail": { color: "var(--editor-muted)" },
  ".cm-completionMatchedText": { textDecoration: "none", fontWeight: "700", color: "var(--editor-match)" },
});
