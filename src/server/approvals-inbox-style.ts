/** The approval inbox's stylesheet (/approvals/assets/inbox.css): one column, phone first. */
export const INBOX_STYLE = `
:root { color-scheme: light dark; --accent: #2563eb; --ok: #15803d; --no: #b91c1c; --line: #8884; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, sans-serif; }
header { display: flex; gap: .75rem; align-items: center; flex-wrap: wrap; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.25rem; margin: 0; flex: 1; }
#who { font-size: .9rem; opacity: .8; overflow-wrap: anywhere; }
main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
form label { display: block; font-weight: 600; margin-bottom: .25rem; }
input, button { font: inherit; }
#token, .reason-input { width: 100%; padding: .6rem; border: 1px solid var(--line); border-radius: .4rem; }
button { min-height: 2.75rem; padding: .5rem 1.1rem; border: 0; border-radius: .4rem; background: var(--accent); color: #fff; cursor: pointer; }
button:disabled { opacity: .5; cursor: default; }
#sign-in { margin-top: .6rem; }
.hint { font-size: .85rem; opacity: .75; }
.error, #sign-in-error, .card-error { color: var(--no); }
#requests { list-style: none; margin: 0; padding: 0; display: grid; gap: 1rem; }
.request { border: 1px solid var(--line); border-radius: .6rem; padding: 1rem; }
.request h2 { margin: 0 0 .5rem; font-size: 1.1rem; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: 0 0 .6rem; }
.facts dt { opacity: .7; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.args { margin: 0 0 .6rem; padding: .6rem; border-radius: .4rem; background: #8881; overflow: auto; max-height: 20rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.reason-label { display: block; font-size: .9rem; margin-bottom: .6rem; }
.actions { display: flex; gap: .6rem; }
.actions button { flex: 1; }
.approve { background: var(--ok); }
.deny { background: var(--no); }
@media (min-width: 40rem) { .actions button { flex: 0 0 auto; } }
`;
