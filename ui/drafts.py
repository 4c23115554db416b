"""A half-typed form survives a reload (issue 22, item 8): what a clerk types in a form's text, number
and long-text fields is kept in the browser tab (``sessionStorage``: this tab only, gone when it
closes) under the user, the page and the form; after a reload or a return to the page, an empty form
gets it back, field by field, with a notice and a "Descartar rascunho" button. A save that empties its form
(``ui.common.forget``) drops the page's drafts.

Streamlit sends a form's values only when it is submitted, so the server never sees a draft: the
script keeps it where it is typed. Choices and dates are not kept (they are one click each; a
restored choice list or date picker would need Streamlit's internals). The login form and password
fields are never kept.
"""
from __future__ import annotations

import json

import streamlit as st

HOLDER = "painel_drafts"
NEVER = ("login",)  # widget keys never kept (the login form's)
NOTICE = "Rascunho recuperado: o que foi digitado antes de recarregar a página voltou aos campos. Confira antes de salvar."
DISCARD = "Descartar rascunho"

SCRIPT = """<style>.st-key-%(holder)s, .st-key-%(holder)s_forget { display: none !important; }
.painel-draft { background: #fff8e1; border: 1px solid #f0c36d; border-radius: .4rem; padding: .5rem .75rem;
  margin-bottom: .75rem; font-size: .9rem; display: flex; gap: .75rem; align-items: center; }
.painel-draft button { border: 1px solid #b88a1b; background: #fff; border-radius: .3rem; padding: .15rem .6rem;
  cursor: pointer; }</style>
<script>(() => {
window.__painelDraftUser = %(user)s;
if (window.__painelDrafts) return; window.__painelDrafts = true;
const PREFIX = "painel-draft:", NEVER = new Set(%(never)s), NOTICE = %(notice)s, DISCARD = %(discard)s;
const FIELDS = '[data-testid="stTextInput"] input:not([type="password"]), [data-testid="stNumberInput"] input, '
  + '[data-testid="stTextArea"] textarea';
const pageKey = () => PREFIX + window.__painelDraftUser + ":" + location.pathname;
const idOf = (el) => { const holder = el.closest('[class*="st-key-"]'); const key = holder &&
  [...holder.classList].find((c) => c.startsWith("st-key-")); return key ? key.slice(7) : "label:" + (el.getAttribute("aria-label") || ""); };
const fieldsOf = (form) => [...form.querySelectorAll(FIELDS)].map((el) => [idOf(el), el])
  .filter(([id]) => ![...NEVER].some((never) => id.startsWith(never)));
const read = () => JSON.parse(sessionStorage.getItem(pageKey()) || "{}");
const write = (values) => { if (Object.keys(values).length) sessionStorage.setItem(pageKey(), JSON.stringify(values));
  else sessionStorage.removeItem(pageKey()); };
const setValue = (el, value) => { const proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement : HTMLInputElement;
  Object.getOwnPropertyDescriptor(proto.prototype, "value").set.call(el, value);
  el.dispatchEvent(new Event("input", {bubbles: true})); };
const keep = (form) => { const values = read();
  for (const [id, el] of fieldsOf(form)) { if (el.value) values[id] = el.value; else delete values[id]; }
  write(values); };
document.addEventListener("input", (e) => { const form = e.target.closest && e.target.closest('[data-testid="stForm"]');
  if (form && !form.__painelRestoring) keep(form); }, true);
const restore = (form) => { const saved = read(), fields = fieldsOf(form);
  /* field by field: a kept value the field no longer shows comes back (one the clerk emptied was
     dropped from the draft as it was typed; a rerun may redraw one field and not the others) */
  form.__painelRestoring = true; let n = 0;
  for (const [id, el] of fields) if (saved[id] && !el.value) { setValue(el, saved[id]); n += 1; }
  form.__painelRestoring = false; if (!n || form.querySelector(".painel-draft")) return;
  const note = document.createElement("div"); note.className = "painel-draft"; note.setAttribute("role", "status");
  const text = document.createElement("span"); text.textContent = NOTICE;
  const drop = document.createElement("button"); drop.type = "button"; drop.textContent = DISCARD;
  drop.addEventListener("click", () => { form.__painelRestoring = true;
    for (const [, el] of fieldsOf(form)) if (el.value) setValue(el, "");
    form.__painelRestoring = false; keep(form); note.remove(); });
  note.append(text, drop); form.prepend(note); };
const look = () => document.querySelectorAll('[data-testid="stForm"]').forEach(restore);
new MutationObserver(() => { clearTimeout(window.__painelDraftTimer); window.__painelDraftTimer = setTimeout(look, 250); })
  .observe(document.body, {subtree: true, childList: true});
look();
})();</script>"""

FORGET = """<script>(() => { /* %(n)s */
sessionStorage.removeItem("painel-draft:" + (window.__painelDraftUser || "") + ":" + location.pathname); })();</script>"""


def install(username: str) -> None:
    """Once per run of a logged-in page (the script itself starts once per browser tab)."""
    script = SCRIPT % {"holder": HOLDER, "user": json.dumps(username), "never": json.dumps(NEVER),
                       "notice": json.dumps(NOTICE, ensure_ascii=False), "discard": json.dumps(DISCARD)}
    with st.container(key=HOLDER):
        st.html(script, unsafe_allow_javascript=True)


def forget_page() -> None:
    """Drop this page's drafts in the browser (a form was saved and emptied)."""
    n = st.session_state["painel_drafts_n"] = st.session_state.get("painel_drafts_n", 0) + 1
    with st.container(key=f"{HOLDER}_forget"):
        st.html(FORGET % {"n": n}, unsafe_allow_javascript=True)
