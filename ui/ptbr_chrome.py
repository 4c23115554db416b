"""Streamlit's own words in pt-BR: the accessible names a screen reader reads ("Choose date", "day,
Data", "Open", "Collapse sidebar", "file upload") and the file field's button and hint, which
Streamlit fixes in English and no option translates (issue 22 item 9) — and what a date field says
(issue 35 item 12): Streamlit draws its fields in ``en-US`` whatever the browser's language, so a
segment is announced "Empty" or "01 – January", a period "Período start date", a field's help "Help
for Vencimento", and the year's placeholder is "yyyy" (painted "aaaa" by ``ui.common``'s CSS, copied
as "yyyy"): all of it is said here in pt-BR.

One constant script, no input of ours in it, installed once per browser tab by :func:`install`: it
translates what is on the page and, through a ``MutationObserver``, what each rerun draws.
"""
from __future__ import annotations

import json

import streamlit as st

# whole accessible names (aria-label, title, placeholder) → pt-BR
NAMES = {
    "Choose date": "Escolher data", "Choose date range": "Escolher o período", "Open": "Abrir a lista", "Close": "Fechar", "Clear value": "Limpar",
    "Clear all": "Limpar tudo", "Collapse sidebar": "Recolher a barra lateral",
    "Expand sidebar": "Abrir a barra lateral", "Sidebar": "Barra lateral", "App pages": "Páginas do painel",
    "Link to heading": "Link para este título", "file upload": "Escolher arquivo", "Remove file": "Remover arquivo",
    "Download as CSV": "Baixar como CSV", "Search": "Buscar", "Fullscreen": "Tela cheia",
    "Close fullscreen": "Sair da tela cheia", "Show/hide columns": "Mostrar ou ocultar colunas",
    "Copy to clipboard": "Copiar", "Increment": "Aumentar", "Decrement": "Diminuir", "Previous": "Anterior",
    "Next": "Próximo", "Calendar": "Calendário", "Main menu": "Menu principal",
    "Empty": "Vazio", "Help": "Ajuda", "Previous month": "Mês anterior", "Next month": "Próximo mês",
    "Quick select a date range": "Escolha rápida do período", "Clear date": "Limpar a data",
    "Clear dates": "Limpar as datas",
}
# names that end with the element's own label: "day, Data do protocolo" → "dia, Data do protocolo"
PREFIXES = {"Fullscreen: ": "Tela cheia: ", "day, ": "dia, ", "month, ": "mês, ", "year, ": "ano, ", "hour, ": "hora, ", "minute, ": "minuto, ",
            "AM/PM, ": "AM/PM, ", "Help for ": "Ajuda para ", "Choose date range, ": "Escolher o período, ",
            "Choose date, ": "Escolher data, ", "Selected Date: ": "Data escolhida: ",
            "Selected Range: ": "Período escolhido: ", "Today, ": "Hoje, "}
# names that end with the field's part: "Período start date" → "Período, data inicial"
SUFFIXES = {" start date": ", data inicial", " end date": ", data final"}
# month names inside a name or a value ("01 – January" → "01 – janeiro")
MONTHS = dict(zip(("January", "February", "March", "April", "May", "June", "July", "August", "September",
                   "October", "November", "December"),
                  ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro",
                   "outubro", "novembro", "dezembro")))
# the calendar of a browser in English says its dates in English ("Monday, December 7, 2026")
WEEKDAYS = dict(zip(("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"),
                    ("domingo", "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira",
                     "sábado")))
# whole texts Streamlit draws in its lists (a choice list filtered down to nothing)
WORDS = {"No results": "Nenhum resultado", "No options to select": "Nenhuma opção", "Date range": "Período",
         "Select...": "Escolha...", "yyyy": "aaaa"}
# texts drawn by Streamlit in the file field (the CSS of ui.common also rewords what is seen)
TEXTS = {'[data-testid="stFileUploaderDropzone"] button p': "Escolher arquivo",
         '[data-testid="stFileUploaderDropzoneInstructions"] span': "ou arraste o arquivo para cá"}

SCRIPT = """<script>(() => {
if (window.__painelPtBr) return; window.__painelPtBr = true;
const NAMES = %(names)s, PREFIXES = %(prefixes)s, SUFFIXES = %(suffixes)s, MONTHS = %(months)s,
  WEEKDAYS = %(weekdays)s, TEXTS = %(texts)s, WORDS = %(words)s;
const ATTRS = ["aria-label", "title", "placeholder", "aria-valuetext"];
const MN = Object.keys(MONTHS).join("|"), WD = Object.keys(WEEKDAYS).join("|");
const MONTH = new RegExp("\\\\b(" + MN + ")\\\\b", "g");
const DATE = new RegExp("\\\\b(?:(" + WD + "), )?(" + MN + ") (\\\\d{1,2}), (\\\\d{1,4})\\\\b", "g");
const WEEKDAY = new RegExp("\\\\b(" + WD + ")\\\\b", "g");
const MONTH_YEAR = new RegExp("\\\\b(" + MN + ") (\\\\d{4})\\\\b", "g");
// "Monday, December 7, 2026" → "segunda-feira, 7 de dezembro de 2026"; "December 2026" → "dezembro de 2026"
const dates = (v) => v.replace(DATE, (m, wd, mo, d, y) => (wd ? WEEKDAYS[wd] + ", " : "") + `${+d} de ${MONTHS[mo]} de ${y}`)
  .replace(MONTH_YEAR, (m, mo, y) => `${MONTHS[mo]} de ${y}`).replace(MONTH, (m) => MONTHS[m])
  .replace(WEEKDAY, (w) => WEEKDAYS[w]);
const phrase = (v) => { let out = v;
  for (const [en, pt] of Object.entries(PREFIXES)) if (out.startsWith(en)) { out = pt + out.slice(en.length); break; }
  for (const [en, pt] of Object.entries(SUFFIXES)) if (out.endsWith(en)) { out = out.slice(0, -en.length) + pt; break; }
  return dates(out); };
const said = (v) => { const out = NAMES[v] || phrase(v); return out !== v ? out : null; };
// a text drawn by Streamlit: a whole word of its lists, a month alone, or a phrase with a date in it
const told = (v) => { const t = v.trim(); if (WORDS[t]) return WORDS[t]; if (MONTHS[t]) return MONTHS[t];
  const out = /\\d/.test(t) ? phrase(v) : v; return out !== v ? out : null; };
const retell = (node) => { const t = told(node.textContent); if (t !== null) node.textContent = t; };
const fix = (el) => { for (const name of ATTRS) { const v = el.getAttribute(name); const t = v && said(v);
  if (t && t !== v) el.setAttribute(name, t); } };
const walk = (root) => { if (root && root.nodeType === 3) { retell(root); return; }
  if (!root || root.nodeType !== 1) return; fix(root);
  root.querySelectorAll("[aria-label],[title],[placeholder],[aria-valuetext]").forEach(fix);
  for (const [css, text] of Object.entries(TEXTS)) root.querySelectorAll(css).forEach((el) => {
    if (el.children.length === 0 && el.textContent !== text) el.textContent = text; });
  const texts = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(); node; node = texts.nextNode()) if (!node.parentElement.closest("script, style")) retell(node); };
new MutationObserver((changes) => { for (const c of changes) {
  if (c.type === "attributes") fix(c.target);
  else if (c.type === "characterData") walk(c.target.parentElement && c.target.parentElement.parentElement);
  else c.addedNodes.forEach(walk); } }).observe(document.body,
  {subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ATTRS});
walk(document.body);
})();</script>""" % {name: json.dumps(value, ensure_ascii=False) for name, value in (
    ("names", NAMES), ("prefixes", PREFIXES), ("suffixes", SUFFIXES), ("months", MONTHS), ("weekdays", WEEKDAYS),
    ("texts", TEXTS), ("words", WORDS))}


def install() -> None:
    """Once per run, before any page (the script itself runs once per browser tab)."""
    st.html(SCRIPT, unsafe_allow_javascript=True)
