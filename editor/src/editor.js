// window.InterviewEditor: CodeMirror 6 mounted over a <textarea>. The textarea stays in the form, hidden and
// kept in sync, so a plain form post still carries the code and a page without JavaScript still works.
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { isolateHistory } from "@codemirror/commands";
import {
  editorExtensions,
  keymapCompartment,
  keymapExtensions,
  readOnlyCompartment,
  readOnlyExtensions,
} from "./setup.js";
import { modName } from "./keys.js";

const mounted = new WeakSet();
let hintCount = 0;

function mount(textarea, options = {}) {
  if (!(textarea instanceof HTMLTextAreaElement)) {
    throw new TypeError("InterviewEditor.mount() needs a <textarea> element");
  }
  if (mounted.has(textarea)) {
    throw new Error("This <textarea> already has an editor; destroy() it before mounting another");
  }
  const editor = new Editor(textarea, options);
  mounted.add(textarea);
  return editor;
}

class Editor {
  #textarea;
  #options;
  #wrapper;
  #view;
  #shownDisplay;
  #hint;
  #listeners = [];

  constructor(textarea, options) {
    this.#textarea = textarea;
    this.#options = options;
    this.#wrapper = document.createElement("div");
    this.#wrapper.className = "interview-editor";
    if (textarea.hasAttribute("rows")) this.#wrapper.style.setProperty("--editor-rows", String(textarea.rows));
    const keymapName = options.keymap ?? "default";
    const hint = this.#keyboardHint(keymapName);
    this.#hint = hint;
    this.#wrapper.append(hint);
    // In the page before the view is built, so that CodeMirror measures real line heights from the start.
    const hadFocus = document.activeElement === textarea;
    this.#shownDisplay = textarea.style.display;
    textarea.style.display = "none";
    textarea.after(this.#wrapper);

    const readOnly = options.readOnly ?? (textarea.readOnly || textarea.disabled);
    this.#view = new EditorView({
      parent: this.#wrapper,
      state: EditorState.create({
        doc: textarea.value,
        extensions: editorExtensions({
          readOnly,
          keymapName,
          placeholder: textarea.placeholder,
          contentAttributes: this.#contentAttributes(hint.id),
          onRun: options.onRun,
          onSubmit: options.onSubmit,
          onDocChanged: (text) => this.#documentChanged(text),
        }),
      }),
    });

    this.#listenToPage();
    if (hadFocus || textarea.autofocus) this.#view.focus();
  }

  getValue() {
    return this.#view ? this.#view.state.doc.toString() : this.#textarea.value;
  }

  // One undoable step, so Ctrl-Z brings back what a "reset to starter" replaced.
  setValue(text) {
    const value = text == null ? "" : String(text);
    if (!this.#view) {
      this.#textarea.value = value;
      return;
    }
    const doc = this.#view.state.doc;
    if (doc.toString() === value) return;
    this.#view.dispatch({
      changes: { from: 0, to: doc.length, insert: value },
      selection: { anchor: 0 },
      scrollIntoView: true,
      annotations: isolateHistory.of("full"),
    });
  }

  focus() {
    if (this.#view) this.#view.focus();
    else this.#textarea.focus();
  }

  setReadOnly(readOnly) {
    this.#textarea.readOnly = Boolean(readOnly);
    if (this.#view) {
      this.#view.dispatch({ effects: readOnlyCompartment.reconfigure(readOnlyExtensions(Boolean(readOnly))) });
    }
  }

  // "default", "vim" or "emacs"; anything else throws, leaving the current keymap in place.
  setKeymap(name) {
    const extensions = keymapExtensions(name);
    if (this.#view) this.#view.dispatch({ effects: keymapCompartment.reconfigure(extensions) });
    this.#hint.textContent = this.#hintText(name);
  }

  // Hands the page back its textarea, holding the latest code (and the focus, if the editor had it).
  destroy() {
    if (!this.#view) return;
    const hadFocus = this.#view.hasFocus;
    this.#textarea.value = this.#view.state.doc.toString();
    for (const [target, type, listener] of this.#listeners) target.removeEventListener(type, listener);
    this.#view.destroy();
    this.#view = null;
    this.#wrapper.remove();
    this.#textarea.style.display = this.#shownDisplay;
    mounted.delete(this.#textarea);
    if (hadFocus) this.#textarea.focus();
  }

  #documentChanged(text) {
    this.#textarea.value = text;
    if (this.#options.onChange) this.#options.onChange(text);
  }

  #listen(target, type, listener) {
    target.addEventListener(type, listener);
    this.#listeners.push([target, type, listener]);
  }

  #listenToPage() {
    const textarea = this.#textarea;
    // A click on the field's <label> would otherwise focus the hidden textarea, i.e. nothing.
    for (const label of textarea.labels || []) {
      this.#listen(label, "click", (event) => {
        event.preventDefault();
        this.focus();
      });
    }
    // A `required` textarea left empty blocks the post; the browser cannot point at a hidden field.
    this.#listen(textarea, "invalid", () => this.focus());
    if (textarea.form) {
      // The form restores the textarea after its "reset" event, so the editor follows on the next task.
      this.#listen(textarea.form, "reset", () => {
        setTimeout(() => {
          if (this.#view) this.setValue(textarea.value);
        });
      });
    }
  }

  #contentAttributes(hintId) {
    const textarea = this.#textarea;
    const labelText = [...(textarea.labels || [])].map((label) => label.textContent.trim()).join(" ");
    const described = [textarea.getAttribute("aria-describedby"), hintId].filter(Boolean).join(" ");
    // tabindex: editable content takes the focus anyway, but checkers (axe-core) count only an element with the
    // attribute as what lets the keyboard reach the scroller around it.
    const attributes = { "aria-describedby": described, tabindex: "0" };
    const name = textarea.getAttribute("aria-label") || labelText;
    if (name) attributes["aria-label"] = name;
    return attributes;
  }

  #keyboardHint(keymapName) {
    const hint = document.createElement("p");
    hint.id = `interview-editor-hint-${++hintCount}`;
    hint.className = "interview-editor__hint";
    hint.textContent = this.#hintText(keymapName);
    return hint;
  }

  // Vim and Emacs take the first Escape themselves (back to normal mode, or dropping the mark).
  #hintText(keymapName) {
    const escape = keymapName === "default" ? "Press Escape then Tab" : "Press Escape twice, then Tab,";
    const parts = [`Tab indents, Shift-Tab dedents. ${escape} to move focus out of the editor.`];
    if (this.#options.onRun) parts.push(`${modName}-Enter runs the code.`);
    if (this.#options.onSubmit) parts.push(`${modName}-Shift-Enter submits it.`);
    return parts.join(" ");
  }
}

window.InterviewEditor = Object.freeze({ mount });
